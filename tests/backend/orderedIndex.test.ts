import { compareValues, type Value } from "convex/values";
import { expect, test } from "vitest";
import { OrderedIndex, type RangeFilter } from "../../tools/local-backend/orderedIndex";

type Doc = Record<string, Value>;
const FIELDS = ["channel", "n", "_creationTime", "_id"];
const fieldOf = (field: string, doc: Doc) => doc[field];

/** Seeded, so a failure repeats. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

function sortedByIndex(docs: Doc[]): Doc[] {
  return [...docs].sort((a, b) => {
    for (const field of FIELDS) {
      const c = compareValues(a[field], b[field]);
      if (c !== 0) return c;
    }
    return 0;
  });
}

function matches(doc: Doc, range: RangeFilter[]): boolean {
  return range.every((filter) => {
    const c = compareValues(doc[filter.fieldPath], filter.value as Value);
    return { Eq: c === 0, Gt: c > 0, Gte: c >= 0, Lt: c < 0, Lte: c <= 0 }[filter.type];
  });
}

test("an ordered index answers index ranges exactly as filtering and sorting the table does, through inserts, updates and deletes", () => {
  const next = random(7);
  const index = new OrderedIndex(FIELDS, fieldOf);
  const docs = new Map<string, Doc>();
  const channels = ["a", "b", "c"];
  const make = (i: number): Doc => {
    const doc: Doc = { _id: `${10_000 + i}notes`, _creationTime: 1000 + i, channel: channels[Math.floor(next() * 3)] };
    // Some documents lack the field: undefined sorts first.
    if (next() < 0.8) doc.n = Math.floor(next() * 20);
    return doc;
  };
  for (let i = 0; i < 300; i++) docs.set(make(i)._id as string, make(i));
  index.build(docs.values());
  for (let step = 0; step < 400; step++) {
    const id = `${10_000 + Math.floor(next() * 350)}notes`;
    const previous = docs.get(id) ?? null;
    if (next() < 0.3) {
      docs.delete(id);
      if (previous !== null) index.delete(id, previous);
    } else {
      const doc = { ...make(0), _id: id, _creationTime: 1000 + Number.parseInt(id, 10) };
      docs.set(id, doc);
      index.set(id, doc, previous);
    }
  }
  expect(index.size).toBe(docs.size);
  const ranges: RangeFilter[][] = [
    [],
    [{ type: "Eq", fieldPath: "channel", value: "b" }],
    [{ type: "Eq", fieldPath: "channel", value: "zzz" }],
    [{ type: "Eq", fieldPath: "channel", value: "a" }, { type: "Gt", fieldPath: "n", value: 7 }],
    [{ type: "Eq", fieldPath: "channel", value: "a" }, { type: "Gte", fieldPath: "n", value: 7 }, { type: "Lt", fieldPath: "n", value: 12 }],
    [{ type: "Eq", fieldPath: "channel", value: "c" }, { type: "Lte", fieldPath: "n", value: 3 }],
    [{ type: "Eq", fieldPath: "channel", value: "c" }, { type: "Eq", fieldPath: "n", value: 5 }],
    [{ type: "Gte", fieldPath: "channel", value: "b" }],
  ];
  const all = sortedByIndex([...docs.values()]);
  for (const range of ranges) {
    const span = index.span(range)!;
    const got: string[] = [];
    for (let i = span.start; i < span.end; i++) got.push(index.at(i));
    expect(got, JSON.stringify(range)).toEqual(all.filter((doc) => matches(doc, range)).map((doc) => doc._id));
  }
  // `{$undefined: null}` is how a range names undefined: the documents without the field.
  const missing = index.span([{ type: "Eq", fieldPath: "channel", value: "a" }, { type: "Eq", fieldPath: "n", value: { $undefined: null } }])!;
  for (let i = missing.start; i < missing.end; i++) expect(docs.get(index.at(i))!.n).toBeUndefined();
  expect(missing.end - missing.start).toBe(all.filter((doc) => doc.channel === "a" && doc.n === undefined).length);
});

test("a range of another shape is left to convex-test (null)", () => {
  const index = new OrderedIndex(FIELDS, fieldOf);
  expect(index.span([{ type: "Eq", fieldPath: "n", value: 1 }])).toBeNull(); // not a prefix
  expect(index.span([{ type: "Gt", fieldPath: "channel", value: "a" }, { type: "Gt", fieldPath: "channel", value: "b" }])).toBeNull();
  expect(index.span([{ type: "Gt", fieldPath: "channel", value: "a" }, { type: "Eq", fieldPath: "n", value: 1 }])).toBeNull();
});

test("strings are ordered as Convex orders them (UTF-8 bytes), non-ASCII, surrogate pairs and prefixes included", () => {
  const next = random(11);
  const alphabet = ["a", "b", "Z", "é", "ß", "\u0800", "\uD7FF", "\uE000", "\uFFFD", "😀", "𝄞", " "];
  const index = new OrderedIndex(FIELDS, fieldOf);
  const docs: Doc[] = [];
  for (let i = 0; i < 400; i++) {
    let channel = "";
    const length = Math.floor(next() * 4);
    for (let k = 0; k < length; k++) channel += alphabet[Math.floor(next() * alphabet.length)];
    // Ids of different lengths as well: "9notes" sorts after "10000notes".
    const doc: Doc = { _id: `${i % 3 === 0 ? i : 10_000 + i}notes`, _creationTime: 1000 + (i % 7), channel, n: i % 5 };
    docs.push(doc);
    index.set(doc._id as string, doc);
  }
  const order = Array.from({ length: index.size }, (_, position) => index.at(position));
  expect(order).toEqual(sortedByIndex(docs).map((doc) => doc._id));
});

test("the index hands out each document as last written, also when a write leaves its indexed fields alone", () => {
  const index = new OrderedIndex(FIELDS, fieldOf);
  const docs = new Map<string, Doc>();
  for (let i = 0; i < 50; i++) docs.set(`${10_000 + i}notes`, { _id: `${10_000 + i}notes`, _creationTime: 1000 + i, channel: ["a", "b"][i % 2], n: i % 4, body: "first" });
  index.build(docs.values());
  // A text changes (the document keeps its place), then a channel (it moves), then the moved one's text again.
  const edits: Array<[string, Doc]> = [
    ["10007notes", { body: "second" }],
    ["10008notes", { channel: "a", body: "moved" }],
    ["10008notes", { body: "moved, then edited" }],
  ];
  for (const [id, change] of edits) {
    const previous = docs.get(id)!;
    const doc = { ...previous, ...change };
    docs.set(id, doc);
    index.set(id, doc, previous);
  }
  const handedOut = Array.from({ length: index.size }, (_, position) => index.document(position));
  expect(handedOut).toEqual(sortedByIndex([...docs.values()]));
  // The very objects last written: a query reads them, not copies or earlier versions.
  for (const doc of handedOut) expect(doc).toBe(docs.get(doc._id as string));
  // A document is found and taken out by the version last put in.
  index.delete("10008notes", docs.get("10008notes")!);
  docs.delete("10008notes");
  expect(Array.from({ length: index.size }, (_, position) => index.document(position))).toEqual(sortedByIndex([...docs.values()]));
  expect(() => index.delete("10007notes", { ...docs.get("10007notes")!, channel: "zzz" })).toThrow("Ordered index out of step at 10007notes");
});
