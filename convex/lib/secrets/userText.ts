/**
 * Size enforcement and secret redaction for text users and agents write
 * (chat posts, task titles and descriptions, thread messages), in the chat
 * spec's order: cut to the limit and mark the cut, scan the cut text, replace
 * each secret with "[redacted]" and append the note once.
 *
 * The cut comes first so a scan's cost is bounded by the limit, never by
 * what was sent: a huge body is refused outright, and a long one is scanned
 * only to the cut plus a short window past it (so a secret crossing the cut
 * is still recognised, and redacted up to the cut). A scan therefore never
 * fails open because the input was large; only a genuine scanner error or
 * timeout does, as the spec asks (original — cut — text kept, error logged).
 */
import { ruleScanner } from "./rules";
import { monotonicNow, REDACTED, REDACTION_NOTE, redactionSpans, ScannerTimeout, type SecretScanner } from "./scanner";

/** Appended to a text cut at its limit (chat spec §4, §7). */
export const TRUNCATION_MARK = " … [truncated]";

/** A text longer than this many times its limit is refused instead of cut. */
export const REJECT_OVER_LIMIT_FACTOR = 4;
/** No text longer than this (UTF-16 code units, 256 Ki) is accepted, whatever its limit. */
export const HARD_CAP_CHARS = 262_144;
/**
 * How far past the cut the scan reads, so a secret crossing the cut is still
 * recognised. Covers every token format in full and enough of a PEM block or
 * a JWT (both recognised from a prefix) to match.
 */
export const CUT_SCAN_WINDOW = 4096;

/** Length above which a text with limit `maxChars` is refused. */
export function rejectionThreshold(maxChars: number): number {
  return Math.min(HARD_CAP_CHARS, REJECT_OVER_LIMIT_FACTOR * maxChars);
}

/**
 * Why `text` is too long to accept with limit `maxChars` (a message for the
 * caller to throw as its own user-facing error), or null when it may be cut
 * and stored. Cheap: call it first, before anything else reads the text.
 */
export function textTooLongMessage(text: string, maxChars: number, what = "Text"): string | null {
  const threshold = rejectionThreshold(maxChars);
  if (text.length <= threshold) return null;
  return `${what} is too long: ${text.length} characters; the limit is ${maxChars} (longer text is cut), and nothing over ${threshold} is accepted.`;
}

/** Thrown by `scanUserText` for a text `textTooLongMessage` refuses; nothing is scanned. */
export class TextTooLongError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TextTooLongError";
  }
}

export interface UserTextOptions {
  /** The limit: a longer text is cut to this many characters, the mark included. */
  maxChars: number;
  /** Whether to scan for secrets (`chat.scanner.enabled`). */
  enabled: boolean;
  /** Time the scan may take (`chat.scanner.timeoutMs`); past it the text is kept as is. */
  timeoutMs: number;
  /**
   * Cut a text of any length instead of refusing one over
   * `rejectionThreshold` (the chat spec's `#maestro` posts: "Enforce via
   * truncate"). What is scanned stays bounded by the cut either way.
   */
  cutAnyLength?: boolean;
  /** Names the text in logs and errors ("chat.post", "task title"). */
  source?: string;
  /** Defaults to Maestro's rule scanner. */
  scanner?: SecretScanner;
  /** The scanner's clock (default `monotonicNow`). */
  now?: () => number;
  /** Where `scannerError=true` is reported (default `console.warn`, when there is a console). */
  log?: (line: string) => void;
}

export interface UserTextResult {
  /** What to store: cut and marked if needed, secrets replaced, note appended once if any were. */
  text: string;
  truncated: boolean;
  redacted: boolean;
  /** The scanner failed or timed out: `text` is the (cut) text unscanned — fail-open, logged. */
  scannerError: boolean;
  /** The scanner's error, when `scannerError`. */
  error?: string;
}

/** Where `text` is cut for `maxChars`: room left for the mark, never inside a surrogate pair. */
function keptLength(text: string, maxChars: number): number {
  let kept = Math.max(0, maxChars - TRUNCATION_MARK.length);
  const last = text.charCodeAt(kept - 1);
  if (kept > 0 && last >= 0xd800 && last <= 0xdbff) kept--;
  return kept;
}

function defaultLog(line: string): void {
  const console = (globalThis as { console?: { warn?: (line: string) => void } }).console;
  console?.warn?.(line);
}

/**
 * `text` cut to `maxChars` (marked `TRUNCATION_MARK`) and, when `enabled`,
 * with every secret replaced by `REDACTED` and `REDACTION_NOTE` appended
 * once. Throws `TextTooLongError` for a text over `rejectionThreshold`
 * unless `cutAnyLength` (callers should check `textTooLongMessage` first
 * and throw their own user-facing error). Scanner errors and timeouts fail open: the cut text
 * unscanned, `scannerError: true`, and a `scannerError=true` log line.
 */
export function scanUserText(text: string, options: UserTextOptions): UserTextResult {
  const source = options.source ?? "Text";
  const tooLong = options.cutAnyLength === true ? null : textTooLongMessage(text, options.maxChars, source);
  if (tooLong !== null) throw new TextTooLongError(tooLong);
  const truncated = text.length > options.maxChars;
  const kept = truncated ? keptLength(text, options.maxChars) : text.length;
  const mark = truncated ? TRUNCATION_MARK : "";
  const cut = text.slice(0, kept) + mark;
  if (!options.enabled) return { text: cut, truncated, redacted: false, scannerError: false };

  const scanner = options.scanner ?? ruleScanner;
  const now = options.now ?? monotonicNow;
  // The kept part plus a bounded look past the cut, never the whole input.
  const scanned = truncated ? text.slice(0, Math.min(text.length, kept + CUT_SCAN_WINDOW)) : text;
  try {
    const deadline = now() + options.timeoutMs;
    const findings = scanner.scan(scanned, deadline);
    // A scan that overran without noticing still counts as a timeout.
    if (now() > deadline) throw new ScannerTimeout(`secret scanner "${scanner.name}" exceeded ${options.timeoutMs} ms`);
    let out = "";
    let from = 0;
    for (const [start, end] of redactionSpans(scanned, findings, scanner)) {
      if (start >= kept) break; // past the cut: not stored
      out += scanned.slice(from, start) + REDACTED;
      from = Math.min(end, kept);
    }
    if (from === 0 && out === "") return { text: cut, truncated, redacted: false, scannerError: false };
    out += scanned.slice(from, kept) + mark;
    // A re-post of an already redacted text keeps its one note.
    if (!out.endsWith(REDACTION_NOTE)) out += REDACTION_NOTE;
    return { text: out, truncated, redacted: true, scannerError: false };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    (options.log ?? defaultLog)(`${source} scannerError=true: ${message}`);
    return { text: cut, truncated, redacted: false, scannerError: true, error: message };
  }
}
