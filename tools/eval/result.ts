/**
 * The eval's result: what the CLI writes as JSON (every verdict whole), and
 * the bounded projection a department keeps for its admins (evals.record).
 */
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { EVAL_RESULT_LIMITS } from "../../convex/lib/evalResults";
import type { EvalResult as StoredResult } from "../../convex/validators";
import type { ModelSummary, Verdict } from "./score";

export interface EvalResult {
  ranAt: number;
  server: string;
  wallMs: number;
  models: ModelSummary[];
  scenarios: Array<{ id: string; kind: string; about: string; verdicts: Array<Verdict & { model: string }> }>;
}

const clip = (text: string) => (text.length > EVAL_RESULT_LIMITS.textChars ? `${text.slice(0, EVAL_RESULT_LIMITS.textChars - 1)}…` : text);

/** What the app keeps of a result: the figures, and per scenario each model's pass and its first reasons. */
export function storedResult(result: EvalResult): StoredResult {
  return {
    ranAt: result.ranAt,
    server: clip(result.server),
    wallMs: Math.round(result.wallMs),
    models: result.models.slice(0, EVAL_RESULT_LIMITS.models).map((m) => ({ ...m, model: clip(m.model) })),
    scenarios: result.scenarios.slice(0, EVAL_RESULT_LIMITS.scenarios).map((s) => ({
      id: clip(s.id),
      kind: s.kind,
      verdicts: s.verdicts.slice(0, EVAL_RESULT_LIMITS.models).map((v) => ({ model: clip(v.model), pass: v.pass, why: v.why.slice(0, EVAL_RESULT_LIMITS.whyLines).map(clip) })),
    })),
  };
}

/**
 * Stores `result` in the Maestro at `url` as the newest of the department
 * `departmentSlug`, with that deployment's admin key (evals.record is
 * internal: only the admin key may call it, as `npx convex run` would).
 */
export async function storeResult(url: string, adminKey: string, departmentSlug: string, result: EvalResult): Promise<void> {
  const client = new ConvexHttpClient(url);
  // Not in the client's public types; the same call the Convex CLI makes with a deployment's admin key.
  (client as unknown as { setAdminAuth(key: string): void }).setAdminAuth(adminKey);
  await client.mutation(anyApi.evals.record, { departmentSlug, result: storedResult(result) });
}
