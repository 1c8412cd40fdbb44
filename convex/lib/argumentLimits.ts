/**
 * Limits on a tool call's argument text, checked on the raw text before
 * anything parses or walks it. `JSON.parse` itself copes with deep nesting,
 * but everything after it recurses — `JSON.stringify`, Convex's value
 * conversion, zod, the secret scan of the stored record — and a few
 * thousand nested brackets end the whole run with "Maximum call stack size
 * exceeded". Refused here, the call gets a clear result of its own and the
 * reply's other calls still run.
 *
 * One function for every way arguments arrive: the text protocol's
 * `[TOOL: name ARG: {...}]` and a native tool call's `arguments` string are
 * both parsed through lib/toolCalls, which asks this first.
 */

/** Longest argument text accepted for one call (characters). */
export const MAX_TOOL_ARG_CHARS = 20_000;
/** Deepest nesting of objects and arrays accepted in one call's arguments. */
export const MAX_TOOL_ARG_DEPTH = 32;

/**
 * Why `text` (a call's arguments, as JSON or the JSON-ish text a model
 * writes) is over the limits, or null when it is within them.
 */
export function argumentLimitProblem(text: string): string | null {
  if (text.length > MAX_TOOL_ARG_CHARS) return `the arguments are ${text.length} characters; the limit is ${MAX_TOOL_ARG_CHARS}`;
  if (nestsDeeperThan(text, MAX_TOOL_ARG_DEPTH)) return `the arguments nest deeper than ${MAX_TOOL_ARG_DEPTH} levels of objects and arrays; send flatter arguments`;
  return null;
}

/**
 * Whether `text` nests objects and arrays deeper than `maxDepth`. Reads the
 * text once, left to right, with a counter and no recursion: brackets inside
 * strings (double- or single-quoted, escapes honoured) do not count.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let quote = 0; // the open string's quote character code, or 0 outside strings
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === 92) i++; // a backslash escapes the next character
      else if (c === quote) quote = 0;
      continue;
    }
    if (c === 34 || c === 39) quote = c; // " or '
    else if (c === 123 || c === 91) {
      // { or [
      depth++;
      if (depth > maxDepth) return true;
    } else if (c === 125 || c === 93) {
      // } or ]
      if (depth > 0) depth--;
    }
  }
  return false;
}
