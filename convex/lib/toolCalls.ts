/**
 * The brain's tool protocol: `[TOOL: name ARG: {json}]` in the model's own
 * reply. Only the reply is parsed, never the thread or chat text injected
 * into the prompt, and not even the reply's code (fenced or inline) or quoted lines, so
 * text an agent quotes can never become a call.
 *
 * One repair pass fixes the mistakes models commonly make (trailing commas,
 * single quotes, unquoted keys, a JSON string instead of an object); what is
 * still wrong comes back as an error naming the problem.
 */

import { argumentLimitProblem, MAX_TOOL_ARG_CHARS, MAX_TOOL_ARG_DEPTH, nestsDeeperThan } from "./argumentLimits";
import { LIMITS } from "./limits";
import { TRUNCATION_MARK } from "./secrets/userText";

export interface ParsedToolCall {
  name: string;
  /** Present when the arguments parsed to an object. */
  args?: Record<string, unknown>;
  /** Why the arguments could not be used, for the observation sent back. */
  error?: string;
  /** Whether the repair pass was needed. */
  repaired: boolean;
  /** The call's text as the model wrote it (a native call: its arguments as sent). */
  raw: string;
  /** A native call's id (`tool_calls[].id`), which its result is paired with; absent for `[TOOL: …]` calls. */
  id?: string;
}

/** Longest argument text accepted for one call (lib/argumentLimits). */
export { MAX_TOOL_ARG_CHARS };
/** Most calls honoured from one reply; the rest are reported, not run. */
export const MAX_TOOL_CALLS_PER_REPLY = 8;

const OPEN = "[TOOL:";
const NAME = /^\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})/;

/** Tool calls in `reply`, in order. */
export function parseToolCalls(reply: string): ParsedToolCall[] {
  const hidden = hiddenRanges(reply);
  const calls: ParsedToolCall[] = [];
  let from = 0;
  for (;;) {
    const at = reply.indexOf(OPEN, from);
    if (at === -1) break;
    from = at + OPEN.length;
    if (hidden.some(([s, e]) => at >= s && at < e)) continue;
    const parsed = parseOne(reply, at);
    if (parsed === null) continue;
    calls.push(parsed.call);
    from = parsed.end;
  }
  return calls;
}

/** The reply with its tool calls taken out: what the agent "says". */
export function stripToolCalls(reply: string): string {
  const hidden = hiddenRanges(reply);
  let out = "";
  let from = 0;
  for (;;) {
    const at = reply.indexOf(OPEN, from);
    if (at === -1) break;
    if (hidden.some(([s, e]) => at >= s && at < e)) {
      out += reply.slice(from, at + OPEN.length);
      from = at + OPEN.length;
      continue;
    }
    const parsed = parseOne(reply, at);
    if (parsed === null) {
      out += reply.slice(from, at + OPEN.length);
      from = at + OPEN.length;
      continue;
    }
    out += reply.slice(from, at);
    from = parsed.end;
  }
  return (out + reply.slice(from)).replace(/\n{3,}/g, "\n\n").trim();
}

/**
 * The agent's reply as the thread takes it: trimmed and, past the message
 * limit, cut with the chat spec's mark (` … [truncated]`), never inside a
 * surrogate pair, so a long answer is posted instead of failing the run.
 */
export function cutForThread(reply: string, maxChars: number = LIMITS.messageChars): string {
  const text = reply.trim();
  if (text.length <= maxChars) return text;
  let kept = Math.max(0, maxChars - TRUNCATION_MARK.length);
  const last = text.charCodeAt(kept - 1);
  if (kept > 0 && last >= 0xd800 && last <= 0xdbff) kept--;
  return text.slice(0, kept).trimEnd() + TRUNCATION_MARK;
}

