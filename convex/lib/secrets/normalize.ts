/**
 * Undoes the cheap disguises that hide a secret from the rules — invisible
 * characters inside it, percent-encoding, a line break in the middle — and
 * maps what the rules find in the cleaned-up view back to the original text,
 * so the redaction covers every original character of the secret (the
 * invisible ones and the `%xx` escapes included).
 *
 * The view holds only the places that need it, not the whole text: around
 * an invisible character or a `\` line continuation, a window of
 * `DISGUISE_REACH` characters each side (these are rare in chat); around a
 * `%xx` escape, its word; at a wrapped line, just the token that crosses the
 * break (common: any line ending in a long word). So the second scan costs
 * little.
 *
 * Plain TypeScript over the language's own built-ins (typed arrays), so it
 * runs in Convex's default runtime.
 */
import type { SecretFinding, SecretScanner } from "./scanner";

/** Zero-width space, non-joiner and joiner, word joiner, BOM, soft hyphen: invisible when rendered. */
export function isInvisible(code: number): boolean {
  return (code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff || code === 0x00ad;
}

/** Characters a token (key, password, base64 run, JWT) is made of: what a wrapped line is joined across. */
function isTokenChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 95 || // _
    code === 45 || // -
    code === 43 || // +
    code === 47 || // /
    code === 61 || // =
    code === 46 // .
  );
}

/**
 * A plain line break is joined only after a token at least this long: a
 * wrapped key, not the last word of an ordinary line.
 */
export const MIN_WRAPPED_RUN = 8;
/** Indentation skipped at the start of a continuation line. */
const MAX_CONTINUATION_INDENT = 16;
/** How far a wrapped token is followed each side of its line break (longer than any token format). */
const WRAPPED_TOKEN_REACH = 320;
/** Characters each side of an invisible character or `\` continuation that go into the view; an escape's word is followed as far. */
export const DISGUISE_REACH = 320;
/** How much further a window edge may move to land on whitespace instead of inside a word. */
const EDGE_SLACK = 64;
/** Between two places in the view: stops every rule (no rule's characters include NUL). */
const SEPARATOR = "\n\u0000\n";

/** Rare places that may hide a secret: invisible characters and `\` + line break. */
const DISGUISE = /[\u200b-\u200d\u2060\ufeff\u00ad]|\\\r?\n/g;
/** A percent escape: it and its word (a URL, a form body) go into the view. */
const ESCAPE = /%[0-9A-Fa-f]{2}/g;

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/** The printable ASCII character the two hex digits at `at` encode, or -1. */
function hexByte(text: string, at: number): number {
  if (at + 1 >= text.length) return -1;
  const high = hexValue(text.charCodeAt(at));
  const low = hexValue(text.charCodeAt(at + 1));
  if (high < 0 || low < 0) return -1;
  const byte = high * 16 + low;
  return byte >= 0x20 && byte <= 0x7e ? byte : -1;
}

/** Where the line break at `at` (`\n` or `\r\n`) ends, or -1 when there is none. */
function lineBreakEnd(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code === 10) return at + 1;
  if (code === 13 && text.charCodeAt(at + 1) === 10) return at + 2;
  return -1;
}

/** `at` moved past up to `MAX_CONTINUATION_INDENT` spaces and tabs, never past `end`. */
function skipIndent(text: string, at: number, end: number): number {
  const limit = Math.min(end, at + MAX_CONTINUATION_INDENT);
  while (at < limit && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9)) at++;
  return at;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** `at` moved back (step -1) or on (step 1) to whitespace, at most `limit` characters. */
function toWhitespace(text: string, at: number, step: -1 | 1, limit = EDGE_SLACK): number {
  for (let moved = 0; moved < limit; moved++) {
    if (at <= 0 || at >= text.length) return Math.max(0, Math.min(text.length, at));
    if (isSpace(text.charCodeAt(step < 0 ? at - 1 : at))) return at;
    at += step;
  }
  return at;
}

/**
 * Whether `text[start, end)` could be part of a key: it holds a digit or a
 * capital right after another letter (AKIA…, aB3…). Paths, host names and
 * words ending a line ("bitbucket.org/acme/infra.git", "Configuration") do
 * not, so their line breaks stay out of the view.
 */
