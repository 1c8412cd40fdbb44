/**
 * A department's settings (one `settings` row, over the deployment's JSON
 * config) and what they decide: the #maestro chat's limits and scanner, the
 * secret redaction of everything people and agents write on the board, and
 * the squad lead's mode in #maestro.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { chatSettingsFromEnv, type ChatSettings } from "../lib/config";
import { leadModeOf } from "../lib/leadMode";
import { scanUserText } from "../lib/secrets/userText";
import type { RetentionPolicy } from "../lib/retention";
import type { LeadMode } from "../validators";

/** The department's saved overrides, if it has any. */
export async function settingsOf(ctx: QueryCtx, departmentId: Id<"departments">): Promise<Doc<"settings"> | null> {
  return await ctx.db
    .query("settings")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .unique();
}

/** A department's effective chat settings: the deployment's, overridden by what its admins saved. */
export async function chatSettings(ctx: QueryCtx, departmentId: Id<"departments">): Promise<ChatSettings> {
  const base = chatSettingsFromEnv();
  const saved = await settingsOf(ctx, departmentId);
  return { ...base, ...(saved?.chat ?? {}) };
}

/** Saves chat overrides over what the department had. */
export async function saveChatSettings(ctx: MutationCtx, departmentId: Id<"departments">, changes: Partial<ChatSettings>): Promise<void> {
  const saved = await settingsOf(ctx, departmentId);
  if (saved === null) await ctx.db.insert("settings", { departmentId, chat: changes });
  else await ctx.db.patch("settings", saved._id, { chat: { ...saved.chat, ...changes } });
}

/** The lead's mode where a task works (its own, else the department's), or in #maestro when `task` is null. */
export async function leadModeFor(ctx: QueryCtx, departmentId: Id<"departments">, task: Doc<"tasks"> | null): Promise<LeadMode> {
  return leadModeOf(task, await settingsOf(ctx, departmentId));
}

/** Sets the lead's mode in #maestro. */
export async function saveChatLeadMode(ctx: MutationCtx, departmentId: Id<"departments">, mode: LeadMode): Promise<void> {
  const saved = await settingsOf(ctx, departmentId);
  if (saved === null) await ctx.db.insert("settings", { departmentId, chat: {}, leadMode: mode });
  else await ctx.db.patch("settings", saved._id, { leadMode: mode });
}

/**
 * Secret scanning for what people and agents write on the board: task
 * titles, descriptions and messages get the same redaction and note as the
 * #maestro chat (lib/secrets/userText), under the department's scanner
 * settings. Callers refuse oversized text first (lib/validate's limits), so
 * nothing is cut here and a scan is always bounded.
 */
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

/** The department's retention policy: {} (keep everything) unless its admins set one. */
export async function retentionOf(ctx: QueryCtx, departmentId: Id<"departments">): Promise<RetentionPolicy> {
  return (await settingsOf(ctx, departmentId))?.retention ?? {};
}

/** Replaces the department's retention policy (checked by the caller). */
export async function saveRetention(ctx: MutationCtx, departmentId: Id<"departments">, policy: RetentionPolicy): Promise<void> {
  const saved = await settingsOf(ctx, departmentId);
  if (saved === null) await ctx.db.insert("settings", { departmentId, chat: {}, retention: policy });
  else await ctx.db.patch("settings", saved._id, { retention: policy });
}

/** Most departments one retention pass looks at. */
const MAX_SETTINGS_SCANNED = 1000;

/** The departments whose settings hold a retention policy (the cron's list). */
export async function departmentsWithRetention(ctx: QueryCtx): Promise<Array<Id<"departments">>> {
  const rows = await ctx.db.query("settings").take(MAX_SETTINGS_SCANNED);
  return rows.filter((row) => row.retention !== undefined).map((row) => row.departmentId);
}
