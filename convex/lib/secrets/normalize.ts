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
 * break (common: any line ending in a long word). The places are found from
 * the "marks" (`VIEW_MARKS`: the only characters where the view can differ
 * from the text), which the scanner's keyword pass collects in the same walk
 * (keywords.ts); and the scanner keeps only the places whose view holds a
 * rule keyword (`gate`), since no rule can match anywhere else. So the
 * second scan costs little, and usually nothing.
 *
 * Plain TypeScript over the language's own built-ins (typed arrays), so it
 * runs in Convex's default runtime.
 */
import { byOffsets, codeAt, type SecretFinding, type SecretScanner } from "./scanner";

/** Zero-width space, non-joiner and joiner, word joiner, BOM, soft hyphen: invisible when rendered. */
export function isInvisible(code: number): boolean {
  return (code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff || code === 0x00ad;
}

/** The characters where the view may differ from the text: invisible ones, `%`, `\`, `\r`, `\n`. */
export const VIEW_MARKS: readonly number[] = [0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad, 37, 92, 13, 10];

/** Characters a token (key, password, base64 run, JWT) is made of: what a wrapped line is joined across. */
const TOKEN_CHARS = new Uint8Array(128);
for (const char of "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-+/=.") TOKEN_CHARS[char.charCodeAt(0)] = 1;

function isTokenChar(code: number): boolean {
  return code < 128 && TOKEN_CHARS[code] === 1;
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
  const code = codeAt(text, at);
  if (code === 10) return at + 1;
  if (code === 13 && codeAt(text, at + 1) === 10) return at + 2;
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
 * Start of the token ending at `tokenEnd` (looked back at most
 * `WRAPPED_TOKEN_REACH`) when it may be part of a wrapped key, else -1: at
 * least `MIN_WRAPPED_RUN` characters holding a digit or a capital right after
 * another letter (AKIA…, aB3…). Paths, host names and words ending a line
 * ("bitbucket.org/acme/infra.git", "Configuration") do not, so their line
 * breaks stay out of the view.
 */
function wrappedTokenStart(text: string, tokenEnd: number): number {
  const limit = Math.max(0, tokenEnd - WRAPPED_TOKEN_REACH);
  // The token first, in a loop that does nothing else: it runs on most line breaks.
  let start = tokenEnd;
  while (start > limit) {
    const code = text.charCodeAt(start - 1);
    if (code >= 128 || TOKEN_CHARS[code] === 0) break;
    start--;
  }
  if (tokenEnd - start < MIN_WRAPPED_RUN) return -1;
  // Then a digit, or a capital right after a letter, looked for from the end.
  let after = -1; // the character after `i`
  for (let i = tokenEnd - 1; i >= start; i--) {
    const code = text.charCodeAt(i);
    if ((code >= 48 && code <= 57) || (after >= 65 && after <= 90 && isAsciiLetter(code))) return start;
    after = code;
  }
  return -1;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Offsets of the `VIEW_MARKS` characters in `text`, ascending (what the keyword pass also collects). */
export function viewMarks(text: string): Int32Array {
  const marks: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 13 || code === 37 || code === 92 || isInvisible(code)) marks.push(i);
  }
  return Int32Array.from(marks);
}

// Plain functions, not arrows in the loop: a function made per call costs
// an allocation (and, where the bundler keeps names, a property write) each time.
function byStart(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0];
}

function insideAny([start, end]: readonly [number, number], covered: readonly SecretFinding[]): boolean {
  for (const finding of covered) if (finding.start <= start && end <= finding.end) return true;
  return false;
}

/**
 * The ranges of `text` the view needs, from its marks (`marks[0, count)`),
 * sorted and merged, without those lying wholly inside one of `covered`
 * (secrets already found there: whatever the view finds inside one is
 * redacted with it — a wrapped PEM block is the common case, and would
 * otherwise be copied and scanned again).
 */
