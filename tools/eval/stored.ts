/**
 * The eval's result: what the CLI writes as JSON (every verdict whole), and
 * the bounded projection a department keeps for its admins. Pure: the CLI
 * and the app (convex/evals.ts) both store through it.
 */
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
