/**
 * The summariser setting (messaging spec, "Summarization: use a fast model
 * to compress threads"): a department summarises long threads for a prompt
 * either extractively (lib/injection's `summariseThread`, the default,
 * offline and deterministic) or with an OpenAI-compatible model. A model's
 * answer is used only when it reads as a summary; anything else — a failure,
 * a timeout, an empty or oversized answer, a tool call, markup — falls back
 * to the extractive summary. Pure and light (no tokenizer), so the settings
 * form checks with the same rules; the call itself is brain/summariser's.
 */
import { MaestroError } from "./errors";
import { redactPii, type PiiRules } from "./pii";
import type { SummariserSetting } from "../validators";

export const DEFAULT_SUMMARISER: SummariserSetting = { kind: "extractive" };
/** The model's whole answer must arrive within this by default; the extractive summary is used otherwise. */
export const DEFAULT_SUMMARY_TIMEOUT_MS = 4_000;
/** The slowest a summariser may be allowed to be: a run waits for it before its model call. */
export const MAX_SUMMARY_TIMEOUT_MS = 30_000;
export const MIN_SUMMARY_TIMEOUT_MS = 100;
/** Longest model summary kept, in characters (about 80 tokens); a longer answer is not a summary. */
export const MAX_SUMMARY_CHARS = 400;
/** Threads summarised by the model per model call of a run; the others stay extractive. */
export const MAX_MODEL_SUMMARIES = 4;
/** Longest message body sent to the summariser, in characters. */
const MAX_BODY_CHARS = 600;
const MAX_URL_CHARS = 300;
const MAX_MODEL_NAME_CHARS = 100;
/** Longest API key accepted. */
export const MAX_SUMMARISER_KEY_CHARS = 500;

/** A summariser setting as saved: trimmed, the base URL without a trailing slash. */
function normalised(setting: Extract<SummariserSetting, { kind: "model" }>): Extract<SummariserSetting, { kind: "model" }> {
  return { kind: "model", baseUrl: setting.baseUrl.trim().replace(/\/+$/, ""), model: setting.model.trim(), timeoutMs: setting.timeoutMs };
}

/**
 * What is wrong with a model summariser setting, field by field (none: it
 * can be saved): the base URL an http(s) API root, the model named in one
 * word, the timeout a whole number of milliseconds in range. The settings
 * form shows the same words beside each field.
 */
export function summariserProblems(setting: Extract<SummariserSetting, { kind: "model" }>): Partial<Record<"baseUrl" | "model" | "timeoutMs", string>> {
  const { baseUrl, model, timeoutMs } = normalised(setting);
  const problems: Partial<Record<"baseUrl" | "model" | "timeoutMs", string>> = {};
  if (!/^https?:\/\/[^/\s]+(\/\S*)?$/i.test(baseUrl) || baseUrl.length > MAX_URL_CHARS) {
    problems.baseUrl = "The summariser's base URL must be an http(s) URL such as http://127.0.0.1:11434/v1.";
  }
  if (model === "" || model.length > MAX_MODEL_NAME_CHARS || /\s/.test(model)) {
    problems.model = `The summariser's model name must be one word of at most ${MAX_MODEL_NAME_CHARS} characters, such as gpt-4o-mini.`;
  }
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < MIN_SUMMARY_TIMEOUT_MS || timeoutMs > MAX_SUMMARY_TIMEOUT_MS) {
    problems.timeoutMs = `The summariser's timeout must be a whole number of milliseconds from ${MIN_SUMMARY_TIMEOUT_MS} to ${MAX_SUMMARY_TIMEOUT_MS}.`;
  }
  return problems;
}

/**
 * A summariser setting as saved (see `summariserProblems`).
 *
 * @throws MaestroError INVALID_ARGUMENT naming the first field that is wrong.
 */
export function checkSummariser(setting: SummariserSetting): SummariserSetting {
  if (setting.kind === "extractive") return { kind: "extractive" };
  const problem = Object.values(summariserProblems(setting))[0];
  if (problem !== undefined) throw new MaestroError("INVALID_ARGUMENT", problem);
  return normalised(setting);
}

/** A model key as saved: trimmed, one line, bounded. @throws MaestroError INVALID_ARGUMENT */
export function checkSummariserKey(raw: string): string {
  const key = raw.trim();
  if (key === "" || key.length > MAX_SUMMARISER_KEY_CHARS || /\s/.test(key)) {
    throw new MaestroError("INVALID_ARGUMENT", `The API key must be one word of at most ${MAX_SUMMARISER_KEY_CHARS} characters.`);
  }
  return key;
}

export const SUMMARY_INSTRUCTION =
  "You summarise a chat thread for an AI agent who has not read it. Answer with one or two plain sentences (at most 60 words): what the thread is about, what was decided, and what is still open. No lists, no markup, no preamble.";

/** The summariser's request for one thread: the instruction, then the messages oldest first (bodies already stripped of PII). */
export function summaryRequest(messages: ReadonlyArray<{ from: string; body: string; createdAt: number }>): Array<{ role: "system" | "user"; content: string }> {
  const lines = [...messages]
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((m) => {
      const body = m.body.replace(/\s+/g, " ").trim();
      return `${m.from}: ${body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS - 1)}…` : body}`;
    });
  return [
    { role: "system", content: SUMMARY_INSTRUCTION },
    { role: "user", content: lines.join("\n") },
  ];
}

/**
 * The model's answer as a summary, or null when it is not one: empty, longer
 * than `MAX_SUMMARY_CHARS`, without words, a tool call, JSON, markup or a
 * code block. What is kept is one line with the department's PII rules
 * applied (a model can repeat what it should not).
 */
export function acceptSummary(answer: string, pii?: PiiRules): string | null {
  const text = answer.replace(/\s+/g, " ").trim();
  if (text === "" || text.length > MAX_SUMMARY_CHARS) return null;
  if (!/\p{L}{2,}/u.test(text)) return null;
  if (/\[TOOL:|```|^[[{<]/i.test(text)) return null;
  return redactPii(text, pii);
}
