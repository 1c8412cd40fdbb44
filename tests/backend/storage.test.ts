import { appendFileSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { DurableStore, MAX_RECORDED_MUTATION_RESULTS, trimResults } from "../../tools/local-backend/storage";
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