function rangesToView(text: string, marks: Int32Array, count: number, covered: readonly SecretFinding[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let escapesFrom = 0; // an escape's word is one range: later escapes inside it are skipped
  for (let k = 0; k < count; k++) {
    const at = marks[k];
    const code = text.charCodeAt(at);
    if (code === 37) {
      // A percent escape: it and its word (a URL, a form body).
      if (at < escapesFrom || hexValue(codeAt(text, at + 1)) < 0 || hexValue(codeAt(text, at + 2)) < 0) continue;
      const start = toWhitespace(text, at, -1, DISGUISE_REACH);
      const end = toWhitespace(text, at + 3, 1, DISGUISE_REACH);
      ranges.push([start, end]);
      escapesFrom = Math.max(at + 3, end);
      continue;
    }
    // Rare disguises: an invisible character, `\` + line break; a window each side.
    let disguise = isInvisible(code) ? 1 : 0;
    if (code === 92) disguise = Math.max(0, lineBreakEnd(text, at + 1) - at);
    if (disguise > 0) {
      const start = toWhitespace(text, Math.max(0, at - DISGUISE_REACH), -1);
      const end = toWhitespace(text, Math.min(text.length, at + disguise + DISGUISE_REACH), 1);
      ranges.push([start, end]);
      continue;
    }
    // Wrapped tokens: a line break after at least MIN_WRAPPED_RUN token characters, a token continuing the next line.
    if (code !== 10) continue;
    const tokenEnd = at > 0 && text.charCodeAt(at - 1) === 13 ? at - 1 : at;
    const next = skipIndent(text, at + 1, text.length);
    if (next >= text.length || !isTokenChar(text.charCodeAt(next))) continue;
    const start = wrappedTokenStart(text, tokenEnd);
    if (start < 0) continue;
    let end = next;
    const endLimit = Math.min(text.length, next + WRAPPED_TOKEN_REACH);
    while (end < endLimit && isTokenChar(text.charCodeAt(end))) end++;
    ranges.push([start, end]);
  }
  if (ranges.length === 0) return ranges;
  ranges.sort(byStart);
  const merged: Array<[number, number]> = [ranges[0]];
  for (let i = 1; i < ranges.length; i++) {
    const last = merged[merged.length - 1];
    if (ranges[i][0] <= last[1]) last[1] = Math.max(last[1], ranges[i][1]);
    else merged.push(ranges[i]);
  }
  if (covered.length === 0) return merged;
  const uncovered: Array<[number, number]> = [];
  for (const range of merged) if (!insideAny(range, covered)) uncovered.push(range);
  return uncovered;
}

/**
 * The view text and where each of its characters came from, as pieces: the
 * piece starting at view offset `at[p]` is either a copy (`to[p] === -1`:
 * its k-th character is `from[p] + k` of the original) or characters that
 * all stand for the original span `[from[p], to[p])` (a decoded escape, a
 * separator).
 */
export interface NormalizedText {
  /** The cleaned-up places the rules run on, separated by `SEPARATOR`. */
  text: string;
  at: readonly number[];
  from: readonly number[];
  to: readonly number[];
}

/**
 * Builds the view as pieces, without copying text: the view's string is
 * made only at the end, of the places kept (most are dropped).
 */
class ViewBuilder {
  readonly at: number[] = [];
  readonly from: number[] = [];
  readonly to: number[] = [];
  /** An edited piece's characters ("" for a copy). */
  readonly chars: string[] = [];
  length = 0;

  copy(start: number, end: number): void {
    const last = this.at.length - 1;
    const contiguous = last >= 0 && this.to[last] === -1 && this.from[last] + (this.length - this.at[last]) === start;
    if (!contiguous) this.piece(start, -1, "");
    this.length += end - start;
  }

  /** `chars`, all standing for the original span `[start, end)`. */
  edited(chars: string, start: number, end: number): void {
    this.piece(start, end, chars);
    this.length += chars.length;
  }

  private piece(start: number, end: number, chars: string): void {
    this.at.push(this.length);
    this.from.push(start);
    this.to.push(end);
    this.chars.push(chars);
  }

  /** Where piece `p`'s characters are: `source[from, to)`. */
  span(text: string, p: number): [string, number, number] {
    if (this.to[p] !== -1) return [this.chars[p], 0, this.chars[p].length];
    const end = p + 1 < this.at.length ? this.at[p + 1] : this.length;
    return [text, this.from[p], this.from[p] + (end - this.at[p])];
  }

  /** Whether `gate` finds a keyword in the pieces from `first` on. */
  holdsKeyword(text: string, first: number, gate: PlaceGate): boolean {
    let state = gate.start;
    for (let p = first; p < this.at.length && state >= 0; p++) {
      const [source, from, to] = this.span(text, p);
      state = gate.walk(state, source, from, to);
    }
    return state < 0;
  }

  /** Drops the pieces from `first` on. */
  truncate(first: number): void {
    if (first >= this.at.length) return;
    this.length = this.at[first];
    this.at.length = this.from.length = this.to.length = this.chars.length = first;
  }

  toText(text: string): string {
    const parts: string[] = [];
    for (let p = 0; p < this.at.length; p++) {
      const [source, from, to] = this.span(text, p);
      parts.push(this.to[p] === -1 ? text.slice(from, to) : source);
    }
    return parts.join("");
  }
}

/** Finds keywords in a place's view: the scanner's keyword automaton (keywords.ts) and what it found in the text. */
export interface PlaceGate {
  readonly start: number;
  /** -1 once a keyword ends in `text[from, to)`, else the state to go on from. */
  walk(state: number, text: string, from: number, to: number): number;
  /** Length of the longest keyword. */
  readonly longest: number;
  /** Whether a keyword of the text lies wholly inside `[from, to)`. */
  foundWithin(from: number, to: number): boolean;
  /** The pass's state just before the text's mark `k` (`walk`'s kind of state). */
  stateBeforeMark(k: number): number;
  /** Whether a keyword ends in `text[from, to)`, walked on from `state`, that starts before `from`. */
  crosses(state: number, text: string, from: number, to: number): boolean;
}

/**
 * For a place whose only marks are line breaks (wrapped tokens, the common
 * case), whether its view may hold a keyword, decided without building it:
 * the view is the text with some line breaks (and the next line's indent)
 * cut out, so a keyword in it lies wholly in the text — found by the pass,
 * which the caller asks first (`foundWithin`) — or spans a cut, which is
 * checked here from the characters each side. True when unsure (a line too
 * short to hold the characters looked at).
 */
function wrappedPlaceMayHoldKeyword(text: string, rangeStart: number, rangeEnd: number, marks: Int32Array, from: number, to: number, gate: PlaceGate): boolean {
  const reach = gate.longest - 1;
  let lineStart = rangeStart;
  for (let k = from; k < to; k++) {
    const at = marks[k];
    if (text.charCodeAt(at) !== 10) continue;
    const crlf = at > rangeStart && text.charCodeAt(at - 1) === 13;
    const lineEnd = crlf ? at - 1 : at;
    const next = skipIndent(text, at + 1, rangeEnd);
    const nextBreak = k + 1 < to ? marks[k + 1] : rangeEnd;
    // Characters each side of the cut that could belong to a keyword across it; another cut among them: unsure.
    if ((lineStart > rangeStart && lineEnd - lineStart < reach) || nextBreak < Math.min(rangeEnd, next + reach)) return true;
    // The pass's state at the line's end has seen this line back to its start
    // (the view has no fewer of its characters before the cut, the check
    // above makes sure), so whatever a walk of the view would find across the
    // cut, a walk on from it finds too. The `\r` of a `\r\n` is the mark before.
    const state = gate.stateBeforeMark(crlf ? k - 1 : k);
    if (gate.crosses(state, text, next, Math.min(rangeEnd, next + reach))) return true;
    lineStart = next;
  }
  return false;
}

/** The token run (capped at `MIN_WRAPPED_RUN`) after copying `text[from, to)` onto a run of `before`. */
function runAfter(text: string, from: number, to: number, before: number): number {
  const limit = Math.max(from, to - MIN_WRAPPED_RUN);
  let at = to;
  while (at > limit && isTokenChar(text.charCodeAt(at - 1))) at--;
  if (at > from) return to - at; // a non-token character inside the copy ends the run there
  return Math.min(MIN_WRAPPED_RUN, before + (to - from));
}

/**
 * Appends the view of `text[rangeStart, rangeEnd)` to `view`, reading the
 * marks from index `k` on; returns whether anything was undone and the mark
 * index reached.
 */
function viewOfRange(view: ViewBuilder, text: string, rangeStart: number, rangeEnd: number, marks: Int32Array, count: number, k: number): [boolean, number] {
  let changed = false;
  let run = 0; // token characters just emitted, counted up to MIN_WRAPPED_RUN
  let i = rangeStart;
  while (i < rangeEnd) {
    // Between marks the view is the text itself: copied whole.
    while (k < count && marks[k] < i) k++;
    const at = k < count ? Math.min(marks[k], rangeEnd) : rangeEnd;
    if (at > i) {
      view.copy(i, at);
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
    if (width === 1) view.copy(i, i + 1);
    else view.edited(String.fromCharCode(code), i, i + width);
    run = isTokenChar(code) ? Math.min(MIN_WRAPPED_RUN, run + 1) : 0;
    i += width;
  }
  return [changed, k];
}

/**
 * The view of `text` the rules also run on, or null when nothing in it needs
 * undoing. In each place: invisible characters removed; `%xx` (and
 * double-encoded `%25xx`) escapes of printable ASCII decoded; `\` + line
 * break and the next line's indentation removed; a line break right after a
 * token of at least `MIN_WRAPPED_RUN` characters removed when a token
 * continues the next line. Places wholly inside a span of `covered` (secrets
 * the plain scan found) are left out, and so are places whose view holds
 * no keyword `gate` knows (no rule can match there).
 *
 * `marks[0, count)` must be the offsets of every `VIEW_MARKS` character of
 * `text`, ascending.
 */
export function normalizedView(
  text: string,
  marks: Int32Array,
  count: number,
  covered: readonly SecretFinding[] = [],
  gate?: PlaceGate,
): NormalizedText | null {
  const ranges = rangesToView(text, marks, count, covered);
  if (ranges.length === 0) return null;
  const view = new ViewBuilder();
  let changed = false;
  let k = 0;
  for (const [rangeStart, rangeEnd] of ranges) {
    let holdsKeyword = false;
    if (gate !== undefined) {
      // A place of wrapped lines only: dropped unless a keyword may be in it, without building its view.
      while (k < count && marks[k] < rangeStart) k++;
      let end = k;
      let wrappedOnly = true;
      for (; end < count && marks[end] < rangeEnd; end++) {
        const code = text.charCodeAt(marks[end]);
        if (code !== 10 && code !== 13) wrappedOnly = false;
      }
      if (wrappedOnly) {
        // A keyword found inside the place is in its view too (which only
        // lacks line breaks and indentation), so the view need not be searched.
        holdsKeyword = gate.foundWithin(rangeStart, rangeEnd);
        if (!holdsKeyword && !wrappedPlaceMayHoldKeyword(text, rangeStart, rangeEnd, marks, k, end, gate)) {
          // Such a place always joins a line (it holds the break it was made for), so the view is not null for it.
          changed = true;
          k = end;
          continue;
        }
      }
    }
    const first = view.at.length;
    if (view.length > 0) view.edited(SEPARATOR, rangeStart, rangeStart);
    const [rangeChanged, nextMark] = viewOfRange(view, text, rangeStart, rangeEnd, marks, count, k);
    k = nextMark;
    // Whether there is a view at all depends on every place, kept or not, as if none were dropped.
    changed ||= rangeChanged;
    if (gate !== undefined && !holdsKeyword && !view.holdsKeyword(text, first, gate)) view.truncate(first);
  }
  if (!changed || view.length === 0) return null;
  return { text: view.toText(text), at: view.at, from: view.from, to: view.to };
}

/**
 * The whole view of `text` (every place, none dropped for want of a
 * keyword): what `withNormalization` scans.
 */
export function normalizeForScan(text: string, covered?: readonly SecretFinding[]): NormalizedText | null {
  const marks = viewMarks(text);
  return normalizedView(text, marks, marks.length, covered);
}

/** The index of the piece holding view offset `offset`. */
function pieceAt(normalized: NormalizedText, offset: number): number {
  let low = 0;
  let high = normalized.at.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (normalized.at[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The original span of `[start, end)` in `normalized` (`end > start`). */
export function originalSpan(normalized: NormalizedText, start: number, end: number): [number, number] {
  const first = pieceAt(normalized, start);
  const last = pieceAt(normalized, end - 1);
  const from = normalized.to[first] === -1 ? normalized.from[first] + (start - normalized.at[first]) : normalized.from[first];
  const to = normalized.to[last] === -1 ? normalized.from[last] + (end - normalized.at[last]) : normalized.to[last];
  return [from, to];
}

/** `findings` in `normalized`'s text, moved to the original text and added to `into`. */
export function addViewFindings(into: SecretFinding[], normalized: NormalizedText, findings: readonly SecretFinding[]): void {
  for (const finding of findings) {
    if (finding.end <= finding.start) continue;
    const [start, end] = originalSpan(normalized, finding.start, finding.end);
    if (end > start) into.push({ start, end, rule: finding.rule });
  }
}

/**
 * `inner`, also run on the whole normalized view of each text; what it finds
 * there is reported at the original offsets. Both scans share one deadline.
 * (The rule scanner does this itself, faster: see `createRuleScanner`.)
 */
export function withNormalization(inner: SecretScanner): SecretScanner {
  return {
    name: inner.name,
    scan(text: string, deadline?: number): SecretFinding[] {
      const findings = inner.scan(text, deadline);
      const normalized = normalizeForScan(text, findings);
      if (normalized === null) return findings;
      addViewFindings(findings, normalized, inner.scan(normalized.text, deadline));
      findings.sort(byOffsets);
      return findings;
    },
  };
}
