/**
 * Sends an eval's result to a running Maestro (the CLI's --report-to).
 */
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { storedResult, type EvalResult } from "./stored";

export { storedResult, type EvalResult } from "./stored";

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
