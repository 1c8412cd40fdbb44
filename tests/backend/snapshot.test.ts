import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getHeapSpaceStatistics } from "node:v8";
import type { JSONValue } from "convex/values";
import { afterEach, expect, test } from "vitest";
import { LEGACY_SNAPSHOT_FILE, SNAPSHOT_FILE, forEachLine } from "../../tools/local-backend/snapshot";
import { DurableStore, encodeLogLine, WalCorruptError, type CommitRecord, type SnapshotSource, type StoredDocument } from "../../tools/local-backend/storage";
import { tempDataDir } from "./helpers";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function dataDir(): string {
  const dir = tempDataDir();
  dirs.push(dir);
  return dir;
}

/**
 * Documents whose text holds what a byte scanner could trip on: JSON's own
 * brackets, braces, commas and quotes inside strings, escaped quotes and
 * backslashes, and multi-byte characters (one of 4 bytes).
 */
function trickyDocuments(count: number, padding = 0): StoredDocument[] {
  return Array.from({ length: count }, (_, n) => ({
    _id: `${10_000 + n}notes`,
    _creationTime: 1_700_000_000_000 + n,
    body: `note ${n}: {"not":["a","doc"]}, \\"quoted\\" \\\\ ]}[{ ünïcødé 漢字 🎼 ${"·".repeat(padding)}`,
    nested: { list: [n, "]", { deep: "}" }], empty: {}, none: null, flag: n % 2 === 0 },
  }));
}

const mode = (file: string) => statSync(file).mode & 0o777;

/** A snapshot source over documents, as the engine's Persistence gives one. */
function sourceOf(documents: Iterable<StoredDocument>, trailer: { ts: bigint; nextDocId: number; mutationResults?: Map<string, JSONValue> }): SnapshotSource {
  return {
    *chunks() {
      yield [...documents];
    },
    trailer: () => ({ mutationResults: new Map(), ...trailer }),
  };
}

async function compactInto(dir: string, documents: StoredDocument[], trailer: { ts: bigint; nextDocId: number; mutationResults?: Map<string, JSONValue> }) {
  const store = new DurableStore(dir, { compactLogBytes: 1 });
  store.open();
  await store.compactInBackground(sourceOf(documents, trailer));
  expect(store.compactions).toBe(1);
  store.close();
}

test("a compaction writes the snapshot one record a line: a header, each document, each result, and an end line counting them", async () => {
  const dir = dataDir();
  const documents = trickyDocuments(3);
  await compactInto(dir, documents, { ts: 42n, nextDocId: 10_003, mutationResults: new Map<string, JSONValue>([["s#1", { ok: true, value: "[1,2]" }]]) });
  const file = path.join(dir, SNAPSHOT_FILE);
  expect(mode(file)).toBe(0o600);
  expect(existsSync(path.join(dir, LEGACY_SNAPSHOT_FILE))).toBe(false);
  expect(existsSync(`${file}.tmp`)).toBe(false);
  const lines = readFileSync(file, "utf8").split("\n");
  expect(lines.pop()).toBe("");
  expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
    { format: 2 },
    ...documents.map((doc) => ({ doc })),
    { result: ["s#1", { ok: true, value: "[1,2]" }] },
    { end: { ts: "42", nextDocId: 10_003, documents: 3, results: 1 } },
  ]);
  const state = new DurableStore(dir).open();
  expect([...state.documents.values()]).toEqual(documents);
  expect(state.ts).toBe(42n);
  expect(state.nextDocId).toBe(10_003);
  expect(state.mutationResults.get("s#1")).toEqual({ ok: true, value: "[1,2]" });
});

test("a compaction puts no slice's text through V8's large-object space (old generation): lines go through a reused buffer", async () => {
  const dir = dataDir();
  // 20 MB of documents of about 1 kB: each slice encodes hundreds of them, a string of hundreds of kB when joined.
  const documents = trickyDocuments(20_000, 900);
  const largeObjects = () => getHeapSpaceStatistics().find((space) => space.space_name === "large_object_space")!.space_used_size;
  const store = new DurableStore(dir, { compactLogBytes: 1 });
  store.open();
  const baseline = largeObjects();
  let peak = baseline;
  // Read between slices, while each slice's output is being written (it waits for the file then).
  const timer = setInterval(() => (peak = Math.max(peak, largeObjects())), 1);
  try {
    await store.compactInBackground({
      *chunks() {
        for (let i = 0; i < documents.length; i += 32) yield documents.slice(i, i + 32);
      },
      trailer: () => ({ ts: 1n, nextDocId: 30_000, mutationResults: new Map() }),
    });
  } finally {
    clearInterval(timer);
    store.close();
  }
  expect(store.compactions).toBe(1);
  expect(peak - baseline).toBeLessThan(1024 * 1024);
  const state = new DurableStore(dir).open();
  expect(state.documents.size).toBe(documents.length);
  expect(state.documents.get(documents[12_345]._id)).toEqual(documents[12_345]);
});