/** Fenced code blocks, inline code spans and blockquote lines: quoted text, never calls. */
function hiddenRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const m of text.matchAll(/```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)/g)) ranges.push([m.index, m.index + m[0].length]);
  const fences = [...ranges];
  for (const m of text.matchAll(/^[ \t]*>.*$/gm)) ranges.push([m.index, m.index + m[0].length]);
  ranges.push(...inlineCodeSpans(text, fences));
  return ranges;
}

/**
 * Markdown inline code outside fences: a run of n backticks up to the next
 * run of exactly n. An unmatched run is a literal backtick, as in CommonMark.
 */
export function inlineCodeSpans(text: string, fences: ReadonlyArray<[number, number]> = []): Array<[number, number]> {
  const runs: Array<{ at: number; length: number }> = [];
  for (const m of text.matchAll(/`+/g)) {
    if (!fences.some(([s, e]) => m.index >= s && m.index < e)) runs.push({ at: m.index, length: m[0].length });
  }
  // For each run, the next run of the same length (one pass from the end, so long replies stay linear).
  const next = new Array<number>(runs.length).fill(-1);
  const seen = new Map<number, number>();
  for (let j = runs.length - 1; j >= 0; j--) {
    next[j] = seen.get(runs[j].length) ?? -1;
    seen.set(runs[j].length, j);
  }
  const spans: Array<[number, number]> = [];
  for (let i = 0; i < runs.length; i++) {
    const close = next[i];
    if (close === -1) continue;
    spans.push([runs[i].at, runs[close].at + runs[close].length]);
    i = close;
  }
  return spans;
}

function parseOne(text: string, at: number): { call: ParsedToolCall; end: number } | null {
  let i = at + OPEN.length;
  const nameMatch = NAME.exec(text.slice(i, i + 80));
  if (nameMatch === null) return null;
  const name = nameMatch[1];
  i += nameMatch[0].length;
  i = skipSpace(text, i);
  if (text[i] === "]") {
    return { call: { name, args: {}, repaired: false, raw: text.slice(at, i + 1) }, end: i + 1 };
  }
  if (!text.startsWith("ARG:", i)) return null;
  i = skipSpace(text, i + "ARG:".length);
  const valueEnd = scanValue(text, i);
  if (valueEnd === null) {
    // Unbalanced: take everything up to the next "]" on the same stretch for the error message.
    const close = text.indexOf("]", i);
    const end = close === -1 ? text.length : close + 1;
    return {
      call: { name, error: "the arguments are not complete JSON (unbalanced brackets or quotes)", repaired: false, raw: text.slice(at, end) },
      end,
    };
  }
  const argText = text.slice(i, valueEnd);
  let end = skipSpace(text, valueEnd);
  if (text[end] === "]") end += 1;
  const raw = text.slice(at, end);
  return { call: { name, ...parseCallArguments(argText), raw }, end };
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
}

/** End (exclusive) of the JSON-ish value starting at `i`, honouring strings; null if unbalanced. */
function scanValue(text: string, i: number): number | null {
  const first = text[i];
  if (first === '"' || first === "'") return scanString(text, i);
  if (first !== "{" && first !== "[") {
    // A bare word or number: up to the closing bracket of the call.
    const close = text.indexOf("]", i);
    return close === -1 ? null : close;
  }
  const stack: string[] = [];
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"' || c === "'") {
      const stringEnd = scanString(text, j);
      if (stringEnd === null) return null;
      j = stringEnd - 1;
    } else if (c === "{" || c === "[") {
      stack.push(c === "{" ? "}" : "]");
    } else if (c === "}" || c === "]") {
      if (stack.pop() !== c) return null;
      if (stack.length === 0) return j + 1;
    }
  }
  return null;
}

function scanString(text: string, i: number): number | null {
  const quote = text[i];
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === quote) return j + 1;
  }
  return null;
}

/**
 * A call's argument text as arguments: the one parser for both paths (a
 * `[TOOL: …]` call's JSON and a native call's `function.arguments`), so every
 * check on arguments covers both.
 */
export function parseCallArguments(argText: string): Pick<ParsedToolCall, "args" | "error" | "repaired"> {
  if (argText.length > MAX_TOOL_ARG_CHARS) {
    return { error: `the arguments are ${argText.length} characters; the limit is ${MAX_TOOL_ARG_CHARS}`, repaired: false };
  }
  const direct = tryParse(argText);
  if (direct.ok) return asArguments(direct.value, false);
  if (direct.overLimit) return { error: direct.error, repaired: false };
  const repaired = tryParse(repairJson(argText));
  if (repaired.ok) return asArguments(repaired.value, true);
  return { error: `the arguments are not valid JSON (${direct.error})`, repaired: false };
}

