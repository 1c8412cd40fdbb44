/**
 * Durable storage for the offline backend: a snapshot of every document plus
 * a write-ahead log with one line per committed transaction. A write is
 * acknowledged to a client only after its log line is on disk, so it
 * survives `kill -9`; on open the log is replayed over the snapshot and
 * folded into a fresh one.
 *
 * Group commit: lines go to the log in commit order, and one `fdatasync`
 * makes every line written before it durable. While a sync runs, new commits
 * go on and their lines wait in memory; when it returns, they are written
 * with one system call and the next sync covers all of them. So the disk is
 * what waits, never the engine, and a burst of N commits costs about two
 * writes and two syncs, not N of each. With no sync running a line is
 * written at once. `whenDurable` tells a caller when its commit is covered.
 *
 * Compaction runs beside the commits, never inside one: once the log passes
 * its size the file is renamed `wal-prev.jsonl` and a fresh log takes the
 * next commits (swapped in when a sync returns, so each file's lines are
 * synced by that file's syncs). The snapshot is then written a slice of
 * documents at a time, pausing between slices, each as it is then: a
 * "fuzzy" snapshot, exact once the fresh log is replayed over it, because
 * every log record holds whole documents and every commit since the swap is
 * in that log. Only when the snapshot is on disk is `wal-prev.jsonl`
 * removed; a crash before leaves it to be replayed at start, before the log.
 *
 * The snapshot (snapshot.ts) holds one record per line, written and read a
 * bounded piece at a time, so its size is not bounded by V8's longest
 * string; a folder with a snapshot of the first format is read and its
 * snapshot written again in the current one before serving.
 *
 * Start-up reads the snapshot, replays the log over it and serves: the log
 * is kept and appended to, not folded into a fresh snapshot first (writing
 * every document before serving took seconds at 100,000s of documents); a
 * log past its size is folded by the background compaction above. Only a
 * compaction cut short by a crash (a `wal-prev.jsonl` left) is folded
 * before serving, since the next swap needs that name.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  fdatasync,
  fdatasyncSync,
  fsync as fsyncFd,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  open as openFd,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { open as openFile, rename as renameFile, unlink as unlinkFile } from "node:fs/promises";
import { promisify } from "node:util";
import path from "node:path";
import { setTimeout as pause } from "node:timers/promises";
import { crc32 } from "node:zlib";
import type { JSONValue } from "convex/values";
import {
  documentLine,
  endLine,
  forEachLine,
  LEGACY_SNAPSHOT_FILE,
  readLegacySnapshot,
  readSnapshot,
  resultLine,
  SNAPSHOT_FILE,
  SNAPSHOT_HEADER,
  SnapshotFormatError,
  type StoredDocument,
} from "./snapshot.js";

export type { StoredDocument } from "./snapshot.js";

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

export type LogLine = ({ type: "commit" } & CommitRecord) | ({ type: "result" } & RecordedMutationResult);

/** Log size past which the next commit starts folding the log into a fresh snapshot. */
export const COMPACT_LOG_BYTES = 64 * 1024 * 1024;

/** The log size that starts compaction: MAESTRO_COMPACT_LOG_BYTES (for tests and benchmarks), else COMPACT_LOG_BYTES. */
export function compactLogBytesFromEnv(value = process.env.MAESTRO_COMPACT_LOG_BYTES): number {
  if (value === undefined || value === "") return COMPACT_LOG_BYTES;
  const bytes = Number(value);
  if (!Number.isInteger(bytes) || bytes < 1) throw new Error(`MAESTRO_COMPACT_LOG_BYTES must be a positive whole number of bytes, not ${JSON.stringify(value)}.`);
  return bytes;
}

/**
 * Milliseconds each background sync takes longer than the disk's own time:
 * MAESTRO_WAL_SYNC_DELAY_MS, a slow disk for tests (commits meanwhile wait
 * in memory, as behind a slow fsync), else none.
 */
export function syncDelayMsFromEnv(value = process.env.MAESTRO_WAL_SYNC_DELAY_MS): number {
  if (value === undefined || value === "") return 0;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`MAESTRO_WAL_SYNC_DELAY_MS must be a whole number of milliseconds, not ${JSON.stringify(value)}.`);
  return ms;
}

