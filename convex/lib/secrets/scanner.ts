/**
 * The chat's secret scanner: a small interface any implementation fits
 * (`rules.ts` holds the one Maestro ships) and the redaction built on it.
 *
 * Plain TypeScript with no Node built-ins and no globals beyond the language
 * itself, so it runs inside a Convex mutation in the default runtime (and in
 * a bare JavaScript context — see tests/backend/secrets-runtime.test.ts).
 */

/** One secret found in a text: `text.slice(start, end)` is the secret. */
export interface SecretFinding {
  start: number;
  end: number;
  /** Id of the rule that found it. */
  rule: string;
}

export interface SecretScanner {
  name: string;
  /**
   * Every secret in `text`. With a `deadline` (a value of the scanner's clock,
   * `monotonicNow()` unless the scanner was built with another) the scanner
   * checks the clock between rules and throws `ScannerTimeout` once past it.
   */
  scan(text: string, deadline?: number): SecretFinding[];
  /**
   * Optional, for redaction: every offset where `text.slice(start, end)` (a
   * finding of the last `scan`, of this same `text`) occurs, ascending; null
   * to leave it to a search of the whole text.
   */
  occurrences?(text: string, start: number, end: number): readonly number[] | null;
}

/** Thrown by a scanner whose deadline has passed. */
export class ScannerTimeout extends Error {
  constructor(message = "secret scanner timed out") {
    super(message);
    this.name = "ScannerTimeout";
  }
}

export const REDACTED = "[redacted]";
export const REDACTION_NOTE = " (Note: content redacted by scanner)";

/**
 * Milliseconds from the best clock the runtime has: `performance.now()` where
 * it exists, `Date.now()` otherwise. Convex's default runtime has no
 * `performance` and freezes `Date.now()` for the length of a query or
 * mutation, so there the clock stands still and a deadline never passes; the
 * rules' bounded, linear work is what keeps a scan short there.
 */
export const monotonicNow: () => number = (() => {
  // Looked up once: the scanner reads the clock between rules, several times a message.
  const perf = (globalThis as { performance?: { now?: () => number } }).performance;
  return perf !== undefined && typeof perf.now === "function" ? () => perf.now!() : () => Date.now();
})();

/**
 * `text` copied into one flat string. What `slice` returns is, in V8, a view
 * into the string it was cut from, and each character read of a view — the
 * scanner's loops and regular expressions make thousands a message — costs
 * more: the benchmarks' messages, cut from a longer buffer, scanned 1.4–1.8×
 * slower than the same text flat. A copy of a 4 KB message costs about a
 * microsecond (elsewhere it is just a copy).
 */
export function flatCopy(text: string): string {
  if (text.length < 64) return text;
  const half = text.length >> 1;
  return [text.slice(0, half), text.slice(half)].join("");
}

/**
 * `text.charCodeAt(at)`, or -1 outside the text. For reads that may fall off
 * either end: an out-of-range `charCodeAt` (NaN) throws the optimizing
 * compiler's code away, and every recompilation of the scanner's big
 * functions is time the first messages wait for.
 */
export function codeAt(text: string, at: number): number {
  return at >= 0 && at < text.length ? text.charCodeAt(at) : -1;
}

/**
 * Secrets shorter than this are only replaced elsewhere in the text where they
 * stand as a whole token, so a short URL password does not blank out
 * matching letters inside ordinary words.
 */
const WHOLE_TOKEN_BELOW = 8;

function isWordChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 95 // _
  );
}

/** Whether the occurrence of a secret of `length` at `at` is redacted: not when the secret is short and `at` is inside a word. */
function redactsOccurrence(text: string, at: number, length: number): boolean {
  if (length >= WHOLE_TOKEN_BELOW) return true;
  const end = at + length;
  const before = at > 0 ? text.charCodeAt(at - 1) : -1;
  const after = end < text.length ? text.charCodeAt(end) : -1;
  return !((before !== -1 && isWordChar(before)) || (after !== -1 && isWordChar(after)));
}

/** Orders findings by start, then end. */
export function byOffsets(a: SecretFinding, b: SecretFinding): number {
  return a.start - b.start || a.end - b.end;
}