function asArguments(value: unknown, repaired: boolean): Pick<ParsedToolCall, "args" | "error" | "repaired"> {
  // A JSON string holding the object: models often double-encode.
  if (typeof value === "string") {
    const inner = tryParse(value.trim());
    if (inner.ok && isPlainObject(inner.value)) return asArguments(inner.value, true);
    if (!inner.ok && inner.overLimit) return { error: inner.error, repaired };
    const innerRepaired = tryParse(repairJson(value.trim()));
    if (innerRepaired.ok && isPlainObject(innerRepaired.value)) return asArguments(innerRepaired.value, true);
    return { error: "the arguments must be a JSON object, got a string", repaired };
  }
  if (!isPlainObject(value)) {
    return { error: `the arguments must be a JSON object, got ${Array.isArray(value) ? "an array" : typeof value}`, repaired };
  }
  const echoed = Object.entries(value).filter(([, v]) => looksLikeSchema(v)).map(([k]) => k);
  if (echoed.length > 0) {
    return { error: `the arguments repeat the schema instead of giving values (for ${echoed.join(", ")})`, repaired };
  }
  return { args: value, repaired };
}

/** `{"type": "string", "description": "..."}`: what a model sends when it echoes the schema. */
function looksLikeSchema(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  const schemaTypes = ["string", "str", "number", "integer", "int", "boolean", "bool", "array", "list", "object"];
  return (
    keys.length > 0 &&
    keys.every((k) => ["type", "description", "items", "enum", "required", "optional", "default"].includes(k)) &&
    typeof value.type === "string" &&
    schemaTypes.includes(value.type.toLowerCase())
  );
}

/** The one repair pass: single → double quotes, quoted keys, no trailing commas (never inside strings). */
export function repairJson(text: string): string {
  // Split into string literals (kept, normalised to double quotes) and code between them (repaired).
  const parts: Array<{ string: boolean; text: string }> = [];
  let code = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '"' && c !== "'") {
      code += c;
      continue;
    }
    parts.push({ string: false, text: code });
    code = "";
    const end = scanString(text, i) ?? text.length;
    const literal = text.slice(i, end);
    parts.push({
      string: true,
      text: c === '"' ? literal : `"${literal.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"`,
    });
    i = end - 1;
  }
  parts.push({ string: false, text: code });
  // A trailing comma can sit before the next part's closing bracket, so fix commas on the joined code.
  const KEY = /([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:/g;
  const joined = parts.map((p) => (p.string ? p.text : p.text.replace(KEY, '$1"$2":'))).join("");
  return removeTrailingCommas(joined);
}

/** Drops commas that directly precede `}` or `]`, outside strings. */
function removeTrailingCommas(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = scanString(text, i) ?? text.length;
      out += text.slice(i, end);
      i = end - 1;
    } else if (c === ",") {
      const next = skipSpace(text, i + 1);
      if (text[next] !== "}" && text[next] !== "]") out += c;
    } else {
      out += c;
    }
  }
  return out;
}

