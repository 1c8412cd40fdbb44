import { readFileSync } from "node:fs";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k_base from "js-tiktoken/ranks/cl100k_base";
import { describe, expect, test } from "vitest";
import { countTokens, keepNewestWithinBudget, truncateToTokens } from "../../convex/lib/tokens";
import { prng } from "../fixtures/secrets/corpus";

describe("countTokens", () => {
  test.each([
    ["", 0],
    ["hello world", 2],
    ["Hello, world!", 4],
    [" hello", 1],
    ["tiktoken is great!", 6],
  ])("%j is %i cl100k tokens", (text, expected) => {
    expect(countTokens(text)).toBe(expected);
  });

  test("special-token text in a message is counted as plain text, not refused", () => {
    expect(countTokens("before <|endoftext|> after")).toBeGreaterThan(3);
  });

  test("a 10,000-letter run is cut into slices and still counted about right", () => {
    // "aaaaaaaa" is one cl100k token, so the exact count is 1,250.
    expect(countTokens("a".repeat(10_000))).toBe(1_250);
    const cjk = Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join("");
    expect(countTokens(cjk)).toBeGreaterThan(10_000);
  });

  test("ordinary text is counted exactly however long it is", () => {
    expect(countTokens("word ".repeat(2_000))).toBe(2_001);
  });

  test("counting piece by piece (with the piece cache) equals the encoder on whole texts", () => {
    const encoder = new Tiktoken(cl100k_base);
    const corpus = ["positives.jsonl", "negatives.jsonl"].flatMap((file) =>
      readFileSync(new URL(`../fixtures/secrets/${file}`, import.meta.url), "utf8").split("\n").filter((line) => line.trim() !== ""),
    );
    // Whitespace runs, newlines, contractions, digits, emoji and CJK next to each other: where the pattern's lookahead matters.
    const alphabet = [" ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "a", "Word", "123456", "9", "!", "?!", "—", "é", "日本", "👍🏽", "<|endoftext|>", "\u200b", "://", "_x"];
    const random = prng(7);
    const generated = Array.from({ length: 500 }, () => Array.from({ length: 1 + Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(""));
    const mismatches = [...corpus, ...corpus.map((line) => line.toUpperCase()), ...generated]
      .filter((text) => countTokens(text) !== encoder.encode(text, [], []).length)
      .slice(0, 5);
    expect(mismatches).toEqual([]);
  });
});

describe("truncateToTokens", () => {
  test("keeps exactly the first n tokens, as decoding the encoder's first n would", () => {
    const encoder = new Tiktoken(cl100k_base);
    const reference = (text: string, n: number) => encoder.decode(encoder.encode(text, [], []).slice(0, n)).replace(/\uFFFD+$/, "");
    const texts = readFileSync(new URL("../fixtures/secrets/negatives.jsonl", import.meta.url), "utf8").split("\n").filter((line) => line.trim() !== "");
    texts.push("naïve café — 日本語のテキスト 👍🏽 and more words", "a".repeat(100), "  spaced   out\n\n\nlines  ");
    const mismatches: string[] = [];
    for (const text of texts) {
      for (const n of [1, 2, 5, 16, 40, 120]) if (truncateToTokens(text, n) !== reference(text, n)) mismatches.push(`${n}: ${text.slice(0, 40)}`);
    }
    expect(mismatches).toEqual([]);
    expect(truncateToTokens("hello world", 0)).toBe("");
    expect(truncateToTokens("hello world", 5)).toBe("hello world");
  });
});

describe("keepNewestWithinBudget", () => {
  const cost = (item: { tokens: number }) => item.tokens;
  const items = [
    { id: "oldest", tokens: 5 },
    { id: "middle", tokens: 3 },
    { id: "newer", tokens: 4 },
    { id: "newest", tokens: 2 },
  ];

  test("keeps the newest items that fit, in their original order", () => {
    const { kept, dropped } = keepNewestWithinBudget(items, 9, cost);
    expect(kept.map((i) => i.id)).toEqual(["middle", "newer", "newest"]);
    expect(dropped).toBe(1);
  });

  test("keeps everything when it all fits exactly", () => {
    expect(keepNewestWithinBudget(items, 14, cost)).toEqual({ kept: items, dropped: 0 });
  });

  test("stops at the first item that does not fit, so no gap opens in the thread", () => {
    const withBigMiddle = [{ id: "a", tokens: 1 }, { id: "big", tokens: 100 }, { id: "c", tokens: 1 }];
    expect(keepNewestWithinBudget(withBigMiddle, 10, cost)).toEqual({ kept: [{ id: "c", tokens: 1 }], dropped: 2 });
  });

  test("a budget of zero or an empty list keeps nothing", () => {
    expect(keepNewestWithinBudget(items, 0, cost)).toEqual({ kept: [], dropped: 4 });
    expect(keepNewestWithinBudget([], 10, cost)).toEqual({ kept: [], dropped: 0 });
  });

  test("works with real token counts", () => {
    const messages = ["first message in the thread", "second", "third and newest"];
    const budget = countTokens("second") + countTokens("third and newest");
    expect(keepNewestWithinBudget(messages, budget, countTokens).kept).toEqual(["second", "third and newest"]);
  });
});
