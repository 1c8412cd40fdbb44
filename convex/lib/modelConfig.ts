/**
 * Which model agents think with, from the deployment's environment: plain
 * parsing with no client and no Convex context, so the run's life can ask
 * whether agents can think at all (`modelConfigProblem`) without the model
 * client (brain/model.ts).
 */
import { env } from "../_generated/server";
import { TOOL_CALL_MODES, type ToolCallMode } from "../validators";

export interface ModelConfig {
  apiKey: string;
  /** The server's API root, e.g. `http://127.0.0.1:11434/v1`; OpenAI's when unset. */
  baseURL?: string;
  /** Used when the agent names no model of its own. */
  defaultModel: string;
  /** Shown instead of the model name, e.g. "demo model (offline, rule-based)". */
  label?: string;
  /** Limit for each attempt, from sending the request to the last byte of the answer. */
  timeoutMs: number;
  /** Further attempts after a timeout, a lost connection, 408, 409, 429 or 5xx. */
  maxRetries: number;
}

/** A model call that failed, or a model configuration that cannot work; `message` is written for the person reading the run. */
export class ModelError extends Error {
  constructor(
    message: string,
    /** The HTTP status, when the server answered with an error. */
    readonly status?: number,
  ) {
    super(message);
    this.name = "ModelError";
  }
}

export const DEFAULT_MODEL = "gpt-4o-mini";
export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;
export const DEFAULT_MODEL_MAX_RETRIES = 2;
/** Sent when only a base URL is configured: local servers ignore the key, but the client needs one. */
export const PLACEHOLDER_API_KEY = "not-needed";

/**
 * The model configuration in `env` (OPENAI_API_KEY, OPENAI_BASE_URL,
 * MAESTRO_DEFAULT_MODEL, MAESTRO_MODEL_LABEL, MAESTRO_MODEL_TIMEOUT_MS,
 * MAESTRO_MODEL_MAX_RETRIES), or null when neither a key nor a base URL is
 * set. A base URL alone is enough (local servers need no key).
 *
 * @throws ModelError when a value is set but unusable, naming the variable.
 */
export function modelConfigFromEnv(env: Record<string, string | undefined>): ModelConfig | null {
  const apiKey = setting(env, "OPENAI_API_KEY");
  const baseURL = setting(env, "OPENAI_BASE_URL");
  if (apiKey === undefined && baseURL === undefined) return null;
  if (baseURL !== undefined && !/^https?:\/\/[^/\s]+/i.test(baseURL)) {
    throw new ModelError(`OPENAI_BASE_URL must be an http(s) URL such as http://127.0.0.1:11434/v1, got "${baseURL}"`);
  }
  const label = setting(env, "MAESTRO_MODEL_LABEL");
  return {
    apiKey: apiKey ?? PLACEHOLDER_API_KEY,
    ...(baseURL === undefined ? {} : { baseURL: baseURL.replace(/\/+$/, "") }),
    defaultModel: setting(env, "MAESTRO_DEFAULT_MODEL") ?? DEFAULT_MODEL,
    ...(label === undefined ? {} : { label }),
    timeoutMs: wholeNumber(env, "MAESTRO_MODEL_TIMEOUT_MS", DEFAULT_MODEL_TIMEOUT_MS, 1, "a whole number of milliseconds above 0"),
    maxRetries: wholeNumber(env, "MAESTRO_MODEL_MAX_RETRIES", DEFAULT_MODEL_MAX_RETRIES, 0, "a whole number, 0 or more"),
  };
}

function setting(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function wholeNumber(env: Record<string, string | undefined>, name: string, fallback: number, min: number, what: string): number {
  const text = setting(env, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) throw new ModelError(`${name} must be ${what}, got "${text}"`);
  return value;
}

/** Why no run starts on a deployment without a model; the UI says the same. */
export const NO_MODEL_NOTE = "No model configured: set OPENAI_API_KEY or OPENAI_BASE_URL for the deployment.";

/** Why agents cannot think on this deployment (no model, or unusable model settings), or null. */
export function modelConfigProblem(source: Record<string, string | undefined> = env): string | null {
  try {
    return modelConfigFromEnv(source) === null ? NO_MODEL_NOTE : null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** What a run shows as its model: the configured label, else the agent's model, else the default; "" when none is usable. */
export function modelLabel(agentModel: string | undefined, source: Record<string, string | undefined> = env): string {
  try {
    const config = modelConfigFromEnv(source);
    return config === null ? "" : (config.label ?? agentModel ?? config.defaultModel);
  } catch {
    // An unusable configuration ends the run at once, with its reason.
    return "";
  }
}

/** How tools go to a model when the department chose nothing: native, with `[TOOL: …]` text still read. */
export const DEFAULT_TOOL_CALL_MODE: ToolCallMode = "auto";

/**
 * The deployment's default tool-call mode, `MAESTRO_TOOL_CALLS` (`native`,
 * `text` or `auto`); an unknown value is refused by name.
 *
 * @throws ModelError when the value is none of the three.
 */
export function toolCallModeFromEnv(source: Record<string, string | undefined> = env): ToolCallMode {
  const text = setting(source, "MAESTRO_TOOL_CALLS")?.toLowerCase();
  if (text === undefined) return DEFAULT_TOOL_CALL_MODE;
  if (!(TOOL_CALL_MODES as readonly string[]).includes(text)) throw new ModelError(`MAESTRO_TOOL_CALLS must be native, text or auto, got "${text}"`);
  return text as ToolCallMode;
}
