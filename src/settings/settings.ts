import type { FunctionArgs, FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";

/** The effective chat settings, as `chat.settings` returns them. */
export type ChatSettingsValues = FunctionReturnType<typeof api.chat.settings>;

/** What `chat.updateSettings` takes besides the department: only the settings being changed. */
export type ChatSettingsChanges = Omit<FunctionArgs<typeof api.chat.updateSettings>, "departmentId">;

/** The largest number the server accepts for either limit (mirrors `chat.updateSettings`). */
export const MAX_SETTING_NUMBER = 1_000_000;

/** The two switches, with the words the form uses for them. */
export const SWITCH_FIELDS = [
  { key: "enabled", label: "Chat enabled", hint: "When off, the #maestro pane, the agents’ chat tools and the chat API are unavailable." },
  { key: "scannerEnabled", label: "Secret scanner enabled", hint: "Redacts secrets such as API keys and tokens from messages before they are stored." },
] as const;

export type SwitchField = (typeof SWITCH_FIELDS)[number]["key"];

/** The number fields, with the words the form uses for them. */
export const NUMBER_FIELDS = [
  { key: "maxMessageChars", label: "Max message characters", hint: "Longer messages are cut to this and marked as truncated." },
  { key: "scannerTimeoutMs", label: "Scanner timeout (ms)", hint: "How long the secret scanner may take per message." },
] as const;

export type NumberField = (typeof NUMBER_FIELDS)[number]["key"];

/**
 * A whole number from 1 to `MAX_SETTING_NUMBER` typed as text, or an error
 * message. Digits only: "1e3", "12.0" and "+5" are refused rather than guessed at.
 */
export function parsePositiveInteger(raw: string): { value: number } | { error: string } {
  const text = raw.trim();
  const problem = `Enter a whole number from 1 to ${MAX_SETTING_NUMBER.toLocaleString("en")}.`;
  if (!/^\d+$/.test(text)) return { error: problem };
  const value = Number(text);
  if (value < 1 || value > MAX_SETTING_NUMBER) return { error: problem };
  return { value };
}

/**
 * The settings in `next` that differ from `current`. Only these are saved, so
 * a setting nobody touched keeps following the deployment's configuration.
 */
export function changedSettings(current: ChatSettingsValues, next: ChatSettingsValues): ChatSettingsChanges {
  const changes: ChatSettingsChanges = {};
  if (next.enabled !== current.enabled) changes.enabled = next.enabled;
  if (next.maxMessageChars !== current.maxMessageChars) changes.maxMessageChars = next.maxMessageChars;
  if (next.scannerEnabled !== current.scannerEnabled) changes.scannerEnabled = next.scannerEnabled;
  if (next.scannerTimeoutMs !== current.scannerTimeoutMs) changes.scannerTimeoutMs = next.scannerTimeoutMs;
  return changes;
}