/**
 * What a background compaction writes: documents a chunk at a time (one
 * slice of SNAPSHOT_SLICE_MS, pausing between them, so commits go on), then
 * what the snapshot records beside them, read once the last chunk is out.
 */
export interface SnapshotSource {
  chunks(): Iterable<StoredDocument[]>;
  trailer(): { ts: bigint; nextDocId: number; mutationResults: Map<string, JSONValue> };
}

/**
 * How long a compaction encodes documents before it lets the commits run
 * (ms): a commit that arrives meanwhile waits at most about this long.
 */
export const SNAPSHOT_SLICE_MS = 2;

/**
 * How long a compaction leaves the event loop to the commits after each
 * slice (ms). Yielding for one turn only (setImmediate) kept the loop busy:
 * every step of a request (read, run, sync, reply) then waited behind a
 * slice, and an empty mutation's p50 went from 0.9 to 22.5 ms during a
 * compaction at bench:restart's size on a busy machine.
 */
export const SNAPSHOT_PAUSE_MS = 2;

/** Bytes of snapshot lines a compaction gathers, outside V8's heap, before it writes them (and at the end of each slice). */
const SNAPSHOT_BUFFER_BYTES = 1024 * 1024;

/** Characters a snapshot written at start-up (not beside commits) gathers before each write. */
const SNAPSHOT_WRITE_CHARS = 4 * 1024 * 1024;

/** How many mutation results are kept for de-duplicating re-sent requests. */
export const MAX_RECORDED_MUTATION_RESULTS = 10_000;

export function mutationRequestKey({ sessionId, requestId }: MutationRequestKey): string {
  return `${sessionId}#${requestId}`;
}

/** Modes for the data folder and every file in it: they hold the admin key, the signing secret and all data. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Start-up found a damaged record with good records after it: not a torn write, so nothing is dropped silently. */
export class WalCorruptError extends Error {}

export interface DurableStoreOptions {
  /** Where recovery warnings go; defaults to stderr. */
  log?: (line: string) => void;
  /** Where what a compaction did goes (the server's log); by default nowhere. */
  info?: (line: string) => void;
  /**
   * "group" (default): syncs run in the background, one covering every line
   * written before it (see the top of this file). "each": every commit
   * syncs on its own before `appendCommit` returns, blocking the process —
   * the old way, kept to measure against (MAESTRO_WAL_SYNC=each).
   */
  sync?: WalSyncMode;
  /** Log size that starts a compaction (default: compactLogBytesFromEnv()). */
  compactLogBytes?: number;
  /** Extra milliseconds per background sync, a slow disk for tests (default: syncDelayMsFromEnv()). */
  syncDelayMs?: number;
}

export type WalSyncMode = "group" | "each";

/** The sync mode named by MAESTRO_WAL_SYNC ("group" when unset); anything else is refused. */
export function walSyncModeFromEnv(value = process.env.MAESTRO_WAL_SYNC): WalSyncMode {
  if (value === undefined || value === "" || value === "group") return "group";
  if (value === "each") return "each";
  throw new Error(`MAESTRO_WAL_SYNC must be "group" or "each", not ${JSON.stringify(value)}.`);
}

