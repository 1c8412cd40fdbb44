/**
 * Maestro's runtime configuration inside Convex. The JSON config (defaults
 * below, `maestro.config.json`, environment) reaches functions as the
 * MAESTRO_CONFIG_JSON environment variable and gives every department its
 * defaults; a department's admins override them for their department
 * (records/settings.ts). No limit is a literal in code
 * paths: they are read from here.
 */
import { env } from "../_generated/server";

export interface ChatSettings {
  enabled: boolean;
  maxMessageChars: number;
  scannerEnabled: boolean;
  scannerTimeoutMs: number;
}

/** The chat spec's defaults. */
export const DEFAULT_CHAT_SETTINGS: ChatSettings = {
  enabled: true,
  maxMessageChars: 4096,
  scannerEnabled: true,
  scannerTimeoutMs: 800,
};

type Json = Record<string, unknown>;

function section(value: unknown, key: string): Json {
  const inner = value !== null && typeof value === "object" ? (value as Json)[key] : undefined;
  return inner !== null && typeof inner === "object" ? (inner as Json) : {};
}

function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === "boolean" ? value : fallback;
}

function positive(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

/** Chat settings from the JSON config in the environment (a malformed value falls back to its default). */
export function chatSettingsFromEnv(source: Record<string, string | undefined> = env): ChatSettings {
  const raw = source.MAESTRO_CONFIG_JSON;
  const enabledVar = source.MAESTRO_CHAT_ENABLED;
  // Every chat call asks; the JSON is parsed again only when the variables changed.
  if (lastFromEnv === null || lastFromEnv.raw !== raw || lastFromEnv.enabledVar !== enabledVar) {
    lastFromEnv = { raw, enabledVar, settings: parseChatSettings(raw, enabledVar) };
  }
  return { ...lastFromEnv.settings };
}

let lastFromEnv: { raw: string | undefined; enabledVar: string | undefined; settings: ChatSettings } | null = null;

function parseChatSettings(raw: string | undefined, enabledVar: string | undefined): ChatSettings {
  let json: unknown = {};
  if (raw) {
    try {
      json = JSON.parse(raw);
    } catch {
      json = {};
    }
  }
  const chat = section(json, "chat");
  const limits = section(chat, "limits");
  const scanner = section(chat, "scanner");
  const fromJson: ChatSettings = {
    enabled: bool(chat.enabled, DEFAULT_CHAT_SETTINGS.enabled),
    maxMessageChars: positive(limits.maxMessageChars, DEFAULT_CHAT_SETTINGS.maxMessageChars),
    scannerEnabled: bool(scanner.enabled, DEFAULT_CHAT_SETTINGS.scannerEnabled),
    scannerTimeoutMs: positive(scanner.timeoutMs, DEFAULT_CHAT_SETTINGS.scannerTimeoutMs),
  };
  // Single variables win over the JSON, as environment overrides do.
  if (enabledVar !== undefined) fromJson.enabled = enabledVar !== "false";
  return fromJson;
}

/**
 * The departments (by slug) the WebUI password opens over `/api/chat`
 * (`webui.departments`); null means every department.
 */
export function webuiDepartmentsFromEnv(source: Record<string, string | undefined> = env): string[] | null {
  let json: unknown = {};
  try {
    json = JSON.parse(source.MAESTRO_CONFIG_JSON ?? "{}");
  } catch {
    json = {};
  }
  const departments = section(json, "webui").departments;
  return Array.isArray(departments) ? departments.filter((d): d is string => typeof d === "string") : null;
}

/** The WebUI password (`webui.password`, else MAESTRO_WEBUI_PASSWORD), or null when none is set. */
export function webuiPasswordFromEnv(source: Record<string, string | undefined> = env): string | null {
  let json: unknown = {};
  try {
    json = JSON.parse(source.MAESTRO_CONFIG_JSON ?? "{}");
  } catch {
    json = {};
  }
  const password = section(json, "webui").password;
  if (typeof password === "string" && password !== "") return password;
  return source.MAESTRO_WEBUI_PASSWORD ? source.MAESTRO_WEBUI_PASSWORD : null;
}

/** Origins the app is served from, which browsers may call the HTTP routes from: SITE_URL and MAESTRO_CORS_ORIGINS (comma separated). */
export function appOriginsFromEnv(source: Record<string, string | undefined> = env): string[] {
  return [source.SITE_URL, ...(source.MAESTRO_CORS_ORIGINS ?? "").split(",")].map((o) => (o ?? "").trim().replace(/\/$/, "")).filter((o) => o !== "");
}

/** Whether webhooks may reach loopback and private addresses (MAESTRO_WEBHOOK_ALLOW_PRIVATE=1): for self-hosters whose receiver is on their own network. */
export function webhookAllowPrivateFromEnv(source: Record<string, string | undefined> = env): boolean {
  return source.MAESTRO_WEBHOOK_ALLOW_PRIVATE === "1";
}

/** One A2A call's timeout in ms when MAESTRO_A2A_CALL_TIMEOUT_MS sets a shorter one than `max` (tests of a remote agent that never answers), else `max`. */
export function a2aCallTimeoutFromEnv(max: number, source: Record<string, string | undefined> = env): number {
  const set = Number(source.MAESTRO_A2A_CALL_TIMEOUT_MS);
  return Number.isFinite(set) && set > 0 ? Math.min(set, max) : max;
}
