/**
 * The execution engine: the project's Convex functions run on convex-test's
 * in-memory implementation of Convex's semantics (validators, transactions,
 * scheduler, ctx.auth), extended with what a server needs. This module ties
 * the parts together and is what the servers use; each part has one job:
 * - functions.ts: what a call is (kinds, callers, outcomes, errors);
 * - convexTestPatches.ts, functionGlobals.ts: what changes in convex-test
 *   and in the globals functions see, to behave like a deployment;
 * - componentState.ts: each component's database and indexes (the app is
 *   the component ""), as `convex/convex.config.ts` installs them;
 * - functionCode.ts: building the functions and hot reload of `convex/`;
 * - transactions.ts (with callContext.ts and readSets.ts): running calls,
 *   one durable log record per commit across components, read sets;
 * - persistence.ts: documents on disk and back at start;
 * - scheduling.ts: scheduled functions across restarts, and crons' calls.
 */
import type { JSONValue, Value } from "convex/values";
import type { UserIdentity } from "convex/server";
import { ComponentState, Components } from "./componentState.js";
import { loadConvexTestInternals, type ConvexTestInternals } from "./convexTestInternals.js";
import { installPatches } from "./convexTestPatches.js";
import { FileStore } from "./fileStorage.js";
import { FunctionCode, MODULES_ROOT_MARKER, schemaOf } from "./functionCode.js";
import { ExecutionClock, USER_TIMEOUT_MS } from "./executionLimits.js";
import { installBufferedResponse, installClockGuard, installConsoleCapture, installDurableFetch } from "./functionGlobals.js";
import { ROOT, type Caller, type FunctionInfo, type FunctionOutcome, type HttpActionRequest } from "./functions.js";
import type { ModuleMap } from "./modules.js";
import { Persistence } from "./persistence.js";
import { installQueryBatching } from "./queryBatching.js";
import type { DocumentChange, ReadSet } from "./readSets.js";
import { Scheduling, scheduledJobRetentionMsFromEnv } from "./scheduling.js";
import { DurableStore, type MutationRequestKey, type WalSyncMode } from "./storage.js";
import { attachFileStore, installStorageSyscalls } from "./storageSyscalls.js";
import { Transactions } from "./transactions.js";
import type { TurnGate } from "./turns.js";

// The names the servers and tools import from the engine.
export {
  canonicalUdfPath,
  describeError,
  FunctionNotFoundError,
  type Caller,
  type FunctionInfo,
  type FunctionOutcome,
  type FunctionType,
  type HttpActionRequest,
} from "./functions.js";
export { ReadSet, type DocumentChange } from "./readSets.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test internals are untyped */

export interface EngineOptions {
  projectRoot: string;
  convexDir: string;
  dataDir: string;
  log: (line: string) => void;
  /** How the write-ahead log syncs (storage.ts); default "group". */
  walSync?: WalSyncMode;
  /** Largest file an upload URL accepts (fileStorage.ts DEFAULT_MAX_UPLOAD_BYTES). */
  maxUploadBytes?: number;
  /** Milliseconds of user code a query or mutation may run (executionLimits.ts); Convex's 1 s by default. */
  executionLimitMs?: number;
  /** How long a finished scheduled job's row is kept (scheduling.ts); Convex's 7 days, or MAESTRO_SCHEDULED_JOB_RETENTION_MS. */
  scheduledJobRetentionMs?: number;
}

export class Engine {
  /** Fires after each committed transaction that wrote something. */
  onCommit: (changes: DocumentChange[], ts: bigint) => void = () => {};
  /** Blobs of `ctx.storage`, on disk beside the log. */
  readonly files: FileStore;

  private global: any;
  private readonly store: DurableStore;
  private readonly code: FunctionCode;
  /** Component path ("" for the app) → its database and indexes. */
  private readonly components = new Components();
  // Made in `start`, once convex-test runs.
  private transactions!: Transactions;
  private scheduling!: Scheduling;

