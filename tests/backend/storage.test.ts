import { appendFileSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import type { JSONValue } from "convex/values";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import {
  DurableStore,
  MAX_RECORDED_MUTATION_RESULTS,
  scanLogFile,
  trimResults,
  walSyncModeFromEnv,
  type SnapshotSource,
  type StoredDocument,
} from "../../tools/local-backend/storage";
import { needsDecoding } from "../../tools/local-backend/persistence";
import { SNAPSHOT_FILE } from "../../tools/local-backend/snapshot";
import { startTestBackend, tempDataDir } from "./helpers";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

test("commits replay over the snapshot; a torn last line (crash mid-write) is dropped", () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir);
  store.open();
  store.appendCommit({ ts: "10", nextDocId: 10_002, writes: [["10000notes", { _id: "10000notes", body: "a" }], ["10001notes", { _id: "10001notes", body: "b" }]] });
  store.appendCommit({ ts: "11", nextDocId: 10_002, writes: [["10000notes", null]], request: { sessionId: "s", requestId: 1 } });
  store.close();
  appendFileSync(path.join(dir, "wal.jsonl"), '{"type":"commit","ts":"12","writes":[["10002no');

  const reopened = new DurableStore(dir);
  const state = reopened.open();
  expect(state.ts).toBe(11n);
  expect(state.nextDocId).toBe(10_002);
  expect([...state.documents.keys()]).toEqual(["10001notes"]);
  // A commit whose result line was lost still counts as done for its request.
  expect(state.mutationResults.get("s#1")).toEqual({ committedWithoutRecordedResult: true, ts: "11" });
  // Opening serves from the log as it found it (torn tail cut) and writes no snapshot first.
  expect(existsSync(path.join(dir, SNAPSHOT_FILE))).toBe(false);
  expect(scanLogFile(path.join(dir, "wal.jsonl")).records).toBe(2);
  reopened.close();
});

test("opening writes no snapshot: the log is appended to, and folded by a background compaction once past its size", async () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const note = (n: number): [string, StoredDocument] => [`${10_000 + n}notes`, { _id: `${10_000 + n}notes`, body: `note ${n}` }];
  const first = new DurableStore(dir, { compactLogBytes: 1_000 });
  first.open();
  for (let n = 0; n < 20; n++) first.appendCommit({ ts: String(10 + n), nextDocId: 10_021, writes: [note(n)] });
  first.close();
  const logBytes = statSync(path.join(dir, "wal.jsonl")).size;
  expect(logBytes).toBeGreaterThan(1_000);

  const second = new DurableStore(dir, { compactLogBytes: 1_000 });
  const state = second.open();
  expect(state.documents.size).toBe(20);
  expect(existsSync(path.join(dir, SNAPSHOT_FILE))).toBe(false);
  expect(statSync(path.join(dir, "wal.jsonl")).size).toBe(logBytes);
  // The next commit goes after the records found, and finds the log due for compaction.
  second.appendCommit({ ts: "40", nextDocId: 10_021, writes: [note(20)] });
  await second.whenDurable();
  expect(scanLogFile(path.join(dir, "wal.jsonl")).records).toBe(21);
  expect(second.shouldCompact).toBe(true);
  state.documents.set(note(20)[0], note(20)[1]);
  await second.compactInBackground(sourceOf(state.documents, { ts: 40n, nextDocId: 10_021 }));
  expect(second.compactions).toBe(1);
  expect(readFileSync(path.join(dir, "wal.jsonl"), "utf8")).toBe("");
  second.close();
  expect([...new DurableStore(dir).open().documents.keys()]).toHaveLength(21);
});

test("a corrupt line in the middle of the log is an error, not silent data loss", () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir);
  store.open();
  store.close();
  appendFileSync(path.join(dir, "wal.jsonl"), "garbage\n" + JSON.stringify({ type: "commit", ts: "1", nextDocId: 1, writes: [] }) + "\n\n");
  expect(() => new DurableStore(dir).open()).toThrow(/Corrupt write-ahead log .* line 1/);
});

test("only the newest mutation results are kept", () => {
  const results = new Map<string, null>();
  for (let i = 0; i < MAX_RECORDED_MUTATION_RESULTS + 5; i++) results.set(`k${i}`, null);
  trimResults(results);
  expect(results.size).toBe(MAX_RECORDED_MUTATION_RESULTS);
  expect(results.has("k4")).toBe(false);
  expect(results.has("k5")).toBe(true);
});