function looksRandom(text: string, start: number, end: number): boolean {
  let afterLetter = false;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) return true;
    const upper = code >= 65 && code <= 90;
    if (upper && afterLetter) return true;
    afterLetter = upper || (code >= 97 && code <= 122);
  }
  return false;
}

export interface NormalizedText {
  /** The cleaned-up places the rules run on, separated by `SEPARATOR`. */
  text: string;
  /** For each character of `text`, the span `[starts[i], ends[i])` of the original it came from. */
  starts: Int32Array;
  ends: Int32Array;
}

/**
 * The ranges of `text` the view needs, sorted and merged, without those lying
 * wholly inside one of `covered` (secrets already found there: whatever the
 * view finds inside one is redacted with it — a wrapped PEM block is the
 * common case, and would otherwise be copied and scanned again).
 */
function rangesToView(text: string, covered: readonly SecretFinding[] = []): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  DISGUISE.lastIndex = 0;
  for (let match = DISGUISE.exec(text); match !== null; match = DISGUISE.exec(text)) {
    const start = toWhitespace(text, Math.max(0, match.index - DISGUISE_REACH), -1);
    const end = toWhitespace(text, Math.min(text.length, match.index + match[0].length + DISGUISE_REACH), 1);
    ranges.push([start, end]);
  }
  ESCAPE.lastIndex = 0;
  for (let match = ESCAPE.exec(text); match !== null; match = ESCAPE.exec(text)) {
    const start = toWhitespace(text, match.index, -1, DISGUISE_REACH);
    const end = toWhitespace(text, match.index + 3, 1, DISGUISE_REACH);
    ranges.push([start, end]);
    ESCAPE.lastIndex = Math.max(ESCAPE.lastIndex, end);
  }
  // Wrapped tokens: a line break after at least MIN_WRAPPED_RUN token characters, a token continuing the next line.
  for (let breakAt = text.indexOf("\n"); breakAt !== -1; breakAt = text.indexOf("\n", breakAt + 1)) {
    const tokenEnd = breakAt > 0 && text.charCodeAt(breakAt - 1) === 13 ? breakAt - 1 : breakAt;
    const next = skipIndent(text, breakAt + 1, text.length);
    if (next >= text.length || !isTokenChar(text.charCodeAt(next))) continue;
    let start = tokenEnd;
    const startLimit = Math.max(0, tokenEnd - WRAPPED_TOKEN_REACH);
    while (start > startLimit && isTokenChar(text.charCodeAt(start - 1))) start--;
    if (tokenEnd - start < MIN_WRAPPED_RUN || !looksRandom(text, start, tokenEnd)) continue;
    let end = next;
    const endLimit = Math.min(text.length, next + WRAPPED_TOKEN_REACH);
    while (end < endLimit && isTokenChar(text.charCodeAt(end))) end++;
    ranges.push([start, end]);
  }
  if (ranges.length === 0) return ranges;
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [ranges[0]];
  for (let i = 1; i < ranges.length; i++) {
    const last = merged[merged.length - 1];
    if (ranges[i][0] <= last[1]) last[1] = Math.max(last[1], ranges[i][1]);
    else merged.push(ranges[i]);
  }
  if (covered.length === 0) return merged;
  return merged.filter(([start, end]) => !covered.some((finding) => finding.start <= start && end <= finding.end));
}

/**
 * The view of `text` the rules also run on, or null when nothing in it needs
 * undoing. In each place: invisible characters removed; `%xx` (and
 * double-encoded `%25xx`) escapes of printable ASCII decoded; `\` + line
 * break and the next line's indentation removed; a line break right after a
 * token of at least `MIN_WRAPPED_RUN` characters removed when a token
 * continues the next line. Places wholly inside a span of `covered` (secrets
 * the plain scan found) are left out.
 */
