/**
 * Durable storage for the offline backend: a snapshot of every document plus
 * a write-ahead log with one fsynced line per committed transaction. A write
 * is acknowledged to a client only after its log line is on disk, so it
 * survives `kill -9`; on open the log is replayed over the snapshot and
 * folded into a fresh one.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import type { JSONValue } from "convex/values";

/** One document as stored: `convexToJson` of the document, with `_id` inside. */
export type StoredDocument = { _id: string } & Record<string, JSONValue>;

export interface CommitRecord {
  /** Commit timestamp, nanoseconds, as a decimal string. */
  ts: string;
  nextDocId: number;
  /** Document id → its new value, or null when deleted. */
  writes: Array<[string, StoredDocument | null]>;
  /** The client request this commit answers, so a re-sent mutation is not run twice. */
  request?: MutationRequestKey;
}

export interface MutationRequestKey {
  sessionId: string;
  requestId: number;
}

export interface RecordedMutationResult {
  request: MutationRequestKey;
  /** The response sent to the client (success with value and ts, or failure). */
  response: JSONValue;
}

export interface StoredState {
  ts: bigint;
  nextDocId: number;
  documents: Map<string, StoredDocument>;
  mutationResults: Map<string, JSONValue>;
}

interface SnapshotFile {
  format: 1;
  ts: string;
  nextDocId: number;
  documents: StoredDocument[];
  mutationResults: Array<[string, JSONValue]>;
}

type LogLine = ({ type: "commit" } & CommitRecord) | ({ type: "result" } & RecordedMutationResult);

/** Log size past which the next commit folds the log into a fresh snapshot. */
export const COMPACT_LOG_BYTES = 64 * 1024 * 1024;

/** How many mutation results are kept for de-duplicating re-sent requests. */
export const MAX_RECORDED_MUTATION_RESULTS = 10_000;

export function mutationRequestKey({ sessionId, requestId }: MutationRequestKey): string {
  return `${sessionId}#${requestId}`;
}

export class DurableStore {
  private logFd: number | null = null;
  private logBytes = 0;
  private readonly snapshotPath: string;
  private readonly logPath: string;

  constructor(private readonly dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.snapshotPath = path.join(dataDir, "snapshot.json");
    this.logPath = path.join(dataDir, "wal.jsonl");
  }

  /** Reads snapshot + log, then compacts them into a new snapshot and an empty log. */
  open(): StoredState {
    const state: StoredState = {
      ts: 0n,
      nextDocId: 10_000,
      documents: new Map(),
      mutationResults: new Map(),
    };
    if (existsSync(this.snapshotPath)) {
      const snapshot = JSON.parse(readFileSync(this.snapshotPath, "utf8")) as SnapshotFile;
      state.ts = BigInt(snapshot.ts);
      state.nextDocId = snapshot.nextDocId;
      for (const doc of snapshot.documents) state.documents.set(doc._id, doc);
      for (const [key, response] of snapshot.mutationResults) state.mutationResults.set(key, response);
    }
    if (existsSync(this.logPath)) {
      const lines = readFileSync(this.logPath, "utf8").split("\n");
      for (const [index, line] of lines.entries()) {
        if (line.trim() === "") continue;
        let entry: LogLine;
        try {
          entry = JSON.parse(line) as LogLine;
        } catch (error) {
          // Only the very last line can be torn by a crash mid-write; it was never acknowledged.
          if (index >= lines.length - 2) break;
          throw new Error(`Corrupt write-ahead log ${this.logPath} at line ${index + 1}: ${String(error)}`);
        }
        applyLogLine(state, entry);
      }
    }
    trimResults(state.mutationResults);
    this.writeSnapshot(state);
    this.logFd = openSync(this.logPath, "w");
    fsyncSync(this.logFd);
    return state;
  }

  /** Appends a commit and waits for the disk; call before acknowledging the write. */
  appendCommit(record: CommitRecord): void {
    this.append({ type: "commit", ...record });
  }

  /** True once the log is big enough that `compact` should run. */
  get shouldCompact(): boolean {
    return this.logBytes >= COMPACT_LOG_BYTES;
  }

  /** Writes the whole current state as the snapshot, then starts an empty log. */
  compact(state: StoredState): void {
    this.writeSnapshot(state);
    if (this.logFd !== null) closeSync(this.logFd);
    this.logFd = openSync(this.logPath, "w");
    fsyncSync(this.logFd);
    this.logBytes = 0;
  }

  /**
   * Records a mutation's response without waiting for the disk: its commit
   * line (already synced) names the request, so after a crash the request
   * still counts as done, answered with a null result.
   */
  appendMutationResult(result: RecordedMutationResult): void {
    this.append({ type: "result", ...result }, false);
  }

  close(): void {
    if (this.logFd !== null) closeSync(this.logFd);
    this.logFd = null;
  }

  private append(line: LogLine, sync = true): void {
    if (this.logFd === null) throw new Error("DurableStore is not open");
    this.logBytes += writeSync(this.logFd, JSON.stringify(line) + "\n");
    if (sync) fdatasyncSync(this.logFd);
  }

  private writeSnapshot(state: StoredState): void {
    const snapshot: SnapshotFile = {
      format: 1,
      ts: state.ts.toString(),
      nextDocId: state.nextDocId,
      documents: [...state.documents.values()],
      mutationResults: [...state.mutationResults.entries()],
    };
    const tmp = `${this.snapshotPath}.tmp`;
    const fd = openSync(tmp, "w");
    writeSync(fd, JSON.stringify(snapshot));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.snapshotPath);
    const dirFd = openSync(this.dataDir, "r");
    fsyncSync(dirFd);
    closeSync(dirFd);
  }
}

function applyLogLine(state: StoredState, entry: LogLine): void {
  if (entry.type === "result") {
    state.mutationResults.set(mutationRequestKey(entry.request), entry.response);
    return;
  }
  const ts = BigInt(entry.ts);
  if (ts > state.ts) state.ts = ts;
  state.nextDocId = Math.max(state.nextDocId, entry.nextDocId);
  for (const [id, doc] of entry.writes) {
    if (doc === null) state.documents.delete(id);
    else state.documents.set(id, doc);
  }
  if (entry.request !== undefined) {
    const key = mutationRequestKey(entry.request);
    // Committed but its result line was lost in a crash: still never run it twice.
    if (!state.mutationResults.has(key)) {
      state.mutationResults.set(key, { committedWithoutRecordedResult: true, ts: entry.ts });
    }
  }
}

/** Keeps the newest results (Maps iterate in insertion order). */
export function trimResults(results: Map<string, JSONValue>): void {
  const excess = results.size - MAX_RECORDED_MUTATION_RESULTS;
  if (excess <= 0) return;
  let dropped = 0;
  for (const key of results.keys()) {
    if (dropped++ >= excess) break;
    results.delete(key);
  }
}