/** A snapshot source over a plain map, as the engine's Persistence gives one. */
function sourceOf(documents: Map<string, StoredDocument>, trailer: { ts: bigint; nextDocId: number; mutationResults?: Map<string, JSONValue> }): SnapshotSource {
  return {
    *chunks() {
      for (const doc of documents.values()) yield [doc];
    },
    trailer: () => ({ mutationResults: new Map(), ...trailer }),
  };
}

test("compaction writes the state as the snapshot beside the commits; the fresh log takes what comes after", async () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir, { compactLogBytes: 1 });
  store.open();
  store.appendCommit({ ts: "5", nextDocId: 10_001, writes: [["10000notes", { _id: "10000notes", body: "old" }]] });
  expect(store.shouldCompact).toBe(true);
  const documents = new Map<string, StoredDocument>([["10001notes", { _id: "10001notes", body: "now" }]]);
  const done = store.compactInBackground(sourceOf(documents, { ts: 6n, nextDocId: 10_002, mutationResults: new Map([["s#1", { ok: true }]]) }));
  expect(store.shouldCompact).toBe(false);
  await done;
  expect(store.compactions).toBe(1);
  expect(existsSync(path.join(dir, "wal-prev.jsonl"))).toBe(false);
  expect(readFileSync(path.join(dir, "wal.jsonl"), "utf8")).toBe("");
  store.appendCommit({ ts: "7", nextDocId: 10_003, writes: [["10002notes", { _id: "10002notes", body: "after" }]] });
  store.close();
  const state = new DurableStore(dir).open();
  expect([...state.documents.keys()]).toEqual(["10001notes", "10002notes"]);
  expect(state.ts).toBe(7n);
  expect(state.mutationResults.get("s#1")).toEqual({ ok: true });
});

test.each([
  ["the snapshot is finished", false],
  ["the process crashes before the snapshot is done", true],
])("commits made while the snapshot is written go to the fresh log: nothing is lost when %s", async (_, crash) => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir, { compactLogBytes: 1 });
  store.open();
  const documents = new Map<string, StoredDocument>();
  for (let n = 0; n < 5; n++) {
    const doc = { _id: `${10_000 + n}notes`, body: `n${n}` };
    documents.set(doc._id, doc);
    store.appendCommit({ ts: String(100 + n), nextDocId: 10_001 + n, writes: [[doc._id, doc]] });
  }
  // A source read as the engine's is, live; at its third chunk commits land, then (with `crash`) the store is closed mid-snapshot, as a kill leaves it.
  let chunksRead = 0;
  const source: SnapshotSource = {
    *chunks() {
      for (const doc of documents.values()) {
        if (++chunksRead === 3) {
          // Commits land while the snapshot is half written: an update, a delete and an insert.
          store.appendCommit({ ts: "200", nextDocId: 10_006, writes: [["10000notes", { _id: "10000notes", body: "changed" }], ["10001notes", null]] });
          store.appendCommit({ ts: "201", nextDocId: 10_006, writes: [["10005notes", { _id: "10005notes", body: "new" }]] });
          documents.set("10000notes", { _id: "10000notes", body: "changed" });
          documents.delete("10001notes");
          documents.set("10005notes", { _id: "10005notes", body: "new" });
          if (crash) store.close();
        }
        yield [doc];
      }
    },
    trailer: () => ({ ts: 300n, nextDocId: 10_006, mutationResults: new Map() }),
  };
  await store.compactInBackground(source);
  expect(store.compactions).toBe(crash ? 0 : 1);
  expect(existsSync(path.join(dir, "wal-prev.jsonl"))).toBe(crash);
  store.close();
  const state = new DurableStore(dir).open();
  expect(Object.fromEntries([...state.documents].map(([id, doc]) => [id, doc.body]))).toEqual({
    "10000notes": "changed",
    "10002notes": "n2",
    "10003notes": "n3",
    "10004notes": "n4",
    "10005notes": "new",
  });
  expect(state.nextDocId).toBe(10_006);
  expect(existsSync(path.join(dir, "wal-prev.jsonl"))).toBe(false);
});