  private constructor(
    private readonly internals: ConvexTestInternals,
    private readonly options: EngineOptions,
  ) {
    this.code = new FunctionCode(options.projectRoot, options.convexDir);
    this.store = new DurableStore(options.dataDir, { sync: options.walSync, info: options.log });
    this.files = new FileStore({ dataDir: options.dataDir, maxUploadBytes: options.maxUploadBytes });
  }

  static async create(options: EngineOptions): Promise<Engine> {
    const internals = await loadConvexTestInternals(options.projectRoot);
    installPatches(internals);
    await installQueryBatching(() => internals.convexGlobalStorage.getStore());
    installConsoleCapture();
    installClockGuard(internals);
    installBufferedResponse();
    installDurableFetch(internals);
    const engine = new Engine(internals, options);
    await engine.start();
    return engine;
  }

  private async start() {
    const { modules, componentModules } = await this.code.buildAll();
    // Convex's transaction limits (reads, writes, index ranges, scheduled functions), as a deployment enforces them.
    const t = this.internals.convexTest({ schema: schemaOf(modules), modules: MODULES_ROOT_MARKER, transactionLimits: true });
    for (const component of this.code.installed) {
      t.registerComponent(component.path, schemaOf(componentModules.get(component.path)!), MODULES_ROOT_MARKER);
    }
    await t.run(async () => {
      this.global = this.internals.convexGlobalStorage.getStore();
    });
    const log = this.options.log;
    this.scheduling = new Scheduling(this.internals, t, this.global, this.components, this, log);
    const persistence = new Persistence(this.store, this.components, this.scheduling.jobTargets, this.files, log);
    const notify = (changes: DocumentChange[], ts: bigint) => this.onCommit(changes, ts);
    this.transactions = new Transactions(t, this.global, this.components, this.store, persistence, this.files, notify, log);
    this.global.transactionManager.__maestro = this.transactions;
    const clock = new ExecutionClock(this.internals, this.options.executionLimitMs ?? USER_TIMEOUT_MS);
    clock.install(this.global);
    // queryBatching.ts's direct read of a whole query: the running component's database, timed as a database call.
    const executionContext = this.internals.executionContextStorage;
    const components = this.global.components;
    this.global.maestroQueryAll = (query: unknown) =>
      clock.databaseCall(() => components[executionContext.getStore()?.componentPath ?? ROOT].db.maestroQueryAll(query));
    this.transactions.clock = clock;
    this.scheduling.recordScheduleTargets();
    installStorageSyscalls(this.internals, this.global, this.files);
    for (const componentPath of [ROOT, ...this.componentPaths]) {
      const state = new ComponentState(componentPath, this.global.components[componentPath].db);
      this.components.set(componentPath, state);
      this.code.install(this.global, state, componentPath === ROOT ? modules : componentModules.get(componentPath)!);
      state.db.__maestro = state;
      // One id counter for every component (see the _generateId patch): the app's.
      state.counterDb = this.components.root.db;
      attachFileStore(state.db, this.files);
    }
    persistence.restore(this.global.transactionManager, this.transactions.mutationResults);
    for (const state of this.components.values()) state.rebuildIndexes();
    this.scheduling.resumeScheduledFunctions();
    this.scheduling.startPruningFinishedJobs(this.options.scheduledJobRetentionMs ?? scheduledJobRetentionMsFromEnv());
  }

  /** Rows of finished scheduled jobs deleted past their retention since start (scheduling.ts). */
  get prunedScheduledJobs(): number {
    return this.scheduling.prunedJobs;
  }

  /** The app's functions, as loaded now. */
  get modules(): ModuleMap {
    return this.code.modules;
  }

  get evaluateRangeFilter() {
    return this.internals.evaluateRangeFilter;
  }

  /** This backend's build folder (functionCode.ts): one build of `convex/` in it at a time, beside the components'. */
  get buildFolder(): string {
    return this.code.buildRoot;
  }

  /** Paths of the installed components, parents first ("rateLimiter", "rateLimiter/batchWorker"). */
  get componentPaths(): string[] {
    return this.code.installed.map((component) => component.path);
  }

