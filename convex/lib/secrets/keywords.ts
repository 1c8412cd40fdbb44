/**
 * The scanner's one pass over a text: every place where a rule keyword
 * occurs, in any ASCII case, and every "mark" character (the characters
 * where the normalized view may differ from the text: line breaks, `%`, `\`,
 * invisible characters), found in one left-to-right walk with an
 * Aho–Corasick automaton compiled to a dense transition table.
 *
 * Why hand-rolled: the pass touches every character of every message. A
 * table walk (two array reads per character) runs at the speed of a bare
 * `charCodeAt` loop, faster than V8's regular expression for the same
 * 70-keyword alternation (which tries the alternatives at each position),
 * and it finds the marks in the same walk instead of one more search each.
 * The npm Aho–Corasick packages build trees of objects or maps and have no
 * case folding; this is plain TypeScript over typed arrays, so it runs in
 * Convex's default runtime.
 *
 * Case: only A–Z fold to a–z. A case-insensitive JavaScript regex (without
 * the `u` flag) never matches a non-ASCII character against an ASCII one
 * (ſ is not s, K is not k), so non-ASCII characters match no keyword
 * character here either: the pass finds exactly what the rules' patterns can
 * match, at offsets of the text as written.
 */

import type { PlaceGate } from "./normalize";

/** What one pass found; the scanner reuses one per text it scans (the arrays grow as needed). */
export class KeywordHits {
  /** `starts[k]`, `ends[k]`, `keywords[k]` for k < `count`: where a keyword occurs and its index, in order of the keyword's end. */
  starts: Int32Array = new Int32Array(64);
  ends: Int32Array = new Int32Array(64);
  keywords: Int32Array = new Int32Array(64);
  count = 0;
  /** Offsets of the mark characters, ascending, for k < `markCount`. */
  marks: Int32Array = new Int32Array(64);
  /** The walk's state just before each mark (what it had seen of the text there), for `KeywordAutomaton.crosses`. */
  markStates: Int32Array = new Int32Array(64);
  markCount = 0;

  /** Whether a keyword found lies wholly inside `[from, to)`. */
  anyWithin(from: number, to: number): boolean {
    return this.firstWithin(from, to) >= 0;
  }

  /** The index of the first hit (by end) lying wholly inside `[from, to)`, or -1. */
  firstWithin(from: number, to: number): number {
    // Hits are in order of their end: skip by bisection to the first ending past `from`
    // (asked once per wrapped line, so a scan of every hit added up).
    let low = 0;
    let high = this.count;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.ends[middle] <= from) low = middle + 1;
      else high = middle;
    }
    for (let k = low; k < this.count && this.ends[k] <= to; k++) if (this.starts[k] >= from) return k;
    return -1;
  }

  /**
   * Every offset where `text.slice(start, end)` occurs in `text` (the text
   * these hits are of), ascending — found from a keyword inside it, which
   * every other occurrence holds at the same place — or null when none is
   * inside it (a secret without one, or one a disguise split).
   */
  occurrences(text: string, start: number, end: number): number[] | null {
    const inside = this.firstWithin(start, end);
    if (inside < 0) return null;
    const keyword = this.keywords[inside];
    const offset = this.starts[inside] - start;
    const length = end - start;
    const found: number[] = [];
    // Hits of one keyword come in order of their start (they share its length).
    // Compared in place: most secrets occur once, and a copy of each cost more than the search.
    for (let k = 0; k < this.count; k++) {
      if (this.keywords[k] !== keyword) continue;
      const at = this.starts[k] - offset;
      if (at === start || (at >= 0 && at + length <= text.length && sameChars(text, at, start, length))) found.push(at);
    }
    return found;
  }
}

