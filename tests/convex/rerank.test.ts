/**
 * The context pack's reranker (messaging spec, "Rerank code/doc snippets
 * (Morph reranker where available; OSS fallback)"): lib/rerank's BM25 of a
 * candidate's text against the task, critical items first, ties in the order
 * given; and lib/contextPack applying it before its budget cuts.
 */
import { describe, expect, test } from "vitest";
import { buildContextPack, type ProjectGraph } from "../../convex/lib/contextPack";
import { bm25Scores, rerank, terms } from "../../convex/lib/rerank";

const task = (id: string, title: string, status = "assigned", assignees: string[] = []) => ({ id, title, status, assignees });
const thread = (id: string, root: string, critical = false) => ({ id, messageIds: [id], where: "#launch", root, replies: 0, people: ["Ada"], ...(critical ? { critical: true } : {}) });

describe("bm25Scores", () => {
  test("words: lower case, stopwords, single characters and plural s out", () => {
    expect(terms("The Pricing pages, and a CSV export of 2 tables!")).toEqual(["pricing", "page", "csv", "export", "table"]);
    expect(terms("class access")).toEqual(["class", "access"]);
  });

  test("a document sharing rarer words scores higher; one sharing none scores 0; more repeats saturate; longer documents are normalised", () => {
    const docs = ["pricing page hero copy", "pricing table", "lunch at noon", "pricing pricing pricing pricing pricing page", "hero copy"];
    const [heroPage, table, lunch, repeated, hero] = bm25Scores("hero copy for the pricing page", docs);
    expect(lunch).toBe(0);
    expect(heroPage).toBeGreaterThan(table);
    expect(heroPage).toBeGreaterThan(hero);
    // "pricing" is in three of five documents: it says less than "hero" (two of five).
    expect(hero).toBeGreaterThan(table);
    // Five times the same word is not five times the score.
    expect(repeated).toBeLessThan(5 * bm25Scores("pricing page", ["pricing page", "x", "y", "z", "w"])[0]);
    expect(bm25Scores("", docs)).toEqual(docs.map(() => 0));
    expect(bm25Scores("a the of", docs)).toEqual(docs.map(() => 0));
  });
});

describe("rerank", () => {
  test("critical items first in their own order, then by relevance, ties (no shared word) in the order given", () => {
    const items = ["lunch at noon", "CRIT b: release blocked", "hero copy draft", "standup notes", "CRIT a: signing key", "hero copy and pricing page"];
    const ranked = rerank(items, { query: "Hero copy for the pricing page", text: (s) => s, critical: (s) => s.startsWith("CRIT") });
    expect(ranked).toEqual(["CRIT b: release blocked", "CRIT a: signing key", "hero copy and pricing page", "hero copy draft", "lunch at noon", "standup notes"]);
    // Nothing to go on: the order given stands.
    expect(rerank(items, { query: "zebra", text: (s) => s })).toEqual(items);
    expect(rerank([], { query: "x", text: String })).toEqual([]);
  });
});

describe("the context pack, reranked against its task", () => {
  const graph: ProjectGraph = {
    parent: task("p", "Launch", "in_progress", ["Jarvis"]),
    siblings: [task("s1", "Office party playlist"), task("s2", "Order new chairs"), task("s3", "Pricing table copy for the pricing page")],
    children: [task("c1", "Hero copy variants for the pricing page")],
    peers: [],
    threads: [thread("t1", "Who brings cake on Friday?"), thread("t2", "The release is blocked until the key is rotated", true)],
    artifacts: [],
  };

  test("the budget keeps the critical items and those about the task, leaving out the unrelated ones that rule order kept before", () => {
    const query = "Hero copy for the pricing page\nWrite the hero copy: a headline and two lines under it.";
    const budget = 125;
    const plain = buildContextPack(graph, { budget });
    const ranked = buildContextPack(graph, { budget, query });
    // Rule order keeps the first items whatever they are about: the party playlist and the chairs, not the hero copy nor the blocked release.
    expect(plain.included).toEqual(["p", "s1", "s2", "s3", "t1"]);
    // Reranked: the parent and the blocked release (critical) first, then the pricing page's tasks; the unrelated are what the budget drops.
    expect(ranked.included).toEqual(["p", "t2", "c1", "s3"]);
    expect(ranked.tokens).toBeLessThanOrEqual(budget);
    expect(ranked.text).toMatch(/\(3 more not shown\)/);
    // Sections still read in their fixed order.
    expect(ranked.text.indexOf("Parent task:")).toBeLessThan(ranked.text.indexOf("Sibling tasks"));
    expect(ranked.text.indexOf("Sibling tasks")).toBeLessThan(ranked.text.indexOf("Active threads"));
  });

  test("with room for everything, everything is shown (reranked within its section); an empty query keeps the rule order", () => {
    const all = buildContextPack(graph, { budget: 4000, query: "hero copy" });
    const plain = buildContextPack(graph, { budget: 4000 });
    expect(all.included.toSorted()).toEqual(plain.included.toSorted());
    expect(all.dropped).toBe(0);
    expect(all.text.split("\n").toSorted()).toEqual(plain.text.split("\n").toSorted());
    expect(buildContextPack(graph, { budget: 125, query: "  " }).included).toEqual(buildContextPack(graph, { budget: 125 }).included);
  });
});