/** The one place argument JSON is parsed: the limits first (lib/argumentLimits), so nothing recurses into a deep value. */
function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string; overLimit?: true } {
  const problem = argumentLimitProblem(text);
  if (problem !== null) return { ok: false, error: problem, overLimit: true };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** JSON a tool gave back (already bounded in depth by the caller): no size limit, since results are cut after. */
function tryParseUnbounded(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the thread shows while an agent's reply streams in: partial text without tool-call lines. */
export function typingPreview(text: string): string {
  const shown = stripToolCalls(text);
  const open = shown.lastIndexOf("[TOOL:");
  return (open === -1 ? shown : shown.slice(0, open)).trim();
}

/**
 * `value` as JSON of at most `maxChars`, made to fit by leaving out items of
 * its list `key` from the end (never by cutting the text): what is left is
 * still valid JSON, and says how many were left out (`omitted`). When even
 * the list's first item does not fit, the list is empty.
 */
export function cutJsonList<T extends Record<string, unknown>>(value: T, key: keyof T & string, maxChars: number): string {
  const list = value[key];
  const whole = JSON.stringify(value);
  if (!Array.isArray(list) || whole.length <= maxChars) return whole;
  const render = (kept: number) =>
    JSON.stringify({ ...value, [key]: list.slice(0, kept), omitted: list.length - kept, note: `${list.length - kept} of ${list.length} ${key} left out to keep this result short` });
  // The longest prefix that fits, found by bisection (each try is one JSON.stringify).
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (render(mid).length <= maxChars) low = mid;
    else high = mid - 1;
  }
  return render(low);
}

/** Lines of `text` up to `maxChars`, whole lines only, with a last line saying how many `noun`s were left out. */
export function cutLines(text: string, maxChars: number, noun: string): string {
  if (text.length <= maxChars) return text;
  const lines = text.split("\n");
  const kept: string[] = [];
  let length = 0;
  const tail = (left: number) => `(${left} more ${noun}${left === 1 ? "" : "s"} left out to keep this result short)`;
  for (const line of lines) {
    const next = length + line.length + 1;
    if (next + tail(lines.length - kept.length - 1).length > maxChars) break;
    kept.push(line);
    length = next;
  }
  return [...kept, tail(lines.length - kept.length)].join("\n");
}

/**
 * A tool's result cut to at most `maxChars` so that it stays readable: JSON
 * stays valid JSON (its longest list loses items from the end, else its
 * longest string is shortened, saying how much was left out), other text
 * keeps whole lines and ends with a line saying how many were left out. A
 * single line longer than the limit is cut at a character count it names.
 */
export function cutObservation(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // A result is longer than any argument may be; only its depth is bounded before it is parsed and walked.
  const json = nestsDeeperThan(text, MAX_TOOL_ARG_DEPTH) ? { ok: false as const } : tryParseUnbounded(text.trim());
  if (json.ok && typeof json.value === "object" && json.value !== null) {
    const value: Record<string, unknown> = Array.isArray(json.value) ? { items: json.value } : (json.value as Record<string, unknown>);
    const cut = cutJsonValue(value, maxChars);
    if (cut !== null) return cut;
  }
  const lines = text.split("\n");
  if (lines.length > 1) {
    const cut = cutLines(text, maxChars, "line");
    // Whole lines only when at least one fits; else the first line is cut below.
    if (!cut.startsWith("(")) return cut;
  }
  const tail = (left: number) => `… (${left.toLocaleString("en-US")} more characters left out to keep this result short)`;
  let kept = Math.max(0, maxChars - tail(text.length).length);
  const last = text.charCodeAt(kept - 1);
  if (kept > 0 && last >= 0xd800 && last <= 0xdbff) kept--;
  return text.slice(0, kept) + tail(text.length - kept);
}

/** A JSON object cut to `maxChars` by its longest list, else its longest string; null when neither gets it there. */
function cutJsonValue(value: Record<string, unknown>, maxChars: number): string | null {
  const entries = Object.entries(value);
  const longest = (pick: (v: unknown) => boolean) =>
    entries.filter(([, v]) => pick(v)).sort((a, b) => JSON.stringify(b[1]).length - JSON.stringify(a[1]).length)[0]?.[0];
  const listKey = longest(Array.isArray);
  if (listKey !== undefined) {
    const cut = cutJsonList(value, listKey, maxChars);
    if (cut.length <= maxChars) return cut;
  }
  const stringKey = longest((v) => typeof v === "string");
  if (stringKey === undefined) return null;
  const whole = value[stringKey] as string;
  const render = (kept: number) =>
    JSON.stringify({ ...value, [stringKey]: whole.slice(0, kept), omittedChars: whole.length - kept, note: `${(whole.length - kept).toLocaleString("en-US")} of ${whole.length.toLocaleString("en-US")} characters of ${stringKey} left out to keep this result short` });
  let low = 0;
  let high = whole.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (render(mid).length <= maxChars) low = mid;
    else high = mid - 1;
  }
  const cut = render(low);
  return cut.length <= maxChars ? cut : null;
}

/**
 * A reply's native tool calls as the dispatcher takes them, in order: each
 * named by the tool its wire name stands for (`nameOf`), its arguments read
 * by the same parser as `[TOOL: …]` calls (empty arguments are `{}`), and
 * its id kept so its result goes back paired with it.
 */
export function nativeToolCalls(calls: ReadonlyArray<{ id: string; name: string; arguments: string }>, nameOf: (wireName: string) => string): ParsedToolCall[] {
  return calls.map((call) => ({
    name: nameOf(call.name),
    ...parseCallArguments(call.arguments.trim() === "" ? "{}" : call.arguments),
    raw: call.arguments,
    id: call.id,
  }));
}