  /** Committed documents of a component ("" for the app), of one table or all, for tools and tests. */
  documents(componentPath: string, table?: string): Array<Record<string, Value>> {
    return this.components.documents(componentPath, table);
  }

  /** Committed documents queries have read from the ordered indexes so far, every component (for tests and benchmarks). */
  get indexRowsRead(): number {
    let rows = 0;
    for (const state of this.components.values()) rows += state.rowsRead;
    return rows;
  }

  /** Timestamp of the latest commit (nanoseconds). */
  get lastCommitTs(): bigint {
    return this.transactions.lastCommitTs;
  }

  /**
   * The server's fair turns (turns.ts), at which an action's queries and
   * mutations pause once a turn's budget is spent (see transactions.ts).
   */
  get turns(): TurnGate | null {
    return this.transactions.turns;
  }

  set turns(turns: TurnGate | null) {
    this.transactions.turns = turns;
  }

  /**
   * Rebuilds `convex/` after an edit. A schema that existing documents do not
   * satisfy is refused, as `npx convex dev` refuses to push it; the previous
   * functions keep running. Returns an error message, or null on success.
   */
  reload(): Promise<string | null> {
    return this.code.reload(this.global, this.components);
  }

  /** Public/internal and kind of the function at `udfPath` ("tasks:list") of a component ("" for the app), or null. */
  functionInfo(udfPath: string, componentPath = ROOT): FunctionInfo | null {
    return this.components.functionInfo(udfPath, componentPath);
  }

  /** Runs a query, recording what it read into `readSet`. */
  runQuery(udfPath: string, args: JSONValue, caller: Caller, readSet?: ReadSet): Promise<FunctionOutcome> {
    return this.transactions.runQuery(udfPath, args, caller, readSet);
  }

  /**
   * Runs a mutation. With `request`, the outcome is recorded durably under the
   * client's (session, request id), and a repeat of the same request returns
   * the recorded outcome instead of running again.
   */
  runMutation(udfPath: string, args: JSONValue, caller: Caller, request?: MutationRequestKey): Promise<FunctionOutcome> {
    return this.transactions.runMutation(udfPath, args, caller, request);
  }

  runAction(udfPath: string, args: JSONValue, caller: Caller): Promise<FunctionOutcome> {
    return this.transactions.runAction(udfPath, args, caller);
  }

  /** Serves an HTTP action from `convex/http.ts` with the caller's identity. */
  runHttpAction(request: HttpActionRequest, identity: UserIdentity | null): Promise<Response> {
    return this.transactions.runHttpAction(request, identity);
  }

  /** Runs an internal function as the scheduler or a cron does: no identity. */
  runScheduled(udfPath: string, args: JSONValue): Promise<FunctionOutcome> {
    return this.scheduling.runScheduled(udfPath, args);
  }

  /**
   * Resolves once every commit made so far is on disk. Nothing a commit
   * wrote may reach a client before then: mutation and action results wait
   * for it here, query results and subscription updates in the servers.
   */
  whenDurable(seq?: number): Promise<void> {
    return this.store.whenDurable(seq);
  }

  /** Makes every commit written so far durable now (storage.ts `syncNow`). */
  syncNow(): void {
    this.store.syncNow();
  }

  /** Sequence number of the latest commit written to the log (`whenDurable(seq)` waits for it). */
  get lastSeq(): number {
    return this.store.lastSeq;
  }

  /** Log syncs so far (fewer than commits when commits are grouped). */
  get walSyncCount(): number {
    return this.store.syncCount;
  }

  /** Stores an uploaded body as `ctx.storage.store` would; resolves with its id once the row is durable. */
  storeUpload(bytes: Uint8Array<ArrayBuffer>, contentType: string): Promise<string> {
    return this.transactions.storeUpload(bytes, contentType);
  }

  /** A committed `_storage` row (any component), or null. */
  storedFile(storageId: string): { contentType?: string; size: number } | null {
    return this.components.storedFile(storageId);
  }

  close() {
    this.transactions.closed = true;
    this.store.close();
    this.scheduling.forgetScheduledFunctions();
    this.code.dispose();
  }
}
