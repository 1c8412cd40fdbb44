/**
 * The offline backend reads queries from ordered indexes (orderedIndex.ts)
 * instead of sorting each table: every shape of read must still return what
 * Convex returns — the same documents, in index order, filtered, limited,
 * paginated, and a mutation's reads must see its own pending writes.
 */
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { compareValues, type Value } from "convex/values";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startTestBackend } from "./helpers";

type Ranked = { _id: string; _creationTime: number; group: string; n?: number; tag: string };
type Range = { group?: string; gt?: number; lte?: number; order: "asc" | "desc"; tag?: string; take?: number };

let backend: Awaited<ReturnType<typeof startTestBackend>>;
let http: ConvexHttpClient;
let docs: Ranked[];

beforeAll(async () => {
  backend = await startTestBackend();
  http = new ConvexHttpClient(backend.url);
  const seeded = [];
  for (let i = 0; i < 120; i++) {
    // Some documents lack `n` (undefined sorts first) and many share one, so ties fall to _creationTime.
    seeded.push({ group: ["a", "b", "c"][i % 3], tag: i % 4 === 0 ? "x" : "y", ...(i % 7 === 0 ? {} : { n: (i * 37) % 11 }) });
  }
  await http.mutation(anyApi.ranked.seed, { docs: seeded.slice(0, 60) });
  await http.mutation(anyApi.ranked.seed, { docs: seeded.slice(60) });
  docs = (await http.query(anyApi.ranked.all, {})) as Ranked[];
});

afterAll(async () => {
  await backend?.stop();
});

/** What Convex returns for a range: by hand, from every document. */
function expected(range: Range, from: Ranked[] = docs): string[] {
  const compare = (a: Ranked, b: Ranked) =>
    range.group === undefined
      ? a._creationTime - b._creationTime
      : compareValues(a.group, b.group) || compareValues(a.n as Value, b.n as Value) || a._creationTime - b._creationTime;
  const matching = from
    .filter((doc) => range.group === undefined || doc.group === range.group)
    .filter((doc) => range.gt === undefined || compareValues(doc.n as Value, range.gt) > 0)
    .filter((doc) => range.lte === undefined || compareValues(doc.n as Value, range.lte) <= 0)
    .filter((doc) => range.tag === undefined || doc.tag === range.tag)
    .sort(compare);
  if (range.order === "desc") matching.reverse();
  const ids = matching.map((doc) => doc._id);
  return range.take === undefined ? ids : ids.slice(0, range.take);
}

const RANGES: Range[] = [
  { order: "asc" },
  { order: "desc", take: 7 },
  { group: "a", order: "asc" },
  { group: "b", order: "desc" },
  { group: "c", gt: 3, order: "asc" },
  { group: "c", gt: 3, lte: 8, order: "desc" },
  { group: "a", lte: 5, order: "asc", tag: "x" },
  { group: "b", order: "asc", tag: "x", take: 3 },
  { group: "zzz", order: "asc" },
];

test("collect, take and first return the documents Convex would, in index order", async () => {
  expect(docs).toHaveLength(120);
  for (const range of RANGES) {
    expect(await http.query(anyApi.ranked.read, range), JSON.stringify(range)).toEqual(expected(range));
    const { take: _take, ...rest } = range;
    void _take;
    expect(await http.query(anyApi.ranked.first, rest), JSON.stringify(range)).toBe(expected(rest)[0] ?? null);
  }
});

test("paginate walks a range page by page without gaps or repeats", async () => {
  for (const range of [RANGES[2], RANGES[5], RANGES[6]]) {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const page = (await http.query(anyApi.ranked.page, { ...range, paginationOpts: { numItems: 4, cursor } })) as {
        ids: string[];
        isDone: boolean;
        continueCursor: string;
      };
      seen.push(...page.ids);
      if (page.isDone) break;
      cursor = page.continueCursor;
    }
    expect(seen, JSON.stringify(range)).toEqual(expected(range));
  }
});

test("a page reads its own rows, not the range before or after it", async () => {
  for (const range of [RANGES[2], RANGES[3]]) {
    const all = expected(range);
    expect(all.length, "a range much longer than a page").toBeGreaterThan(30);
    type Page = { ids: string[]; isDone: boolean; continueCursor: string };
    const page = (cursor: string | null) => http.query(anyApi.ranked.page, { ...range, paginationOpts: { numItems: 4, cursor } }) as Promise<Page>;
    let cursor: string | null = null;
    let seen: string[] = [];
    // Walk to the middle of the range, then count what one more page reads.
    for (let i = 0; i < 4; i++) {
      const next: Page = await page(cursor);
      seen = [...seen, ...next.ids];
      cursor = next.continueCursor;
    }
    const before = backend.engine.indexRowsRead;
    const middle = await page(cursor);
    const read = backend.engine.indexRowsRead - before;
    expect(middle.ids, JSON.stringify(range)).toEqual(all.slice(16, 20));
    // numItems rows, and at most the one after them; the old path read all of the range's rows for every page.
    expect(read, JSON.stringify(range)).toBeGreaterThanOrEqual(4);
    expect(read, JSON.stringify(range)).toBeLessThanOrEqual(5);
    expect(seen).toEqual(all.slice(0, 16));
  }
});