const note = (n: number) => ({ ts: String(100 + n), nextDocId: 10_000 + n + 1, writes: [[`${10_000 + n}notes`, { _id: `${10_000 + n}notes`, body: `n${n}` }]] as Array<[string, { _id: string; body: string }]> });

test("group commit: a burst of commits is made durable by a few syncs, each waiter answered once its commit is covered", async () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir);
  store.open();
  const answered: number[] = [];
  const waits: Array<Promise<void>> = [];
  for (let n = 0; n < 200; n++) {
    const seq = store.appendCommit(note(n));
    expect(seq).toBe(n + 1);
    waits.push(store.whenDurable(seq).then(() => void answered.push(seq)));
  }
  // Written at once (a reader sees every line) but not yet promised durable.
  expect(store.allDurable).toBe(false);
  expect(answered).toEqual([]);
  await Promise.all(waits);
  expect(answered).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  expect(store.allDurable).toBe(true);
  // One sync started with the first commit; the next one covered every commit written while it ran.
  expect(store.syncCount).toBeLessThanOrEqual(2);
  await store.whenDurable(); // nothing pending: resolves at once
  store.close();
  expect(new DurableStore(dir).open().documents.size).toBe(200);
});

test("lines of commits made while a sync runs wait in memory and go to the log together, in order, before the next sync", async () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir);
  store.open();
  const logText = () => readFileSync(path.join(dir, "wal.jsonl"), "utf8");
  const firstDone = store.whenDurable(store.appendCommit(note(0)));
  // No sync was running: the first line is written at once, and its sync starts.
  expect(logText().split("\n").filter(Boolean)).toHaveLength(1);
  const waits: Array<Promise<void>> = [];
  for (let n = 1; n < 50; n++) waits.push(store.whenDurable(store.appendCommit(note(n))));
  store.appendMutationResult({ request: { sessionId: "s", requestId: 7 }, response: { ok: true } });
  // Made while the sync runs: not in the file yet, and not promised durable.
  expect(logText().split("\n").filter(Boolean)).toHaveLength(1);
  await firstDone;
  await Promise.all(waits);
  const lines = logText().split("\n").filter(Boolean).map((line) => (JSON.parse(line) as { rec: { type: string; ts?: string } }).rec);
  expect(lines.map((rec) => rec.ts ?? rec.type)).toEqual([...Array.from({ length: 50 }, (_, n) => String(100 + n)), "result"]);
  // One sync for the first commit, one for the 49 queued behind it.
  expect(store.syncCount).toBe(2);
  store.close();
  const state = new DurableStore(dir).open();
  expect(state.documents.size).toBe(50);
  expect(state.mutationResults.get("s#7")).toEqual({ ok: true });
});

test("syncNow makes every written commit durable before it returns, except while a compaction writes the snapshot", async () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir, { compactLogBytes: 1 });
  const state = store.open();
  // A background sync runs for the first commit; the second waits in memory behind it.
  const first = store.appendCommit(note(0));
  store.appendCommit(note(1));
  store.syncNow();
  expect(store.allDurable).toBe(true);
  await store.whenDurable(first);
  // While a compaction writes the snapshot, the background sync covers new commits: syncNow leaves them to it.
  state.documents.set("10000notes", { _id: "10000notes", body: "n0" });
  state.documents.set("10001notes", { _id: "10001notes", body: "n1" });
  const compaction = store.compactInBackground(sourceOf(state.documents, { ts: 101n, nextDocId: 10_002 }));
  const during = store.appendCommit(note(2));
  // The engine's live state, which the compaction reads a piece at a time, has it too.
  state.documents.set("10002notes", { _id: "10002notes", body: "n2" });
  store.syncNow();
  expect(store.allDurable).toBe(false);
  await Promise.all([store.whenDurable(during), compaction]);
  expect(store.allDurable).toBe(true);
  store.close();
  expect([...new DurableStore(dir).open().documents.keys()].sort()).toEqual(["10000notes", "10001notes", "10002notes"]);
});

test("closing writes the lines still waiting for a running sync", () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir);
  store.open();
  store.appendCommit(note(0));
  store.appendCommit(note(1));
  store.appendCommit(note(2));
  store.close();
  expect([...new DurableStore(dir).open().documents.keys()]).toEqual(["10000notes", "10001notes", "10002notes"]);
});

