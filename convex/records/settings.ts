/**
 * A department's settings (one `settings` row, over the deployment's JSON
 * config) and what they decide: the #maestro chat's limits and scanner, the
 * secret redaction of everything people and agents write on the board, the
 * squad lead's mode in #maestro, retention, and what a prompt's injection
 * does with messages (the summariser and the PII rules).
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { chatSettingsFromEnv, type ChatSettings } from "../lib/config";
import { leadModeOf } from "../lib/leadMode";
import { scanUserText } from "../lib/secrets/userText";
import type { PiiRules } from "../lib/pii";
import type { RetentionPolicy } from "../lib/retention";
import { DEFAULT_SUMMARISER } from "../lib/summariser";
import type { LeadMode, SummariserSetting, ToolCallMode } from "../validators";
import { DEFAULT_TOOL_CALL_MODE, toolCallModeFromEnv } from "../lib/modelConfig";

/** The department's saved overrides, if it has any. */
export async function settingsOf(ctx: QueryCtx, departmentId: Id<"departments">): Promise<Doc<"settings"> | null> {
  return await ctx.db
    .query("settings")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .unique();
}

/**
 * A department's effective chat settings: the deployment's, overridden by
 * what its admins saved. The overrides are read from the department's own
 * document (its copy of them, `departments.chat`), so every chat post, which
 * reads its department anyway, reads no settings row; a department made
 * before that copy existed reads its settings row.
 */
export async function chatSettingsOf(ctx: QueryCtx, department: Doc<"departments">): Promise<ChatSettings> {
  const saved = department.chat ?? (await settingsOf(ctx, department._id))?.chat ?? {};
  return { ...chatSettingsFromEnv(), ...saved };
}

/** As `chatSettingsOf`, for a department known by its id. */
export async function chatSettings(ctx: QueryCtx, departmentId: Id<"departments">): Promise<ChatSettings> {
  const department = await ctx.db.get("departments", departmentId);
  if (department === null) return { ...chatSettingsFromEnv(), ...((await settingsOf(ctx, departmentId))?.chat ?? {}) };
  return await chatSettingsOf(ctx, department);
}

/** Saves chat overrides over what the department had: in its settings row and in the department's copy, in one transaction. */
export async function saveChatSettings(ctx: MutationCtx, departmentId: Id<"departments">, changes: Partial<ChatSettings>): Promise<void> {
  const saved = await settingsOf(ctx, departmentId);
  const chat = { ...(saved?.chat ?? {}), ...changes };
  if (saved === null) await ctx.db.insert("settings", { departmentId, chat });
  else await ctx.db.patch("settings", saved._id, { chat });
  await ctx.db.patch("departments", departmentId, { chat });
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

/** Where the history retention's walk over the department's runs has got to (0: the start). */
export async function runStepsSweptBeforeOf(ctx: QueryCtx, departmentId: Id<"departments">): Promise<number> {
  return (await settingsOf(ctx, departmentId))?.runStepsSweptBefore ?? 0;
}

/** Moves the history retention's place among the department's runs on (its settings row exists: it holds the policy). */
export async function saveRunStepsSweptBefore(ctx: MutationCtx, departmentId: Id<"departments">, at: number): Promise<void> {
  const saved = await settingsOf(ctx, departmentId);
  if (saved !== null) await ctx.db.patch("settings", saved._id, { runStepsSweptBefore: at });
}

/** Most departments one retention pass looks at. */
const MAX_SETTINGS_SCANNED = 1000;

/** The departments whose settings hold a retention policy (the cron's list). */
export async function departmentsWithRetention(ctx: QueryCtx): Promise<Array<Id<"departments">>> {
  const rows = await ctx.db.query("settings").take(MAX_SETTINGS_SCANNED);
  return rows.filter((row) => row.retention !== undefined).map((row) => row.departmentId);
}

/** The department's PII rules for injected text: every rule on unless its admins turned one off. */
export async function piiRulesOf(ctx: QueryCtx, departmentId: Id<"departments">): Promise<PiiRules> {
  return (await settingsOf(ctx, departmentId))?.pii ?? {};
}

/** How the department's threads are summarised: extractive unless its admins chose a model. */
export async function summariserOf(ctx: QueryCtx, departmentId: Id<"departments">): Promise<SummariserSetting> {
  return (await settingsOf(ctx, departmentId))?.summariser ?? DEFAULT_SUMMARISER;
}

async function summariserKeyRow(ctx: QueryCtx, departmentId: Id<"departments">): Promise<Doc<"summariserKeys"> | null> {
  return await ctx.db
    .query("summariserKeys")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .unique();
}

/** Whether a summariser key is saved (the key itself is read only by `summariserForRun`). */
export async function hasSummariserKey(ctx: QueryCtx, departmentId: Id<"departments">): Promise<boolean> {
  return (await summariserKeyRow(ctx, departmentId)) !== null;
}

/** The summariser model a run calls, key included, or null when the department summarises extractively. Internal reads only. */
export async function summariserForRun(ctx: QueryCtx, departmentId: Id<"departments">) {
  const setting = await summariserOf(ctx, departmentId);
  if (setting.kind === "extractive") return null;
  const key = await summariserKeyRow(ctx, departmentId);
  return { baseUrl: setting.baseUrl, model: setting.model, timeoutMs: setting.timeoutMs, apiKey: key?.apiKey ?? null };
}

/** Saves the department's summariser and PII rules (checked by the caller). */
export async function saveInjectionSettings(ctx: MutationCtx, departmentId: Id<"departments">, changes: { summariser: SummariserSetting; pii: PiiRules }): Promise<void> {
  const saved = await settingsOf(ctx, departmentId);
  if (saved === null) await ctx.db.insert("settings", { departmentId, chat: {}, ...changes });
  else await ctx.db.patch("settings", saved._id, changes);
}

/** Sets (a string) or removes (null) the department's summariser key. */
export async function saveSummariserKey(ctx: MutationCtx, departmentId: Id<"departments">, apiKey: string | null): Promise<void> {
  const row = await summariserKeyRow(ctx, departmentId);
  if (apiKey === null) {
    if (row !== null) await ctx.db.delete("summariserKeys", row._id);
  } else if (row === null) await ctx.db.insert("summariserKeys", { departmentId, apiKey });
  else await ctx.db.patch("summariserKeys", row._id, { apiKey });
}

/**
 * How the department's agents call tools (native, text, auto): its own
 * choice, else the deployment's MAESTRO_TOOL_CALLS (an unusable value there
 * falls back to the default here; the run says why when it starts).
 */
export async function toolCallModeOf(ctx: QueryCtx, departmentId: Id<"departments">): Promise<ToolCallMode> {
  const saved = (await settingsOf(ctx, departmentId))?.toolCalls;
  if (saved !== undefined) return saved;
  try {
    return toolCallModeFromEnv();
  } catch {
    return DEFAULT_TOOL_CALL_MODE;
  }
}

/** Saves the department's tool-call mode; null goes back to the deployment's default. */
export async function saveToolCallMode(ctx: MutationCtx, departmentId: Id<"departments">, mode: ToolCallMode | null): Promise<void> {
  const saved = await settingsOf(ctx, departmentId);
  if (saved === null) {
    if (mode !== null) await ctx.db.insert("settings", { departmentId, chat: {}, toolCalls: mode });
  } else await ctx.db.patch("settings", saved._id, { toolCalls: mode ?? undefined });
}
