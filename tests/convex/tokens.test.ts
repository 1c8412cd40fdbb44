import { describe, expect, test } from "vitest";
import { countTokens, keepNewestWithinBudget } from "../../convex/lib/tokens";

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

  test("a 10,000-letter run is counted quickly and still about right", () => {
    const started = Date.now();
    // "aaaaaaaa" is one cl100k token, so the exact count is 1,250.
    expect(countTokens("a".repeat(10_000))).toBe(1_250);
    const cjk = Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join("");
    expect(countTokens(cjk)).toBeGreaterThan(10_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("ordinary text is counted exactly however long it is", () => {
    expect(countTokens("word ".repeat(2_000))).toBe(2_001);
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