test('sync "each" syncs every commit before appendCommit returns', () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir, { sync: "each" });
  store.open();
  for (let n = 0; n < 5; n++) {
    store.appendCommit(note(n));
    expect(store.allDurable).toBe(true);
  }
  expect(store.syncCount).toBe(5);
  store.close();
});

test("compacting or closing while a sync runs makes every written commit durable and answers its waiters", async () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir, { compactLogBytes: 1 });
  const state = store.open();
  const first = store.whenDurable(store.appendCommit(note(0)));
  const second = store.whenDurable(store.appendCommit(note(1)));
  state.documents.set("10000notes", { _id: "10000notes", body: "n0" });
  state.documents.set("10001notes", { _id: "10001notes", body: "n1" });
  const compaction = store.compactInBackground(sourceOf(state.documents, { ts: 101n, nextDocId: 10_002 }));
  await Promise.all([first, second, compaction]);
  expect(store.allDurable).toBe(true);
  const third = store.whenDurable(store.appendCommit(note(2)));
  store.close();
  await third;
  expect([...new DurableStore(dir).open().documents.keys()].sort()).toEqual(["10000notes", "10001notes", "10002notes"]);
});

test("MAESTRO_WAL_SYNC names the sync mode; anything else is refused", () => {
  expect(walSyncModeFromEnv(undefined)).toBe("group");
  expect(walSyncModeFromEnv("each")).toBe("each");
  expect(() => walSyncModeFromEnv("sometimes")).toThrow(/MAESTRO_WAL_SYNC must be "group" or "each"/);
});

test("only stored values that encode one (int64, bytes, special floats) are decoded at start", () => {
  expect(needsDecoding({ _id: "10000notes", body: "plain", n: 1.5, list: [1, "two", { three: null }], nested: { a: true, b: "c" } })).toBe(false);
  expect(needsDecoding({ big: { $integer: "AQAAAAAAAAA=" } })).toBe(true);
  expect(needsDecoding({ list: [{ deep: { $bytes: "AAE=" } }] })).toBe(true);
  expect(needsDecoding({ x: { $float: "AAAAAAAA+H8=" } })).toBe(true);
});

test("documents come back from the log after a restart with every kind of value intact", async () => {
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  const nested = { a: [1, "two", { three: 3n, four: null }], b: { c: true, d: -0.5, e: Number.NaN, f: Number.NEGATIVE_INFINITY } };
  const bytes = new Uint8Array([0, 1, 2, 250, 255]).buffer;
  const first = await startTestBackend({ dataDir });
  await new ConvexHttpClient(first.url).mutation(anyApi.values.echo, { big: -9007199254740993n, bytes, nested });
  await first.stop();
  const second = await startTestBackend({ dataDir });
  try {
    const [doc] = (await new ConvexHttpClient(second.url).query(anyApi.values.all, {})) as Array<{ big: bigint; bytes: ArrayBuffer; nested: unknown }>;
    expect(doc.big).toBe(-9007199254740993n);
    expect(new Uint8Array(doc.bytes)).toEqual(new Uint8Array(bytes));
    expect(doc.nested).toEqual(nested);
  } finally {
    await second.stop();
  }
});

test("a compaction encodes documents a slice at a time, letting the event loop run between slices, even within one big chunk", async () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir, { compactLogBytes: 1 });
  store.open();
  store.appendCommit({ ts: "1", nextDocId: 10_001, writes: [["10000notes", { _id: "10000notes", body: "a" }]] });
  await store.whenDurable();
  // Counts turns of the event loop while the compaction runs; each document notes the turn it was encoded in.
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns += 1;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const encodedAt = new Set<number>();
  const docs = Array.from({ length: 200_000 }, (_, n) => ({ _id: `${10_000 + n}notes`, toJSON: () => (encodedAt.add(turns), { _id: `${10_000 + n}notes` }) }));
  await store.compactInBackground({
    *chunks() {
      yield docs as unknown as StoredDocument[];
    },
    trailer: () => ({ ts: 1n, nextDocId: 210_000, mutationResults: new Map() }),
  });
  ticking = false;
  expect(store.compactions).toBe(1);
  expect(encodedAt.size).toBeGreaterThan(1);
  expect(store.longestCompactionSliceMs).toBeGreaterThan(0);
  store.close();
  expect(new DurableStore(dir).open().documents.size).toBe(200_000);
});
