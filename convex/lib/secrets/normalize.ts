/**
 * Undoes the cheap disguises that hide a secret from the rules — invisible
 * characters inside it, percent-encoding, a line break in the middle — and
 * maps what the rules find in the cleaned-up view back to the original text,
 * so the redaction covers every original character of the secret (the
 * invisible ones and the `%xx` escapes included).
 *
 * Plain TypeScript over the language's own built-ins (typed arrays), so it
 * runs in Convex's default runtime.
 */
import type { SecretFinding, SecretScanner } from "./scanner";

/** Zero-width space, non-joiner and joiner, word joiner, BOM, soft hyphen: invisible when rendered. */
export function isInvisible(code: number): boolean {
  return (code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff || code === 0x00ad;
}

/** Characters a token (key, password, base64 run) is made of: what a wrapped line is joined across. */
function isTokenChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 95 || // _
    code === 45 || // -
    code === 43 || // +
    code === 47 || // /
    code === 61 // =
  );
}

/**
 * A plain line break is joined only after a token at least this long: a
 * wrapped key, not the last word of an ordinary line.
 */
export const MIN_WRAPPED_RUN = 8;
/** Indentation skipped at the start of a continuation line. */
const MAX_CONTINUATION_INDENT = 16;

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

/** `at` moved past up to `MAX_CONTINUATION_INDENT` spaces and tabs. */
function skipIndent(text: string, at: number): number {
  const limit = Math.min(text.length, at + MAX_CONTINUATION_INDENT);
  while (at < limit && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9)) at++;
  return at;
}

export interface NormalizedText {
  /** The cleaned-up text the rules run on. */
  text: string;
  /** For each character of `text`, the span `[starts[i], ends[i])` of the original it came from. */
  starts: Int32Array;
  ends: Int32Array;
}

/** Whether `text` has anything `normalizeForScan` might undo; false for most messages, cheaply. */
const MAY_NEED_NORMALIZING = /[%\\\n\u200b-\u200d\u2060\ufeff\u00ad]/;

/**
 * `text` with invisible characters removed, `%xx` (and double-encoded
 * `%25xx`) escapes of printable ASCII decoded, `\` + line break (and the next
 * line's indentation) removed, and a line break right after a token of at
 * least `MIN_WRAPPED_RUN` characters removed when a token continues the next
 * line. Null when none of that applies.
 */
export function normalizeForScan(text: string): NormalizedText | null {
  if (!MAY_NEED_NORMALIZING.test(text)) return null;
  const length = text.length;
  const out: number[] = [];
  const starts = new Int32Array(length);
  const ends = new Int32Array(length);
  let changed = false;
  let run = 0; // token characters just emitted
  let i = 0;
  const emit = (code: number, start: number, end: number) => {
    starts[out.length] = start;
    ends[out.length] = end;
    out.push(code);
    run = isTokenChar(code) ? run + 1 : 0;
  };
  while (i < length) {
    const code = text.charCodeAt(i);
    if (isInvisible(code)) {
      changed = true;
      i++;
      continue;
    }
    if (code === 37) {
      let byte = hexByte(text, i + 1);
      let width = 3;
      if (byte === 37 && hexByte(text, i + 3) >= 0) {
        // %25xx: the "%" itself encoded, then xx — decode both layers.
        byte = hexByte(text, i + 3);
        width = 5;
      }
      if (byte >= 0) {
        changed = true;
        emit(byte, i, i + width);
        i += width;
        continue;
      }
    }
    if (code === 92) {
      const after = lineBreakEnd(text, i + 1);
      if (after >= 0) {
        // Shell/Python line continuation: the line goes on after the break.
        changed = true;
        i = skipIndent(text, after);
        continue;
      }
    }
    const breakEnd = lineBreakEnd(text, i);
    if (breakEnd >= 0 && run >= MIN_WRAPPED_RUN) {
      const next = skipIndent(text, breakEnd);
      if (next < length && isTokenChar(text.charCodeAt(next))) {
        changed = true;
        i = next;
        continue;
      }
    }
    emit(code, i, i + 1);
    i++;
  }
  if (!changed) return null;
  let normalized = "";
  for (let from = 0; from < out.length; from += 4096) normalized += String.fromCharCode(...out.slice(from, from + 4096));
  return { text: normalized, starts: starts.subarray(0, out.length), ends: ends.subarray(0, out.length) };
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
      const normalized = normalizeForScan(text);
      if (normalized === null) return findings;
      for (const finding of inner.scan(normalized.text, deadline)) {
        if (finding.end <= finding.start) continue;
        const [start, end] = originalSpan(normalized, finding.start, finding.end);
        findings.push({ start, end, rule: finding.rule });
      }
      findings.sort((a, b) => a.start - b.start || a.end - b.end);
      return findings;
    },
  };
}
