/**
 * Secret scanning for what people and agents write on the board: task
 * titles, descriptions and thread messages get the same redaction and note
 * as the #maestro chat, under the department's scanner settings. Callers cut
 * or refuse oversized text first (lib/validate's limits), so a scan is
 * always bounded.
 */
import type { Id } from "../_generated/dataModel";
import type { QueryCtx } from "../_generated/server";
import { chatSettings } from "./config";
import { ruleScanner } from "./secrets/rules";
import { redactSecrets } from "./secrets/scanner";

export async function redactForDepartment(ctx: QueryCtx, departmentId: Id<"departments">, field: string, text: string): Promise<string> {
  if (text === "") return text;
  const settings = await chatSettings(ctx, departmentId);
  if (!settings.scannerEnabled) return text;
  const result = redactSecrets(text, ruleScanner, { timeoutMs: settings.scannerTimeoutMs });
  if (result.scannerError) console.warn(`${field} scannerError=true: ${result.error ?? "unknown error"}`);
  return result.text;
}
