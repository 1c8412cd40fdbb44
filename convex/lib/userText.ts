/**
 * Secret scanning for what people and agents write on the board: task
 * titles, descriptions and thread messages get the same redaction and note
 * as the #maestro chat (lib/secrets/userText), under the department's scanner
 * settings. Callers refuse oversized text first (lib/validate's limits), so
 * nothing is cut here and a scan is always bounded.
 */
import type { Id } from "../_generated/dataModel";
import type { QueryCtx } from "../_generated/server";
import { chatSettings } from "./config";
import { scanUserText } from "./secrets/userText";

export async function redactForDepartment(ctx: QueryCtx, departmentId: Id<"departments">, field: string, text: string): Promise<string> {
  if (text === "") return text;
  const settings = await chatSettings(ctx, departmentId);
  return scanUserText(text, {
    maxChars: text.length,
    enabled: settings.scannerEnabled,
    timeoutMs: settings.scannerTimeoutMs,
    source: field,
  }).text;
}