/** Whether `text[a, a + length)` and `text[b, b + length)` hold the same characters. */
function sameChars(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

export interface KeywordAutomaton {
  readonly keywords: readonly string[];
  /** Finds every keyword occurrence (overlapping ones included) and every mark in `text` into `into`. */
  scan(text: string, into: KeywordHits): KeywordHits;
  /** The state a walk starts in, for `walk`. */
  readonly start: number;
  /** Length of the longest keyword. */
  readonly longest: number;
  /**
   * Walks `text[from, to)` on from `state` (a walk's start, or what the last
   * call returned): -1 as soon as a keyword ends, else the state reached. So
   * pieces of a text not yet joined into one string can be searched in turn.
   */
  walk(state: number, text: string, from: number, to: number): number;
  /**
   * Whether walking `text[from, to)` on from `state` a keyword ends while the
   * walk still holds characters from before `from` (a keyword across a cut
   * there). Stops as soon as the state holds none: usually after a character or two.
   */
  crosses(state: number, text: string, from: number, to: number): boolean;
}

/** Character classes, indexed by UTF-16 code unit: 0 for every character no keyword holds. */
const CLASS_TABLE_SIZE = 0x10000;

function grow(array: Int32Array, needed: number): Int32Array {
  if (needed <= array.length) return array;
  const bigger = new Int32Array(Math.max(needed, array.length * 2));
  bigger.set(array);
  return bigger;
}

/**
 * Builds the automaton for `keywords` (lowercase printable ASCII, non-empty)
 * that also reports the characters `marks` (no keyword may hold one).
 */
export function keywordAutomaton(keywords: readonly string[], marks: readonly number[] = []): KeywordAutomaton {
  for (const keyword of keywords) {
    if (keyword === "" || keyword !== keyword.toLowerCase() || !/^[\x20-\x7e]+$/.test(keyword)) {
      throw new Error(`secret rule keyword "${keyword}" must be lowercase printable ASCII`);
    }
    if (marks.some((mark) => keyword.includes(String.fromCharCode(mark)))) {
      throw new Error(`secret rule keyword "${keyword}" holds a mark character`);
    }
  }
  // One class per distinct keyword character (A–Z share their lowercase
  // letter's), one shared by all marks, 0 for everything else.
  const classOf = new Uint8Array(CLASS_TABLE_SIZE);
  let classes = 1;
  for (const keyword of keywords) {
    for (let i = 0; i < keyword.length; i++) {
      const code = keyword.charCodeAt(i);
      if (classOf[code] === 0) classOf[code] = classes++;
    }
  }
  for (let code = 65; code <= 90; code++) classOf[code] = classOf[code + 32];
  const markClass = classes++;
  for (const mark of marks) classOf[mark] = markClass;
  if (classes > 255) throw new Error("too many distinct keyword characters");

  // The trie, as rows of `classes` next states (0: none yet), and the
  // keywords ending at each state.
  const rows: number[][] = [new Array<number>(classes).fill(0)];
  const ending: number[][] = [[]];
  const depthOf: number[] = [0]; // characters of the keyword prefix a state stands for
  keywords.forEach((keyword, index) => {
    let state = 0;
    for (let i = 0; i < keyword.length; i++) {
      const cls = classOf[keyword.charCodeAt(i)];
      if (rows[state][cls] === 0) {
        rows.push(new Array<number>(classes).fill(0));
        ending.push([]);
        depthOf.push(depthOf[state] + 1);
        rows[state][cls] = rows.length - 1;
      }
      state = rows[state][cls];
    }
    ending[state].push(index);
  });
  // The mark state: the root again (no keyword holds a mark), flagged so the walk notices it.
  const MARK = rows.length;
  rows.push(rows[0]);
  ending.push([]);
  depthOf.push(0);

  // Breadth-first: each state's failure link (its longest proper suffix
  // that is a trie state), missing moves filled in from it (a full DFA), and
  // its outputs extended with the failure state's (keywords ending inside).
  const fail = new Array<number>(rows.length).fill(0);
  const queue: number[] = [];
  for (let cls = 0; cls < classes; cls++) if (rows[0][cls] !== 0) queue.push(rows[0][cls]);
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head];
    ending[state].push(...ending[fail[state]]);
    for (let cls = 0; cls < classes; cls++) {
      const next = rows[state][cls];
      if (next !== 0) {
        fail[next] = rows[fail[state]][cls];
        queue.push(next);
      } else {
        rows[state][cls] = rows[fail[state]][cls];
      }
    }
  }
  for (const row of rows) row[markClass] = MARK;

  // Renumbered so that the states to report (outputs, or the mark) come
  // last: the walk then notices them with one comparison. A state's number
  // is the offset of its row in `delta`.
  const reported = (state: number) => state === MARK || ending[state].length > 0;
  const order = rows.map((_, state) => state).sort((a, b) => Number(reported(a)) - Number(reported(b)) || a - b);
  const offset = new Array<number>(rows.length);
  order.forEach((state, position) => (offset[state] = position * classes));
  const firstReported = order.findIndex(reported);
  const reportFrom = firstReported < 0 ? rows.length * classes : firstReported * classes;
  const delta = new Int32Array(rows.length * classes);
  order.forEach((state, position) => {
    for (let cls = 0; cls < classes; cls++) delta[position * classes + cls] = offset[rows[state][cls]];
  });
  // For a reported state (by its row offset): its keywords, flattened; the mark state has none.
  const outputFrom = new Int32Array(rows.length + 1);
  const outputList: number[] = [];
  order.forEach((state, position) => {
    outputFrom[position] = outputList.length;
    outputList.push(...ending[state]);
  });
  outputFrom[rows.length] = outputList.length;
  const outputs = Int32Array.from(outputList);
  const lengths = Int32Array.from(keywords, (keyword) => keyword.length);
  const depth = new Int32Array(rows.length); // by row position (row offset / classes)
  order.forEach((state, position) => (depth[position] = depthOf[state]));
  const root = offset[0];
  const mark = offset[MARK];

  /** Records what the walk reached at `i`: a mark, or the keywords ending there. */
  function report(text: string, into: KeywordHits, row: number, i: number, before: number): void {
    if (row === mark) {
      if (into.markCount === into.marks.length) {
        into.marks = grow(into.marks, into.markCount + 1);
        into.markStates = grow(into.markStates, into.markCount + 1);
      }
      into.markStates[into.markCount] = before;
      into.marks[into.markCount++] = i;
      return;
    }
    const position = row / classes;
    for (let k = outputFrom[position]; k < outputFrom[position + 1]; k++) {
      if (into.count === into.starts.length) {
        into.starts = grow(into.starts, into.count + 1);
        into.ends = grow(into.ends, into.count + 1);
        into.keywords = grow(into.keywords, into.count + 1);
      }
      const keyword = outputs[k];
      into.starts[into.count] = i + 1 - lengths[keyword];
      into.ends[into.count] = i + 1;
      into.keywords[into.count++] = keyword;
    }
  }

  return {
    keywords,
    scan(text, into) {
      into.count = 0;
      into.markCount = 0;
      // Locals, not closure variables, so the optimizing compiler keeps them in registers.
      const table = delta;
      const classes_ = classOf;
      const threshold = reportFrom;
      const length = text.length;
      let row = root;
      for (let i = 0; i < length; i++) {
        const next = table[row + classes_[text.charCodeAt(i)]];
        if (next >= threshold) report(text, into, next, i, row);
        row = next;
      }
      return into;
    },
    start: root,
    longest: Math.max(0, ...lengths),
    walk(state, text, from, to) {
      const table = delta;
      const classes_ = classOf;
      let row = state;
      for (let i = from; i < to; i++) {
        row = table[row + classes_[text.charCodeAt(i)]];
        if (row >= reportFrom && row !== mark) return -1;
      }
      return row;
    },
    crosses(state, text, from, to) {
      let row = state;
      for (let i = from; i < to; i++) {
        // The state stands for its last `depth` characters: once all are past `from`, no keyword found later holds one before it.
        if (depth[row / classes] <= i - from) return false;
        row = delta[row + classOf[text.charCodeAt(i)]];
        if (row >= reportFrom && row !== mark) return true;
      }
      return false;
    },
  };
}

/** The view's gate (normalize.ts): `automaton`, and what its pass over the text found (`hits`, filled later is fine). */
export function placeGate(automaton: KeywordAutomaton, hits: KeywordHits): PlaceGate {
  return {
    start: automaton.start,
    walk: (state, text, from, to) => automaton.walk(state, text, from, to),
    longest: automaton.longest,
    foundWithin: (from, to) => hits.anyWithin(from, to),
    stateBeforeMark: (k) => hits.markStates[k],
    crosses: (state, text, from, to) => automaton.crosses(state, text, from, to),
  };
}