function bySpan(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

/** Above the length of any text stored (`HARD_CAP_CHARS`): in a shorter text `start * OCCURRENCE_KEY + length` names one span. */
const OCCURRENCE_KEY = 2 ** 20;

/** Spans in the order they come, noting whether that order is already sorted (a scanner's findings usually are). */
class SpanList {
  readonly spans: Array<[number, number]> = [];
  sorted = true;

  add(start: number, end: number): void {
    const last = this.spans.length > 0 ? this.spans[this.spans.length - 1] : undefined;
    if (last !== undefined && (start < last[0] || (start === last[0] && end < last[1]))) this.sorted = false;
    this.spans.push([start, end]);
  }
}

/**
 * The spans to blank out for `findings`: each finding, every other occurrence
 * of the same secret text, overlapping or touching spans merged; sorted.
 * `scanner` (the one that found them in `text`) may list the occurrences
 * itself, faster than a search of the whole text per secret.
 *
 * Dense text has a secret every few lines, so this runs per finding without
 * copying any: the scanner's list usually holds just the finding itself, and
 * only a secret it cannot list is cut out of the text to search for.
 */
export function redactionSpans(text: string, findings: readonly SecretFinding[], scanner?: SecretScanner): Array<[number, number]> {
  const list = new SpanList();
  // The occurrences of secrets found more than once, as `start * 2^20 +
  // length`: a finding at one of them repeats a secret already handled
  // (crafted text repeats one hundreds of times, and each listing reads every
  // keyword hit). Most secrets occur once, and then nothing is kept.
  const listed = new Set<number>();
  const keyed = text.length < OCCURRENCE_KEY;
  let searched: Set<string> | undefined; // secrets already searched for in the whole text
  for (const finding of findings) {
    const start = Math.max(0, Math.min(text.length, Math.floor(finding.start)));
    const end = Math.max(start, Math.min(text.length, Math.floor(finding.end)));
    if (end <= start) continue;
    list.add(start, end);
    const length = end - start;
    if (keyed && listed.size > 0 && listed.has(start * OCCURRENCE_KEY + length)) continue;
    let occurrences = scanner?.occurrences?.(text, start, end) ?? null;
    if (occurrences === null) {
      const secret = text.slice(start, end);
      if (searched?.has(secret) === true) continue;
      (searched ??= new Set()).add(secret);
      const found: number[] = [];
      for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) found.push(at);
      occurrences = found;
    }
    if (occurrences.length < 2) continue; // just this finding
    for (const at of occurrences) {
      if (keyed) listed.add(at * OCCURRENCE_KEY + length);
      if (at !== start && redactsOccurrence(text, at, length)) list.add(at, at + length);
    }
  }
  const spans = list.spans;
  if (!list.sorted) spans.sort(bySpan);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of spans) {
    const last = merged.length > 0 ? merged[merged.length - 1] : undefined;
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

export interface RedactionResult {
  /** The text to store: redacted (with the note) or, on a scanner error, the original. */
  text: string;
  redacted: boolean;
  /** The scanner failed or ran out of time; `text` is the original (fail-open). Log `scannerError=true`. */
  scannerError: boolean;
  error?: string;
}

export interface RedactionOptions {
  /** Time the scan may take; past it the text is stored as it is. */
  timeoutMs: number;
  /** The clock the scanner uses (default `monotonicNow`); deadlines are values of it. */
  now?: () => number;
}

/**
 * `text` with every secret `scanner` finds replaced by `REDACTED` (every
 * occurrence, overlapping finds merged) and `REDACTION_NOTE` appended once.
 * Scanner errors and timeouts fail open: the original text comes back with
 * `scannerError: true` and the error's message.
 */
export function redactSecrets(text: string, scanner: SecretScanner, options: RedactionOptions): RedactionResult {
  const now = options.now ?? monotonicNow;
  try {
    const deadline = now() + options.timeoutMs;
    const findings = scanner.scan(text, deadline);
    // A scan that overran without noticing (one long rule, or a scanner that
    // ignores deadlines) still counts as a timeout.
    if (now() > deadline) throw new ScannerTimeout(`secret scanner "${scanner.name}" exceeded ${options.timeoutMs} ms`);
    const spans = redactionSpans(text, findings, scanner);
    if (spans.length === 0) return { text, redacted: false, scannerError: false };
    let out = "";
    let from = 0;
    for (const [start, end] of spans) {
      out += text.slice(from, start) + REDACTED;
      from = end;
    }
    out += text.slice(from);
    // A re-post of an already redacted message keeps its one note.
    if (!out.endsWith(REDACTION_NOTE)) out += REDACTION_NOTE;
    return { text: out, redacted: true, scannerError: false };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { text, redacted: false, scannerError: true, error: message };
  }
}