interface DurabilityWaiter {
  seq: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class DurableStore {
  private logFd: number | null = null;
  private logBytes = 0;
  readonly syncMode: WalSyncMode;
  /** Commits written to the log so far, and how many of them a finished sync covers. */
  private appendedSeq = 0;
  private durableSeq = 0;
  private syncInFlight = false;
  /** Lines encoded while a sync runs, written together when it returns. */
  private queued: string[] = [];
  /** Waiting for `durableSeq` to reach their `seq`, in ascending order. */
  private waiters: DurabilityWaiter[] = [];
  /** A failed sync: nothing written since can be promised durable. */
  private syncFailure: Error | null = null;
  /** Syncs run: for tests and benchmarks (fewer than commits when grouped). */
  syncCount = 0;
  /** Compactions finished since open: for tests and benchmarks. */
  compactions = 0;
  /** The longest a compaction held the event loop in one piece (ms): what it can add to a commit waiting behind it. */
  longestCompactionSliceMs = 0;
  private readonly snapshotPath: string;
  /** A snapshot of the first format, read (and then replaced) at start. */
  private readonly legacySnapshotPath: string;
  private readonly logPath: string;
  /** The log before the running compaction's swap (see the top of this file). */
  private readonly prevLogPath: string;
  private readonly log: (line: string) => void;
  private readonly info: (line: string) => void;
  private readonly compactLogBytes: number;
  private readonly syncDelayMs: number;
  /** The running background compaction, if any. */
  private compacting: Promise<void> | null = null;
  /** A compaction that failed leaves `wal-prev.jsonl` for the next start to replay: no other starts before then. */
  private compactionFailed = false;
  /** A fresh log waiting to take over from the current one when its sync returns. */
  private pendingSwap: ((closing: boolean) => void) | null = null;
  private closed = false;

  constructor(
    private readonly dataDir: string,
    options: DurableStoreOptions = {},
  ) {
    this.log = options.log ?? ((line) => console.warn(`[backend] ${line}`));
    this.info = options.info ?? (() => {});
    this.syncMode = options.sync ?? "group";
    secureDataDir(dataDir);
    this.snapshotPath = path.join(dataDir, SNAPSHOT_FILE);
    this.legacySnapshotPath = path.join(dataDir, LEGACY_SNAPSHOT_FILE);
    this.logPath = path.join(dataDir, "wal.jsonl");
    this.prevLogPath = path.join(dataDir, "wal-prev.jsonl");
    this.compactLogBytes = options.compactLogBytes ?? compactLogBytesFromEnv();
    this.syncDelayMs = options.syncDelayMs ?? syncDelayMsFromEnv();
  }

  /**
   * Reads snapshot + log, and keeps appending to the log (see the top of
   * this file); after a compaction cut short, folds both logs into a new
   * snapshot and an empty log first, and a snapshot of the first format is
   * written again in the current one.
   */
  open(): StoredState {
    const state: StoredState = {
      ts: 0n,
      nextDocId: 10_000,
      documents: new Map(),
      mutationResults: new Map(),
    };
    // A crash after the current format's snapshot was renamed in but before the old one went leaves both: the newer wins.
    const legacy = !existsSync(this.snapshotPath) && existsSync(this.legacySnapshotPath);
    if (!legacy && existsSync(this.legacySnapshotPath)) this.removeLegacySnapshot();
    this.readSnapshotInto(state, legacy);
    // A compaction cut short: the log before its swap, then the log after it.
    for (const logPath of [this.prevLogPath, this.logPath]) {
      if (existsSync(logPath)) this.replayLog(logPath, state);
    }
    trimResults(state.mutationResults);
    if (existsSync(this.prevLogPath)) {
      this.writeSnapshot(state);
      // The snapshot holds what wal-prev.jsonl held; it goes before the log is emptied (replaying it before the log is harmless).
      unlinkSync(this.prevLogPath);
      syncDir(this.dataDir);
      this.startEmptyLog();
    } else {
      // A first-format snapshot is written again in this one; the log is kept (replaying it over what it is already in is harmless).
      if (legacy) this.writeSnapshot(state);
      this.continueLog();
    }
    return state;
  }

  private readSnapshotInto(state: StoredState, legacy: boolean): void {
    const file = legacy ? this.legacySnapshotPath : this.snapshotPath;
    if (!existsSync(file)) return;
    try {
      if (legacy) {
        const read = readLegacySnapshot(file, (doc) => state.documents.set(doc._id, doc));
        state.ts = read.ts;
        state.nextDocId = read.nextDocId;
        for (const [key, response] of read.mutationResults) state.mutationResults.set(key, response);
      } else {
        const end = readSnapshot(file, {
          document: (doc) => state.documents.set(doc._id, doc),
          result: (key, response) => state.mutationResults.set(key, response),
        });
        state.ts = end.ts;
        state.nextDocId = end.nextDocId;
      }
    } catch (error) {
      // Written to a temporary file and renamed, so a crash never leaves half a snapshot: this is damage.
      if (!(error instanceof SnapshotFormatError) && !(error instanceof SyntaxError)) throw error;
      throw new WalCorruptError(`Unreadable snapshot ${file}: ${error.message}`);
    }
  }

  /** Opens the log to append after its records (a torn tail was cut by the replay), or starts an empty one. */
  private continueLog(): void {
    if (!existsSync(this.logPath)) {
      this.startEmptyLog();
      return;
    }
    this.logFd = openSync(this.logPath, "a", FILE_MODE);
    // What was replayed is served from now on: on disk first, even if the crash came before its sync.
    fdatasyncSync(this.logFd);
    this.logBytes = fstatSync(this.logFd).size;
  }

  private replayLog(logPath: string, state: StoredState): void {
    // Each record is applied as it is read: a record a later one replaces is garbage at once.
    const scan = scanLogFile(logPath, (entry) => applyLogLine(state, entry));
    if (scan.corrupt !== null) throw new WalCorruptError(corruptMessage(logPath, this.dataDir, scan));
    if (scan.tornRecords > 0) {
      // Only a crash mid-write leaves a bad tail, and that write was never acknowledged (it was not yet synced).
      this.log(
        `Write-ahead log ${logPath}: dropped ${scan.tornRecords} torn record(s) at the end ` +
          `(${scan.size - scan.goodBytes} bytes from byte offset ${scan.goodBytes}), left by a crash mid-write; ` +
          `${scan.records} record(s) before it kept.`,
      );
      const fd = openSync(logPath, "r+");
      ftruncateSync(fd, scan.goodBytes);
      fsyncSync(fd);
      closeSync(fd);
    }
  }

  /**
   * Writes a commit's line to the log and returns its sequence number; it is
   * durable once `whenDurable(seq)` resolves (at once in "each" mode). Call
   * that before acknowledging the write.
   */
  appendCommit(record: CommitRecord): number {
    this.write({ type: "commit", ...record });
    this.appendedSeq += 1;
    if (this.syncMode === "each") {
      this.syncCount += 1;
      fdatasyncSync(this.logFd!);
      this.markDurable(this.appendedSeq);
    } else {
      this.startSync();
    }
    return this.appendedSeq;
  }

  /**
   * Makes every commit written so far durable before it returns, on this
   * thread; a background sync may be running too, and each covers what was
   * written before it began. For a caller about to tell clients of those
   * commits: the end of a background sync is seen only when the event loop
   * next gets a turn, and the promises of a busy action kept it from one
   * for 8-18 ms while a mention's delegated tasks waited to be sent. Not
   * while a compaction writes the snapshot: a sync then can wait for the
   * file system to write the snapshot's pages out too (ext4 commits its
   * journal with them), and the loop would wait with it (a commit stalled
   * 168 ms once at full size); the background sync covers them then.
   */
  syncNow(): void {
    if (this.compacting === null) this.syncHere();
  }

  /** Writes the queued lines and syncs the log on this thread, answering every waiter. */
  private syncHere(): void {
    if (this.logFd === null || this.syncFailure !== null) return;
    try {
      this.writeQueued();
      if (this.allDurable) return;
      this.syncCount += 1;
      fdatasyncSync(this.logFd);
    } catch (error) {
      this.failSyncs(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.markDurable(this.appendedSeq);
  }

  /** Sequence number of the latest commit written. */
  get lastSeq(): number {
    return this.appendedSeq;
  }

  /** True when every commit written so far is on disk. */
  get allDurable(): boolean {
    return this.durableSeq >= this.appendedSeq;
  }

  /**
   * Resolves once commit `seq` (default: every commit written so far) is on
   * disk; rejects if a sync failed, since then it may never be.
   */
  whenDurable(seq = this.appendedSeq): Promise<void> {
    if (this.syncFailure !== null) return Promise.reject(this.syncFailure);
    if (seq <= this.durableSeq) return Promise.resolve();
    return new Promise((resolve, reject) => {
      // Sequence numbers are asked for in (nearly) ascending order: insert from the end.
      let at = this.waiters.length;
      while (at > 0 && this.waiters[at - 1].seq > seq) at--;
      this.waiters.splice(at, 0, { seq, resolve, reject });
    });
  }

  /** True once the log is big enough that a compaction should start, and none runs. */
  get shouldCompact(): boolean {
    return this.compacting === null && !this.compactionFailed && !this.closed && this.logBytes >= this.compactLogBytes;
  }

  /**
   * Folds the log into a fresh snapshot beside the commits (see the top of
   * this file); resolves when done. Nothing here runs inside a commit: the
   * caller returns at once, and `source` is read a chunk per turn.
   */
  compactInBackground(source: SnapshotSource): Promise<void> {
    this.compacting ??= this.compact(source)
      .catch((error: unknown) => {
        this.compactionFailed = true;
        this.log(`Compaction failed (${error instanceof Error ? error.message : String(error)}); the log keeps growing until the next start folds it.`);
      })
      .finally(() => {
        this.compacting = null;
      });
    return this.compacting;
  }

  private async compact(source: SnapshotSource): Promise<void> {
    if (!(await this.swapLog())) return;
    const began = performance.now();
    let documents = 0;
    let results = 0;
    let longestSlice = 0;
    let longestSliceCpu = 0;
    const tmp = `${this.snapshotPath}.tmp`;
    const file = await openFile(tmp, "w", FILE_MODE);
    // Lines are encoded into one reused buffer outside V8's heap, not gathered and joined into a string per slice:
    // a slice's string (hundreds of kB) went to V8's large-object space, so each compaction put the whole snapshot's
    // size through the old generation, which V8 answered by reserving more heap after every compaction.
    const buffer = Buffer.allocUnsafe(SNAPSHOT_BUFFER_BYTES);
    let filled = 0;
    /** Adds a line to the buffer; false when it does not fit (the buffer is written first, or the line on its own). */
    const put = (line: string): boolean => {
      if (filled + Buffer.byteLength(line) > buffer.length) return false;
      filled += buffer.write(line, filled);
      return true;
    };
    const flush = async () => {
      if (filled === 0) return;
      const length = filled;
      filled = 0;
      let offset = 0;
      while (offset < length) offset += (await file.write(buffer, offset, length - offset)).bytesWritten;
    };
    const add = async (line: string) => {
      if (put(line)) return;
      await flush();
      if (!put(line)) await file.write(line);
    };
    try {
      await file.write(SNAPSHOT_HEADER);
      let sliceStart = performance.now();
      let sliceCpu = process.cpuUsage();
      // A slice's wall time includes waiting for a core on a busy machine; its CPU time is the work it did without yielding.
      const noteSlice = () => {
        longestSlice = Math.max(longestSlice, performance.now() - sliceStart);
        const cpu = process.cpuUsage(sliceCpu);
        longestSliceCpu = Math.max(longestSliceCpu, (cpu.user + cpu.system) / 1000);
      };
      // Lines are encoded for at most SNAPSHOT_SLICE_MS at a time, then written while commits and their syncs run.
      const sliceDue = () => performance.now() - sliceStart >= SNAPSHOT_SLICE_MS;
      const endSlice = async () => {
        noteSlice();
        await flush();
        await pause(SNAPSHOT_PAUSE_MS);
        sliceStart = performance.now();
        sliceCpu = process.cpuUsage();
      };
      for (const chunk of source.chunks()) {
        if (this.closed) return;
        for (const doc of chunk) {
          const line = documentLine(doc);
          if (!put(line)) await add(line);
          documents += 1;
          if (sliceDue()) {
            await endSlice();
            if (this.closed) return;
          }
        }
      }
      // Read after the last document: ts and the id counter cover every document written. Results recorded from
      // here on are in the fresh log too; a Map's iterator survives them (and the trimming of the oldest).
      const { ts, nextDocId, mutationResults } = source.trailer();
      for (const [key, response] of mutationResults) {
        const line = resultLine(key, response);
        if (!put(line)) await add(line);
        results += 1;
        if (sliceDue()) {
          await endSlice();
          if (this.closed) return;
        }
      }
      await add(endLine({ ts, nextDocId, documents, results }));
      await endSlice();
      if (this.closed) return;
      await file.sync();
    } finally {
      await file.close();
    }
    if (this.closed) return;
    await renameFile(tmp, this.snapshotPath);
    await syncDirInBackground(this.dataDir);
    await unlinkFile(this.prevLogPath);
    await syncDirInBackground(this.dataDir);
    this.compactions += 1;
    this.longestCompactionSliceMs = Math.max(this.longestCompactionSliceMs, longestSlice);
    this.info(
      `Compaction: ${documents} documents folded into the snapshot in ${((performance.now() - began) / 1000).toFixed(1)} s; ` +
        `the longest it held the event loop was ${longestSlice.toFixed(1)} ms (${longestSliceCpu.toFixed(1)} ms of CPU).`,
    );
  }

  /**
   * Renames the log `wal-prev.jsonl` (its open file keeps taking lines) and
   * opens a fresh log, which takes over once every line of the old one is
   * synced: at once when no sync runs, else when the running one returns.
   * False when the store closed meanwhile (the old file then holds every line).
   */
  private async swapLog(): Promise<boolean> {
    await renameFile(this.logPath, this.prevLogPath);
    await syncDirInBackground(this.dataDir);
    // A plain descriptor, not a FileHandle: a FileHandle closes its descriptor when collected, and the number is reused.
    const fd = await promisify(openFd)(this.logPath, "w", FILE_MODE);
    await promisify(fsyncFd)(fd);
    await syncDirInBackground(this.dataDir);
    const swapped = await new Promise<boolean>((resolve) => {
      this.pendingSwap = (closing) => {
        this.pendingSwap = null;
        if (!closing) {
          if (this.logFd !== null) closeSync(this.logFd);
          this.logFd = fd;
          this.logBytes = 0;
        }
        resolve(!closing);
      };
      if (this.closed) this.pendingSwap(true);
      else if (!this.syncInFlight && this.allDurable) this.pendingSwap(false);
    });
    if (!swapped) closeSync(fd);
    return swapped;
  }

  /**
   * Records a mutation's response without waiting for the disk: its commit
   * line (already synced) names the request, so after a crash the request
   * still counts as done, answered with a null result.
   */
  appendMutationResult(result: RecordedMutationResult): void {
    this.write({ type: "result", ...result });
  }

  /** Syncs what is written (so every waiter is answered), then closes the log. */
  close(): void {
    if (this.logFd === null) return;
    this.closed = true;
    // A fresh log not yet swapped in stays empty: the old file (wal-prev.jsonl) takes every line.
    this.pendingSwap?.(true);
    this.syncHere();
    this.retireLog();
    this.logFd = null;
  }

  private startEmptyLog(): void {
    this.logFd = openSync(this.logPath, "w", FILE_MODE);
    fsyncSync(this.logFd);
    // The log may have just been created: its directory entry must be durable before any commit is acknowledged.
    syncDir(this.dataDir);
    this.logBytes = 0;
  }

  /** Closes the current log file, or leaves that to the sync running on it. */
  private retireLog(): void {
    if (this.logFd !== null && !this.syncInFlight) closeSync(this.logFd);
  }

  private write(line: LogLine): void {
    if (this.logFd === null) throw new Error("DurableStore is not open");
    if (this.syncFailure !== null) throw this.syncFailure;
    const text = encodeLogLine(line);
    if (this.syncInFlight) {
      this.queued.push(text);
      this.logBytes += Buffer.byteLength(text);
    } else {
      this.logBytes += writeAll(this.logFd, text);
    }
  }

  /** Writes the lines queued during a sync, in order, with one system call. */
  private writeQueued(): void {
    if (this.queued.length === 0 || this.logFd === null) return;
    const text = this.queued.length === 1 ? this.queued[0] : this.queued.join("");
    this.queued = [];
    writeAll(this.logFd, text);
  }

  /** Starts one background sync covering every line written so far, unless one is running (it restarts itself). */
  private startSync(): void {
    if (this.syncInFlight || this.logFd === null || this.syncFailure !== null) return;
    try {
      this.writeQueued();
    } catch (error) {
      // A failed write (disk full) leaves the queued commits unwritten: none may be promised durable.
      this.failSyncs(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.allDurable) return;
    const fd = this.logFd;
    const covers = this.appendedSeq;
    this.syncInFlight = true;
    this.syncCount += 1;
    const synced = (error: NodeJS.ErrnoException | null) => {
      this.syncInFlight = false;
      if (fd !== this.logFd) {
        // Close replaced this file while the sync ran, after syncing everything itself.
        closeSync(fd);
        this.startSync();
        return;
      }
      if (error !== null) {
        this.failSyncs(error);
        return;
      }
      this.markDurable(covers);
      // Every line of this file is synced now (lines written meanwhile are still queued): a fresh log may take over.
      this.pendingSwap?.(false);
      // The next group: everything written while this sync ran.
      this.startSync();
    };
    fdatasync(fd, this.syncDelayMs === 0 ? synced : (error) => setTimeout(() => synced(error), this.syncDelayMs));
  }

  private markDurable(seq: number): void {
    if (seq > this.durableSeq) this.durableSeq = seq;
    let done = 0;
    while (done < this.waiters.length && this.waiters[done].seq <= this.durableSeq) done++;
    if (done === 0) return;
    for (const waiter of this.waiters.splice(0, done)) waiter.resolve();
  }

  private failSyncs(error: Error): void {
    this.syncFailure = new Error(`Write-ahead log sync failed (${error.message}); writes since the last good sync are not durable.`);
    this.log(this.syncFailure.message);
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.syncFailure);
  }

  /** Writes `state` as the snapshot at start-up (nothing else runs then), a bounded piece at a time. */
  private writeSnapshot(state: StoredState): void {
    const tmp = `${this.snapshotPath}.tmp`;
    const fd = openSync(tmp, "w", FILE_MODE);
    try {
      let pending = SNAPSHOT_HEADER;
      const add = (line: string) => {
        pending += line;
        if (pending.length < SNAPSHOT_WRITE_CHARS) return;
        writeAll(fd, pending);
        pending = "";
      };
      for (const doc of state.documents.values()) add(documentLine(doc));
      for (const [key, response] of state.mutationResults) add(resultLine(key, response));
      add(endLine({ ts: state.ts, nextDocId: state.nextDocId, documents: state.documents.size, results: state.mutationResults.size }));
      writeAll(fd, pending);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.snapshotPath);
    syncDir(this.dataDir);
    this.removeLegacySnapshot();
  }

  /** Removes a first-format snapshot once a snapshot of this format holds at least what it held. */
  private removeLegacySnapshot(): void {
    if (!existsSync(this.legacySnapshotPath)) return;
    unlinkSync(this.legacySnapshotPath);
    syncDir(this.dataDir);
  }
}

/** Creates the data folder owner-only, and takes group/other access away from anything already in it. */
export function secureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  chmodSync(dataDir, DIR_MODE);
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (entry.isFile()) chmodSync(path.join(dataDir, entry.name), FILE_MODE);
  }
}

/*
 * Each log line is `{"crc":"<8 hex>","rec":<record JSON>}`, the CRC32 taken
 * over the record's exact bytes as written, so a damaged line is told apart
 * from a good one without re-serialising. Lines written before checksums
 * (a bare record) still load.
 */
const CHECKED_LINE = /^\{"crc":"([0-9a-f]{8})","rec":(.*)\}$/s;

export function encodeLogLine(line: LogLine): string {
  const record = JSON.stringify(line);
  return `{"crc":"${checksum(record)}","rec":${record}}\n`;
}

function checksum(text: string): string {
  // zlib's crc32 reads a string as its UTF-8 bytes.
  return crc32(text).toString(16).padStart(8, "0");
}

/** The record a line holds, or why it holds none. */
function decodeLogLine(text: string): { entry: LogLine } | { error: string } {
  let raw = text;
  const checked = CHECKED_LINE.exec(text);
  if (checked !== null) {
    raw = checked[2];
    if (checksum(raw) !== checked[1]) return { error: "checksum mismatch" };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { error: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (type !== "commit" && type !== "result") return { error: "not a log record" };
  return { entry: value as LogLine };
}

export interface LogScan {
  /** How many good records come before the first bad one (those `scanLogFile` hands over). */
  records: number;
  /** Bytes of the file up to and including the last good record: where a torn tail is cut. */
  goodBytes: number;
  size: number;
  /** Bad records at the very end, with no good record after them. */
  tornRecords: number;
  /** The first bad record when good records follow it. */
  corrupt: { offset: number; line: number; reason: string; recordsBefore: number; recordsAfter: number } | null;
}

/**
 * Reads a log record by record, a bounded piece at a time (the log is not
 * in memory whole: a 64 MB log and every record parsed from it were held at
 * once before), handing each good record before the first bad one to
 * `record`, and tells a crash's torn tail from damage in the middle. With
 * damage, records were already handed over: the caller refuses to start.
 */
export function scanLogFile(filePath: string, record: (entry: LogLine) => void = () => {}): LogScan {
  let records = 0;
  let goodBytes = 0;
  let size = 0;
  let firstBad = null as { offset: number; line: number; reason: string; recordsBefore: number } | null;
  let badRecords = 0;
  let goodAfterBad = 0;
  forEachLine(filePath, (text, lineNumber, offset, end) => {
    size = end;
    if (text.trim() === "") return;
    const decoded = decodeLogLine(text);
    if ("error" in decoded) {
      badRecords++;
      firstBad ??= { offset, line: lineNumber, reason: decoded.error, recordsBefore: records };
      return;
    }
    if (firstBad !== null) {
      goodAfterBad++;
      return;
    }
    record(decoded.entry);
    records++;
    goodBytes = end;
  });
  if (firstBad !== null && goodAfterBad > 0) {
    return { records, goodBytes, size, tornRecords: 0, corrupt: { ...firstBad, recordsAfter: goodAfterBad } };
  }
  // Blank lines after the last good record are no loss; cut them with the torn tail.
  return { records, goodBytes: badRecords > 0 ? goodBytes : size, size, tornRecords: badRecords, corrupt: null };
}

function corruptMessage(logPath: string, dataDir: string, scan: LogScan): string {
  const bad = scan.corrupt!;
  return (
    `Corrupt write-ahead log ${logPath} at line ${bad.line} (byte offset ${bad.offset}): ${bad.reason}. ` +
    `${bad.recordsAfter} good record(s) follow it, so this is damage, not a write torn by a crash; the backend will not start ` +
    `and silently drop them. To keep the ${bad.recordsBefore} record(s) before it and move everything from it on aside to ` +
    `wal.jsonl.corrupt-<timestamp>, run: npm run backend -- repair --data-dir ${JSON.stringify(dataDir)}`
  );
}

export interface RepairResult {
  /** Good records kept in the log. */
  kept: number;
  /** The file holding the bytes moved out of the log, or null when the log was fine. */
  asideFile: string | null;
  movedBytes: number;
  /** Where the moved bytes started in the old log. */
  offset: number;
}

/**
 * Cuts the log at its first bad record: everything before it stays, the rest
 * (bad record included) is saved to `wal.jsonl.corrupt-<timestamp>` for a
 * person to look at. A log with no bad record is left as it is.
 */
export function repairLog(dataDir: string, now = new Date()): RepairResult {
  secureDataDir(dataDir);
  const logPath = path.join(dataDir, "wal.jsonl");
  if (!existsSync(logPath)) return { kept: 0, asideFile: null, movedBytes: 0, offset: 0 };
  const scan = scanLogFile(logPath);
  const cut = scan.corrupt?.offset ?? (scan.tornRecords > 0 ? scan.goodBytes : null);
  if (cut === null) return { kept: scan.records, asideFile: null, movedBytes: 0, offset: scan.size };
  const asideFile = `${logPath}.corrupt-${now.toISOString().replace(/[:.]/g, "-")}`;
  const aside = openSync(asideFile, "wx", FILE_MODE);
  const moved = Buffer.alloc(scan.size - cut);
  const log = openSync(logPath, "r");
  for (let read = 0, got = -1; read < moved.length && got !== 0; read += got) got = readSync(log, moved, read, moved.length - read, cut + read);
  closeSync(log);
  writeAll(aside, moved);
  fsyncSync(aside);
  closeSync(aside);
  syncDir(dataDir);
  // Only once the rest is safely aside is the log cut.
  const fd = openSync(logPath, "r+");
  ftruncateSync(fd, cut);
  fsyncSync(fd);
  closeSync(fd);
  return { kept: scan.records, asideFile, movedBytes: moved.length, offset: cut };
}

/** writeSync may write less than asked; loop until all of it is in. */
function writeAll(fd: number, data: string | Uint8Array): number {
  const buffer = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let written = 0;
  while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
  return written;
}

/** `syncDir` on the thread pool: a directory sync on a busy disk must not hold up the commits. */
async function syncDirInBackground(dir: string): Promise<void> {
  const fd = await promisify(openFd)(dir, "r");
  try {
    await promisify(fsyncFd)(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  fsyncSync(fd);
  closeSync(fd);
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