test("a snapshot of many reads' size is read back whole: lines and characters split between two reads are joined", async () => {
  const dir = dataDir();
  // About 20 MB: more than two reads of 8 MB, lines of ~1 KB with multi-byte characters throughout.
  const documents = trickyDocuments(20_000, 500);
  await compactInto(dir, documents, { ts: 7n, nextDocId: 30_000 });
  expect(statSync(path.join(dir, SNAPSHOT_FILE)).size).toBeGreaterThan(16 * 1024 * 1024);
  const state = new DurableStore(dir).open();
  expect(state.documents.size).toBe(20_000);
  expect([...state.documents.values()]).toEqual(documents);
});

test("lines are handed over whole, one at a time, however the reads cut them", () => {
  const dir = dataDir();
  const file = path.join(dir, "lines.txt");
  const long = "é".repeat(5 * 1024 * 1024); // 10 MB in UTF-8: longer than a read
  writeFileSync(file, `first\n${long}\n\nlast without newline`);
  const seen: Array<[number, number, number, number]> = [];
  forEachLine(file, (text, lineNumber, offset, end) => seen.push([lineNumber, text.length, offset, end]));
  // Each line's bytes: where it starts and where the next starts (the log's torn-tail cut and damage report use them).
  const longEnd = 6 + Buffer.byteLength(long) + 1;
  expect(seen).toEqual([
    [1, 5, 0, 6],
    [2, long.length, 6, longEnd],
    [3, 0, longEnd, longEnd + 1],
    [4, "last without newline".length, longEnd + 1, statSync(file).size],
  ]);
});

/** The first format as its compaction wrote it: documents first, the rest after (fields in that order). */
function legacyFromCompaction(documents: StoredDocument[], ts: string, nextDocId: number, results: Array<[string, JSONValue]>): string {
  return `{"format":1,"documents":[${documents.map((doc) => JSON.stringify(doc)).join(",")}],"ts":"${ts}","nextDocId":${nextDocId},"mutationResults":${JSON.stringify(results)}}`;
}

/** The first format as start-up wrote it (one JSON.stringify, the documents after ts and the id counter). */
function legacyFromStartUp(documents: StoredDocument[], ts: string, nextDocId: number, results: Array<[string, JSONValue]>): string {
  return JSON.stringify({ format: 1, ts, nextDocId, documents, mutationResults: results });
}

test.each([
  ["its compaction", legacyFromCompaction],
  ["its start-up", legacyFromStartUp],
])("a data folder whose snapshot %s wrote in the first format starts, its log replayed over it, and is rewritten in the current format", (_, legacy) => {
  const dir = dataDir();
  // ~12 MB, so the old file is read in more than one piece.
  const documents = trickyDocuments(12_000, 500);
  writeFileSync(path.join(dir, LEGACY_SNAPSHOT_FILE), legacy(documents, "500", 22_000, [["s#9", { ok: true, value: ["]", "}"] }]]), { mode: 0o644 });
  // The log written after that snapshot: an update, a delete and an insert.
  const commit = { ts: "501", nextDocId: 22_001, writes: [["10000notes", { _id: "10000notes", body: "changed" }], ["10001notes", null], ["22000notes", { _id: "22000notes", body: "new" }]] as CommitRecord["writes"] };
  writeFileSync(path.join(dir, "wal.jsonl"), encodeLogLine({ type: "commit", ...commit }), { mode: 0o644 });

  const expected = new Map(documents.map((doc) => [doc._id, doc]));
  expected.set("10000notes", { _id: "10000notes", body: "changed" });
  expected.delete("10001notes");
  expected.set("22000notes", { _id: "22000notes", body: "new" });
  const check = (state: ReturnType<DurableStore["open"]>) => {
    expect(state.documents.size).toBe(expected.size);
    expect(Object.fromEntries(state.documents)).toEqual(Object.fromEntries(expected));
    expect(state.ts).toBe(501n);
    expect(state.nextDocId).toBe(22_001);
    expect(state.mutationResults.get("s#9")).toEqual({ ok: true, value: ["]", "}"] });
  };
  const first = new DurableStore(dir);
  check(first.open());
  first.close();
  // Rewritten: the current format only, owner-only, the old file gone, the log kept.
  expect(existsSync(path.join(dir, LEGACY_SNAPSHOT_FILE))).toBe(false);
  expect(mode(path.join(dir, SNAPSHOT_FILE))).toBe(0o600);
  expect(readFileSync(path.join(dir, SNAPSHOT_FILE), "utf8").startsWith('{"format":2}\n')).toBe(true);
  // The next start reads the new snapshot (and the same log over it) to the same state.
  const second = new DurableStore(dir);
  check(second.open());
  second.close();
});

