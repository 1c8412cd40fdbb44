import { appendFileSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { DurableStore, MAX_RECORDED_MUTATION_RESULTS, trimResults, walSyncModeFromEnv } from "../../tools/local-backend/storage";
import { tempDataDir } from "./helpers";

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
  // Opening folds the log into the snapshot and starts an empty log.
  expect(readFileSync(path.join(dir, "wal.jsonl"), "utf8")).toBe("");
  reopened.close();
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

test("compaction writes the current state as the snapshot and empties the log", () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new DurableStore(dir);
  store.open();
  store.appendCommit({ ts: "5", nextDocId: 10_001, writes: [["10000notes", { _id: "10000notes", body: "old" }]] });
  expect(store.shouldCompact).toBe(false);
  store.compact({
    ts: 6n,
    nextDocId: 10_002,
    documents: new Map([["10001notes", { _id: "10001notes", body: "now" }]]),
    mutationResults: new Map([["s#1", { ok: true }]]),
  });
  expect(readFileSync(path.join(dir, "wal.jsonl"), "utf8")).toBe("");
  store.appendCommit({ ts: "7", nextDocId: 10_003, writes: [["10002notes", { _id: "10002notes", body: "after" }]] });
  store.close();
  const state = new DurableStore(dir).open();
  expect([...state.documents.keys()]).toEqual(["10001notes", "10002notes"]);
  expect(state.ts).toBe(7n);
  expect(state.mutationResults.get("s#1")).toEqual({ ok: true });
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
  const store = new DurableStore(dir);
  const state = store.open();
  const first = store.whenDurable(store.appendCommit(note(0)));
  const second = store.whenDurable(store.appendCommit(note(1)));
  state.documents.set("10000notes", { _id: "10000notes", body: "n0" });
  state.documents.set("10001notes", { _id: "10001notes", body: "n1" });
  store.compact({ ...state, ts: 101n, nextDocId: 10_002 });
  expect(store.allDurable).toBe(true);
  await Promise.all([first, second]);
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