export function normalizeForScan(text: string, covered?: readonly SecretFinding[]): NormalizedText | null {
  const ranges = rangesToView(text, covered);
  if (ranges.length === 0) return null;
  let capacity = 0;
  for (const [start, end] of ranges) capacity += end - start + SEPARATOR.length;
  const starts = new Int32Array(capacity);
  const ends = new Int32Array(capacity);
  const parts: string[] = [];
  let length = 0;
  let changed = false;
  /** Copies `text[from, to)` as it is: one slice, and the identity map for its characters. */
  const copy = (from: number, to: number) => {
    parts.push(text.slice(from, to));
    for (let at = from; at < to; at++, length++) {
      starts[length] = at;
      ends[length] = at + 1;
    }
  };
  for (const [rangeStart, rangeEnd] of ranges) {
    if (length > 0) {
      parts.push(SEPARATOR);
      for (let k = 0; k < SEPARATOR.length; k++, length++) starts[length] = ends[length] = rangeStart;
    }
    let run = 0; // token characters just emitted, counted up to MIN_WRAPPED_RUN
    let i = rangeStart;
    while (i < rangeEnd) {
      // Between the characters that may need undoing the view is the text itself: copied whole.
      EDIT_AT.lastIndex = i;
      const found = EDIT_AT.exec(text);
      const at = found === null ? rangeEnd : Math.min(found.index, rangeEnd);
      if (at > i) {
        copy(i, at);
        run = runAfter(text, i, at, run);
        i = at;
        if (i >= rangeEnd) break;
      }
      let code = text.charCodeAt(i);
      let width = 1;
      if (isInvisible(code)) {
        changed = true;
        i++;
        continue;
      }
      if (code === 37) {
        let byte = hexByte(text, i + 1);
        let escapeWidth = 3;
        if (byte === 37 && hexByte(text, i + 3) >= 0) {
          // %25xx: the "%" itself encoded, then xx — decode both layers.
          byte = hexByte(text, i + 3);
          escapeWidth = 5;
        }
        if (byte >= 0 && i + escapeWidth <= rangeEnd) {
          changed = true;
          code = byte;
          width = escapeWidth;
        }
      } else if (code === 92) {
        const after = lineBreakEnd(text, i + 1);
        if (after >= 0 && after <= rangeEnd) {
          // Shell/Python line continuation: the line goes on after the break.
          changed = true;
          i = skipIndent(text, after, rangeEnd);
          continue;
        }
      } else if (run >= MIN_WRAPPED_RUN && (code === 10 || code === 13)) {
        const breakEnd = lineBreakEnd(text, i);
        const next = breakEnd < 0 ? -1 : skipIndent(text, breakEnd, rangeEnd);
        if (next >= 0 && next < rangeEnd && isTokenChar(text.charCodeAt(next))) {
          changed = true;
          i = next;
          continue;
        }
      }
      parts.push(String.fromCharCode(code));
      starts[length] = i;
      ends[length] = i + width;
      length++;
      run = isTokenChar(code) ? Math.min(MIN_WRAPPED_RUN, run + 1) : 0;
      i += width;
    }
  }
  if (!changed) return null;
  return { text: parts.join(""), starts: starts.subarray(0, length), ends: ends.subarray(0, length) };
}

/** Where the view may differ from the text: invisible characters, `%`, `\`, line breaks. */
const EDIT_AT = /[\u200b-\u200d\u2060\ufeff\u00ad%\\\r\n]/g;

/** The token run (capped at `MIN_WRAPPED_RUN`) after copying `text[from, to)` onto a run of `before`. */
function runAfter(text: string, from: number, to: number, before: number): number {
  const limit = Math.max(from, to - MIN_WRAPPED_RUN);
  let at = to;
  while (at > limit && isTokenChar(text.charCodeAt(at - 1))) at--;
  if (at > from) return to - at; // a non-token character inside the copy ends the run there
  return Math.min(MIN_WRAPPED_RUN, before + (to - from));
}

/** The original span of `[start, end)` in `normalized`. */
export function originalSpan(normalized: NormalizedText, start: number, end: number): [number, number] {
  return [normalized.starts[start], normalized.ends[end - 1]];
}

/**
 * `inner`, also run on the normalized view of each text; what it finds there
 * is reported at the original offsets. Both scans share one deadline.
 */
export function withNormalization(inner: SecretScanner): SecretScanner {
  return {
    name: inner.name,
    scan(text: string, deadline?: number): SecretFinding[] {
      const findings = inner.scan(text, deadline);
      const normalized = normalizeForScan(text, findings);
      if (normalized === null) return findings;
      for (const finding of inner.scan(normalized.text, deadline)) {
        if (finding.end <= finding.start) continue;
        const [start, end] = originalSpan(normalized, finding.start, finding.end);
        if (end > start) findings.push({ start, end, rule: finding.rule });
      }
      findings.sort((a, b) => a.start - b.start || a.end - b.end);
      return findings;
    },
  };
}
