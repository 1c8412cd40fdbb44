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
 * may spend. Runs that long are never natural words: they are cut into short
 * slices, each counted on its own. Everything else is counted exactly.
 */
const LONG_RUN = /\p{L}{64,}|[^\s\p{L}\p{N}]{64,}|\s{64,}/gu;
const SLICE_CHARS = 32;

/** Tokens in `text`. Special-token strings such as `<|endoftext|>` are counted as ordinary text, never refused. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  let from = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    count += encodedLength(text.slice(from, run.index));
    const chars = Array.from(run[0]); // code points, so no slice splits a surrogate pair
    for (let i = 0; i < chars.length; i += SLICE_CHARS) count += encodedLength(chars.slice(i, i + SLICE_CHARS).join(""));
    from = run.index + run[0].length;
  }
  return count + encodedLength(text.slice(from));
}

function encodedLength(text: string): number {
  return text.length === 0 ? 0 : encoder.encode(text, [], []).length;
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
  const tokens = encoder.encode(bounded, [], []);
  if (tokens.length <= maxTokens && bounded.length === text.length) return text;
  // A cut token may end inside a multi-byte character: drop the broken tail.
  return encoder.decode(tokens.slice(0, maxTokens)).replace(/\uFFFD+$/, "");
}