test("a crash while the old snapshot is rewritten: a half-written temporary file is ignored, the old snapshot read again", () => {
  const dir = dataDir();
  const documents = trickyDocuments(5);
  writeFileSync(path.join(dir, LEGACY_SNAPSHOT_FILE), legacyFromCompaction(documents, "9", 10_005, []));
  writeFileSync(path.join(dir, `${SNAPSHOT_FILE}.tmp`), '{"format":2}\n{"doc":{"_id":"1000');
  const state = new DurableStore(dir).open();
  expect([...state.documents.values()]).toEqual(documents);
  expect(existsSync(path.join(dir, LEGACY_SNAPSHOT_FILE))).toBe(false);
  expect(new DurableStore(dir).open().documents.size).toBe(5);
});

test("a crash after the rewritten snapshot was renamed in but before the old one went: the new one is read, the old one removed", async () => {
  const dir = dataDir();
  await compactInto(dir, trickyDocuments(4), { ts: 20n, nextDocId: 10_004 });
  // An older state in the old file, as the rewrite left it before removing it.
  writeFileSync(path.join(dir, LEGACY_SNAPSHOT_FILE), legacyFromCompaction(trickyDocuments(2), "10", 10_002, []));
  const state = new DurableStore(dir).open();
  expect(state.documents.size).toBe(4);
  expect(state.ts).toBe(20n);
  expect(existsSync(path.join(dir, LEGACY_SNAPSHOT_FILE))).toBe(false);
});

test("a compaction cut short (wal-prev.jsonl left) is folded at start into a snapshot of the current format", () => {
  const dir = dataDir();
  const store = new DurableStore(dir);
  store.open();
  store.appendCommit({ ts: "3", nextDocId: 10_001, writes: [["10000notes", { _id: "10000notes", body: "kept" }]] });
  store.close();
  writeFileSync(path.join(dir, "wal-prev.jsonl"), readFileSync(path.join(dir, "wal.jsonl")));
  writeFileSync(path.join(dir, "wal.jsonl"), "");
  const state = new DurableStore(dir).open();
  expect(state.documents.get("10000notes")).toEqual({ _id: "10000notes", body: "kept" });
  expect(existsSync(path.join(dir, "wal-prev.jsonl"))).toBe(false);
  const lines = readFileSync(path.join(dir, SNAPSHOT_FILE), "utf8").trim().split("\n");
  expect(lines[0]).toBe('{"format":2}');
  expect(JSON.parse(lines.at(-1)!)).toEqual({ end: { ts: "3", nextDocId: 10_001, documents: 1, results: 0 } });
  expect(mode(path.join(dir, SNAPSHOT_FILE))).toBe(0o600);
});

test.each([
  ["cut short (no end line)", (text: string) => text.slice(0, text.lastIndexOf('{"end"'))],
  ["cut mid-line", (text: string) => text.slice(0, text.length - 30)],
  ["missing a document its end line counts", (text: string) => text.replace(/\{"doc":\{"_id":"10001notes"[^\n]*\n/, "")],
  ["damaged in the middle", (text: string) => text.replace('{"doc":{"_id":"10001notes"', '{"doc":{"_id":"10001notes"x')],
  ["of no known format", (text: string) => text.replace('{"format":2}', '{"format":9}')],
])("a snapshot %s refuses to start, naming the file, rather than serving less than it held", async (_, damage) => {
  const dir = dataDir();
  await compactInto(dir, trickyDocuments(3), { ts: 5n, nextDocId: 10_003 });
  const file = path.join(dir, SNAPSHOT_FILE);
  writeFileSync(file, damage(readFileSync(file, "utf8")));
  expect(() => new DurableStore(dir).open()).toThrow(WalCorruptError);
  expect(() => new DurableStore(dir).open()).toThrow(`Unreadable snapshot ${file}`);
});

test("an old snapshot cut short refuses to start too", () => {
  const dir = dataDir();
  const text = legacyFromCompaction(trickyDocuments(3), "5", 10_003, []);
  writeFileSync(path.join(dir, LEGACY_SNAPSHOT_FILE), text.slice(0, text.length - 40));
  expect(() => new DurableStore(dir).open()).toThrow(`Unreadable snapshot ${path.join(dir, LEGACY_SNAPSHOT_FILE)}`);
});