test("a page past the end of its range is empty and done, and a foreign cursor still gets convex-test's answer", async () => {
  const range = RANGES[2];
  const end = (await http.query(anyApi.ranked.page, { ...range, paginationOpts: { numItems: 4, cursor: "_end_cursor" } })) as { ids: string[]; isDone: boolean };
  expect(end).toMatchObject({ ids: [], isDone: true });
  await expect(http.query(anyApi.ranked.page, { ...range, paginationOpts: { numItems: 4, cursor: "not a cursor" } })).rejects.toThrow();
});

test("a mutation's read sees its own insert, in order", async () => {
  const range: Range = { group: "a", order: "desc" };
  const { id, ids } = (await http.mutation(anyApi.ranked.insertThenRead, { doc: { group: "a", n: 4, tag: "y" }, range })) as {
    id: string;
    ids: string[];
  };
  const now = (await http.query(anyApi.ranked.all, {})) as Ranked[];
  expect(ids).toContain(id);
  expect(ids).toEqual(expected(range, now));
  // And the committed write is in the index for later queries.
  expect(await http.query(anyApi.ranked.read, range)).toEqual(expected(range, now));
});

test("with a write pending, a mutation reads every range shape as Convex would", async () => {
  for (const { take: _take, ...range } of RANGES) {
    void _take; // insertThenRead collects the whole range
    const { id, ids } = (await http.mutation(anyApi.ranked.insertThenRead, { doc: { group: "b", n: 6, tag: "x" }, range })) as { id: string; ids: string[] };
    const now = (await http.query(anyApi.ranked.all, {})) as Ranked[];
    expect(ids, JSON.stringify(range)).toEqual(expected(range, now));
    expect(ids.includes(id), JSON.stringify(range)).toBe(now.filter((doc) => doc._id === id).some((doc) => expected(range, [doc]).length === 1));
  }
});

test("after inserting, moving and deleting documents, a mutation reads every range shape as Convex would, every way it can read", async () => {
  let round = 0;
  for (const range of RANGES) {
    const before = (await http.query(anyApi.ranked.all, {})) as Ranked[];
    // A document moved into (or out of, or within) the range, one deleted from it, one inserted: in different places each round.
    const move = before[(round * 17 + 5) % before.length];
    const remove = before.filter((doc) => doc._id !== move._id)[(round * 29 + 11) % (before.length - 1)];
    const to = { group: ["a", "b", "c"][round % 3], ...(round % 4 === 3 ? {} : { n: (round * 5) % 11 }) };
    const result = (await http.mutation(anyApi.ranked.writeThenRead, {
      insert: { group: ["c", "a", "b"][round % 3], n: round % 11, tag: round % 2 === 0 ? "x" : "y" },
      move: move._id,
      to,
      remove: remove._id,
      range,
    })) as { inserted: string; ids: string[]; first: string | null; iterated: string[] };
    round += 1;
    const now = (await http.query(anyApi.ranked.all, {})) as Ranked[];
    expect(now.some((doc) => doc._id === remove._id)).toBe(false);
    const { take: _take, ...whole } = range;
    void _take;
    expect(result.ids, JSON.stringify(range)).toEqual(expected(range, now));
    expect(result.first, JSON.stringify(range)).toBe(expected(whole, now)[0] ?? null);
    expect(result.iterated, JSON.stringify(range)).toEqual(expected(whole, now).slice(0, 4));
  }
});

test("iterating row by row (and stopping early) reads what collect reads", async () => {
  const now = (await http.query(anyApi.ranked.all, {})) as Ranked[];
  for (const range of RANGES) {
    const { take: _take, ...rest } = range;
    void _take;
    const all = expected(rest, now);
    expect(await http.query(anyApi.ranked.iterate, { ...rest, stopAfter: 5 }), JSON.stringify(range)).toEqual(all.slice(0, 5));
  }
});

test("a changed document is read with its new fields, in the same transaction and after the commit", async () => {
  // Read first (so the backend has encoded the document once), then change it.
  const target = docs[10];
  expect(await http.query(anyApi.ranked.get, { id: target._id })).toMatchObject({ tag: target.tag });
  const tag = `${target.tag}-changed`;
  expect(await http.mutation(anyApi.ranked.patchThenRead, { id: target._id, tag })).toEqual({ byId: tag, inQuery: tag });
  expect(await http.query(anyApi.ranked.get, { id: target._id })).toMatchObject({ tag });
  const all = (await http.query(anyApi.ranked.all, {})) as Ranked[];
  expect(all.find((doc) => doc._id === target._id)?.tag).toBe(tag);
});
