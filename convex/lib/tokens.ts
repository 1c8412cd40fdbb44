import { Tiktoken } from "js-tiktoken/lite";
import cl100k_base from "js-tiktoken/ranks/cl100k_base";

/**
 * Token counts with a real tokenizer (cl100k_base, the encoding of the
 * GPT-4 / GPT-3.5 family), in pure JS so it runs in Convex's default
 * runtime. Other models' tokenizers differ by a few percent; that is close
 * enough for budgeting a prompt, which is all these counts are for.
 */

/**
 * Building the encoder parses ~100k ranks (~300 ms). It is built when the
 * module loads, not on first use: the modules that import this one (the
 * brain's context, the injection budget) count tokens in nearly every call,
 * so loading seldom happens for nothing; a long-lived backend (the offline
 * one) pays it at start, not in the first @mention's run — that was the one
 * slow mention of every bench:brain run.
 */
const encoder: Tiktoken = new Tiktoken(cl100k_base);

/**
 * js-tiktoken merges each regex piece in time quadratic in its bytes, so one
 * 10,000-letter "word" takes seconds (CJK text far longer), more than a query
 * may spend. Pieces that long are never natural words: they are cut into
 * short slices, each counted on its own. Everything else is counted exactly.
 */
const LONG_PIECE_CHARS = 64;
const SLICE_CHARS = 32;

/** Tokens in `text`. Special-token strings such as `<|endoftext|>` are counted as ordinary text, never refused. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (const [piece] of text.matchAll(PIECES)) {
    if (piece.length < LONG_PIECE_CHARS) {
      count += pieceLength(piece);
      continue;
    }
    const chars = Array.from(piece); // code points, so no slice splits a surrogate pair
    for (let i = 0; i < chars.length; i += SLICE_CHARS) count += pieceLength(chars.slice(i, i + SLICE_CHARS).join(""));
  }
  return count;
}

/**
 * The encoder splits text into pieces with cl100k's pattern and merges each
 * piece on its own, so a text's count is the sum of its pieces' counts.
 * Chat and thread text repeats the same words endlessly: each short piece is
 * merged once and remembered (bounded), which makes counting several times
 * faster than encoding whole texts; tests/convex/tokens.test.ts checks the
 * sum against the encoder on the whole corpus.
 */
const PIECES = new RegExp(cl100k_base.pat_str, "gu");
const CACHED_PIECE_CHARS = 32;
const MAX_CACHED_PIECES = 50_000;
const pieceTokens = new Map<string, number>();

function pieceLength(piece: string): number {
  let n = pieceTokens.get(piece);
  if (n === undefined) {
    n = encoder.encode(piece, [], []).length;
    if (piece.length <= CACHED_PIECE_CHARS) {
      if (pieceTokens.size >= MAX_CACHED_PIECES) pieceTokens.clear();
      pieceTokens.set(piece, n);
    }
  }
  return n;
}

/**
 * The newest items whose token counts fit in `budget` together, in their
 * original order. `items` is oldest first; counting stops at the first
 * item that does not fit, so what is kept is always a contiguous newest
 * stretch and a gap never opens in the middle of a thread.
 */
export function keepNewestWithinBudget<T>(
  items: readonly T[],
  budget: number,
  tokensOf: (item: T) => number,
): { kept: T[]; dropped: number } {
  let used = 0;
  let first = items.length;
  while (first > 0) {
    const cost = tokensOf(items[first - 1]);
    if (used + cost > budget) break;
    used += cost;
    first -= 1;
  }
  return { kept: items.slice(first), dropped: first };
}

/**
 * The longest prefix of `text` of at most `maxTokens` tokens (encoded once,
 * cut, decoded). Text is first cut to a length no natural prefix of that
 * many tokens exceeds, so a pathological input costs no more than a short one.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return "";
  const bounded = Array.from(text.slice(0, maxTokens * 16)).join("");
  // Whole pieces while they fit (their counts mostly cached), then the first tokens of the piece that does not.
  let used = 0;
  for (const match of bounded.matchAll(PIECES)) {
    const n = pieceLength(match[0]);
    if (used + n <= maxTokens) {
      used += n;
      continue;
    }
    const partial = encoder.decode(encoder.encode(match[0], [], []).slice(0, maxTokens - used));
    // A cut token may end inside a multi-byte character: drop the broken tail.
    return (bounded.slice(0, match.index) + partial).replace(/\uFFFD+$/, "");
  }
  return bounded.length === text.length ? text : bounded;
}
