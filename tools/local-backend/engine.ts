/**
 * The execution engine: the project's Convex functions run on convex-test's
 * in-memory implementation of Convex's semantics (validators, transactions,
 * scheduler, ctx.auth), extended here with what a server needs:
 * - committed documents kept per table and bucketed by each index's first
 *   field, so an indexed query reads its range instead of every document;
 * - a hook on every committed transaction that logs it durably and reports
 *   which documents changed, for subscriptions;
 * - read sets (index ranges and ids a query read), to know which
 *   subscriptions a commit can affect;
 * - hot reload of `convex/` and restoring documents from disk;
 * - Convex components installed by `convex/convex.config.ts`, each with its
 *   own database as on Convex, committed, logged and watched together with
 *   the app's: one transaction is one commit record, whichever components it
 *   wrote to.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { convexToJson, jsonToConvex, type JSONValue, type Value } from "convex/values";
import type { UserIdentity } from "convex/server";
import { callStorage, withCallContext } from "./callContext.js";
import { ComponentState, tableOf } from "./componentState.js";
import { loadConvexTestInternals, type ConvexTestInternals } from "./convexTestInternals.js";
import { installPatches } from "./convexTestPatches.js";
import { FileStore } from "./fileStorage.js";
import { installClockGuard, installConsoleCapture } from "./functionGlobals.js";
import {
  canonicalUdfPath,
  describeError,
  FunctionNotFoundError,
  ROOT,
  splitUdfPath,
  type Caller,
  type FunctionInfo,
  type FunctionOutcome,
  type FunctionType,
  type HttpActionRequest,
} from "./functions.js";
import { buildConvexModules, discoverComponents, type InstalledComponent, type ModuleMap } from "./modules.js";
import { installQueryBatching } from "./queryBatching.js";
import { ReadSet, type DocumentChange } from "./readSets.js";
import {
  DurableStore,
  mutationRequestKey,
  trimResults,
  type MutationRequestKey,
  type StoredDocument,
  type WalSyncMode,
} from "./storage.js";
import { attachFileStore, installStorageSyscalls } from "./storageSyscalls.js";
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

/** convex-test finds a functions root through a `_generated` path; modules then come from our own loaders. */
const MODULES_ROOT_MARKER = { "/convex/_generated/api.js": async () => ({}) };
/**
 * Field naming a stored document's component. Convex reserves field names
 * starting with "_" for the system, so no document of a schema can hold it.
 */
const COMPONENT_FIELD = "_component";
/**
 * Field naming, on a stored `_scheduled_functions` document, the component
 * whose function the job runs when that is not the job's own component (a
 * component calling back into the app through a function handle, as
 * workpool does). convex-test keeps it only in its timer.
 */
const TARGET_FIELD = "_target";

export interface EngineOptions {
  projectRoot: string;
  convexDir: string;
  dataDir: string;
  log: (line: string) => void;
  /** How the write-ahead log syncs (storage.ts); default "group". */
  walSync?: WalSyncMode;
  /** Largest file an upload URL accepts (fileStorage.ts DEFAULT_MAX_UPLOAD_BYTES). */
  maxUploadBytes?: number;
}

export class Engine {
  /** Fires after each committed transaction that wrote something. */
  onCommit: (changes: DocumentChange[], ts: bigint) => void = () => {};
  modules: ModuleMap = new Map();
  readonly mutationResults = new Map<string, JSONValue>();
  /** Blobs of `ctx.storage`, on disk beside the log. */
  readonly files: FileStore;

  private t: any;
  private global: any;
  private generation = 0;
  private readonly buildRoot: string;
  private readonly store: DurableStore;
  /** Component path ("" for the app) → its database and indexes. */
  private readonly components = new Map<string, ComponentState>();
  /** The components `convex.config.ts` installed at startup. */
  private installed: InstalledComponent[] = [];
  /**
   * Stored documents of components no longer installed: kept (as Convex
   * keeps an unmounted component's data) and written back on compaction.
   */
  private readonly detached = new Map<string, StoredDocument>();
  /** Pending scheduled job id → the component whose function it runs, when not its own. */
  readonly jobTargets = new Map<string, string>();
  /**
   * The server's fair turns (turns.ts), at which an action's queries and
   * mutations pause once a turn's budget is spent: they run on promises
   * alone, so a busy action kept the loop from seeing finished fsyncs and
   * from sending subscription updates for tens of milliseconds.
   */
  turns: TurnGate | null = null;

  private constructor(
    private readonly internals: ConvexTestInternals,
    private readonly options: EngineOptions,
  ) {
    this.buildRoot = path.join(
      options.projectRoot,
      "node_modules",
      ".cache",
      "maestro-local-backend",
      `build-${process.pid}-${randomUUID().slice(0, 8)}`,
    );
    this.store = new DurableStore(options.dataDir, { sync: options.walSync });
    this.files = new FileStore({ dataDir: options.dataDir, maxUploadBytes: options.maxUploadBytes });
  }

  static async create(options: EngineOptions): Promise<Engine> {
    const internals = await loadConvexTestInternals(options.projectRoot);
    installPatches(internals);
    await installQueryBatching();
    installConsoleCapture();
    installClockGuard(internals);
    const engine = new Engine(internals, options);
    await engine.start();
    return engine;
  }

  get evaluateRangeFilter() {
    return this.internals.evaluateRangeFilter;
  }

  /** The app's own database. */
  private get db(): any {
    return this.root.db;
  }

  private get root(): ComponentState {
    return this.components.get(ROOT)!;
  }

  /** Paths of the installed components, parents first ("rateLimiter", "rateLimiter/batchWorker"). */
  get componentPaths(): string[] {
    return this.installed.map((component) => component.path);
  }

  /** Committed documents of a component ("" for the app), of one table or all, for tools and tests. */
  documents(componentPath: string, table?: string): Array<Record<string, Value>> {
    const state = this.components.get(componentPath);
    if (state === undefined) throw new Error(`No component is installed at "${componentPath}".`);
    const tables = table === undefined ? [...state.tables.values()] : [state.tables.get(table) ?? new Map()];
    return tables.flatMap((docs) => [...docs.values()]);
  }

  /** Timestamp of the latest commit (nanoseconds). */
  get lastCommitTs(): bigint {
    return this.global.transactionManager._lastCommitTs as bigint;
  }

  private async start() {
    const modules = await this.build();
    this.installed = await this.discover();
    const componentModules = await this.buildComponents(this.installed);
    this.t = this.internals.convexTest(schemaOf(modules), MODULES_ROOT_MARKER);
    for (const component of this.installed) {
      this.t.registerComponent(component.path, schemaOf(componentModules.get(component.path)!), MODULES_ROOT_MARKER);
    }
    await this.t.run(async () => {
      this.global = this.internals.convexGlobalStorage.getStore();
    });
    this.global.transactionManager.__maestro = this;
    this.recordScheduleTargets();
    installStorageSyscalls(this.internals, this.global, this.files);
    for (const componentPath of [ROOT, ...this.componentPaths]) {
      const state = new ComponentState(componentPath, this.global.components[componentPath].db, this.internals);
      this.components.set(componentPath, state);
      this.installModules(state, componentPath === ROOT ? modules : componentModules.get(componentPath)!);
    }

    const stored = this.store.open();
    const documents = new Map<string, Record<string, any>>([...this.components.keys()].map((p) => [p, {}]));
    let lastCreationTime = 0;
    for (const [id, doc] of stored.documents) {
      const { [COMPONENT_FIELD]: component = ROOT, [TARGET_FIELD]: jobTarget, ...fields } = doc;
      if (typeof jobTarget === "string") this.jobTargets.set(id, jobTarget);
      const target = documents.get(component as string);
      if (target === undefined) {
        this.detached.set(id, doc);
        continue;
      }
      const value = jsonToConvex(fields) as any;
      target[id] = value;
      lastCreationTime = Math.max(lastCreationTime, value._creationTime);
    }
    if (this.detached.size > 0) {
      this.options.log(`Keeping ${this.detached.size} documents of components convex.config.ts no longer installs.`);
    }
    for (const [componentPath, state] of this.components) {
      state.db._documents = documents.get(componentPath);
      state.db._lastCreationTime = lastCreationTime;
      state.db.__maestro = state;
      state.counterDb = this.db;
      attachFileStore(state.db, this.files);
    }
    const storageIds = [...stored.documents.keys()].filter((id) => tableOf(id) === "_storage");
    const orphans = this.files.removeOrphans(new Set(storageIds));
    if (orphans > 0) this.options.log(`Removed ${orphans} stored file(s) no committed _storage row names (a crash before their commit).`);
    // One id counter for every component (see the _generateId patch).
    this.db._nextDocId = stored.nextDocId;
    for (const [key, response] of stored.mutationResults) this.mutationResults.set(key, response);
    // Stay ahead of every timestamp handed out before a restart, and of the clock.
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    this.global.transactionManager._lastCommitTs = stored.ts > nowNs ? stored.ts : nowNs;
    for (const state of this.components.values()) state.rebuildIndexes();
    this.resumeScheduledFunctions();
  }

  /** Notes which component each newly scheduled job targets, so a restart can resume it there. */
  private recordScheduleTargets() {
    const asyncSyscall = this.global.asyncSyscall as (op: string, jsonArgs: string) => Promise<string>;
    this.global.asyncSyscall = async (op: string, jsonArgs: string) => {
      const result = await asyncSyscall(op, jsonArgs);
      if (op === "1.0/schedule") {
        const current = this.internals.executionContextStorage.getStore()?.componentPath ?? ROOT;
        const target = scheduleTarget(JSON.parse(jsonArgs), current);
        if (target !== current) this.jobTargets.set(JSON.parse(result) as string, target);
      }
      return result;
    };
  }

  private async build(): Promise<ModuleMap> {
    this.generation += 1;
    return await buildConvexModules(this.options.convexDir, this.buildRoot, this.generation);
  }

  private async discover(): Promise<InstalledComponent[]> {
    return await discoverComponents(this.options.convexDir, path.join(this.buildRoot, "config"));
  }

  /** Builds each component's functions from its own folder (an installed package's compiled `dist/component`). */
  private async buildComponents(installed: InstalledComponent[]): Promise<Map<string, ModuleMap>> {
    const built = new Map<string, ModuleMap>();
    for (const component of installed) {
      const modules = await buildConvexModules(component.dir, this.buildRoot, this.generation, {
        subdir: path.join("components", component.path),
        bundleDependencies: true,
      });
      built.set(component.path, modules);
    }
    return built;
  }

  private installModules(state: ComponentState, modules: ModuleMap) {
    state.modules = modules;
    if (state.path === ROOT) this.modules = modules;
    this.global.components[state.path].modules = async (modulePath: string) => {
      const module = state.modules.get(modulePath);
      if (module === undefined) throw new FunctionNotFoundError(`Could not find module for: "${modulePath}"`);
      return module;
    };
  }

  /**
   * Rebuilds `convex/` after an edit. A schema that existing documents do not
   * satisfy is refused, as `npx convex dev` refuses to push it; the previous
   * functions keep running. Returns an error message, or null on success.
   */
  async reload(): Promise<string | null> {
    let modules: ModuleMap;
    try {
      modules = await this.build();
      const installed = await this.discover();
      const describe = (list: InstalledComponent[]) => list.map((c) => `${c.path}@${c.dir}`).join(", ");
      if (describe(installed) !== describe(this.installed)) {
        return "convex.config.ts now installs other components; restart the backend to mount them.";
      }
    } catch (error) {
      return `Build failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const previousSchema = this.db._schema;
    const nextSchema = schemaOf(modules);
    this.db._schema = nextSchema === null ? null : exportSchema(nextSchema);
    try {
      for (const doc of Object.values(this.db._documents) as any[]) {
        const table = tableOf(doc._id);
        if (table.startsWith("_")) continue;
        const { _id, _creationTime, ...fields } = doc;
        void _id;
        void _creationTime;
        this.db._validate(table, fields);
      }
    } catch (error) {
      this.db._schema = previousSchema;
      return `Schema validation failed against existing documents: ${error instanceof Error ? error.message : String(error)}`;
    }
    this.installModules(this.root, modules);
    this.root.rebuildIndexes();
    return null;
  }

  /** Public/internal and kind of the function at `udfPath` ("tasks:list") of a component ("" for the app), or null. */
  functionInfo(udfPath: string, componentPath = ROOT): FunctionInfo | null {
    const [modulePath, exportName = "default"] = splitUdfPath(udfPath);
    const fn = this.components.get(componentPath)?.modules.get(modulePath)?.[exportName] as any;
    if (fn === undefined || fn === null) return null;
    const visibility = fn.isPublic ? "public" : fn.isInternal ? "internal" : null;
    const type = fn.isQuery ? "query" : fn.isMutation ? "mutation" : fn.isAction ? "action" : fn.isHttp ? "httpAction" : null;
    if (type === null || (visibility === null && type !== "httpAction")) return null;
    return { type, visibility: visibility ?? "internal" };
  }

  /** True inside a query this engine runs (its transactions take the lock ahead of mutations). */
  runningQuery(): boolean {
    return callStorage.getStore()?.inQuery === true;
  }

  /** Runs a query, recording what it read into `readSet`. */
  async runQuery(udfPath: string, args: JSONValue, caller: Caller, readSet = new ReadSet()): Promise<FunctionOutcome> {
    return await this.execute("query", udfPath, args, caller, (accessor, functionPath, parsed) =>
      withCallContext({ readSet, inQuery: true }, () => accessor.queryFromPath(functionPath, parsed)),
    );
  }

  /**
   * Runs a mutation. With `request`, the outcome is recorded durably under the
   * client's (session, request id), and a repeat of the same request returns
   * the recorded outcome instead of running again.
   */
  async runMutation(udfPath: string, args: JSONValue, caller: Caller, request?: MutationRequestKey): Promise<FunctionOutcome> {
    if (request !== undefined) {
      const recorded = this.mutationResults.get(mutationRequestKey(request));
      if (recorded !== undefined) {
        // The first answer may still be waiting for the disk: so must this one.
        await this.whenDurable();
        return recordedOutcome(recorded);
      }
    }
    const state = request === undefined ? undefined : { key: request, done: false };
    const run = () =>
      this.execute("mutation", udfPath, args, caller, (accessor, functionPath, parsed) =>
        accessor.mutationFromPath(functionPath, parsed),
      );
    const outcome = state === undefined ? await run() : await withCallContext({ request: state }, run);
    if (state !== undefined) {
      // Recorded at once, so a re-sent request arriving while this one waits for the disk is not run twice.
      state.done = true;
      const response = outcomeToRecord(outcome);
      this.mutationResults.set(mutationRequestKey(state.key), response);
      trimResults(this.mutationResults);
      this.store.appendMutationResult({ request: state.key, response });
    }
    return await this.durable(outcome);
  }

  async runAction(udfPath: string, args: JSONValue, caller: Caller): Promise<FunctionOutcome> {
    const outcome = await this.execute("action", udfPath, args, caller, (accessor, functionPath, parsed) =>
      accessor.actionFromPath(functionPath, parsed),
    );
    // An action that failed may still have committed mutations before it did.
    return await this.durable(outcome);
  }

  /** `outcome` once every commit so far is on disk (group commit); a failure if the disk failed. */
  private async durable(outcome: FunctionOutcome): Promise<FunctionOutcome> {
    try {
      await this.store.whenDurable();
      return outcome;
    } catch (error) {
      return { ...describeError(error), logLines: outcome.logLines };
    }
  }

  /** Serves an HTTP action from `convex/http.ts` with the caller's identity. */
  async runHttpAction(request: HttpActionRequest, identity: UserIdentity | null): Promise<Response> {
    const accessor = identity === null ? this.t : this.t.withIdentity(identity);
    // Only path and query reach the router: a full URL's host would be taken for part of the path.
    const target = request.pathAndQuery.startsWith("/") ? null : new URL(request.pathAndQuery, "http://localhost");
    const pathAndQuery = target === null ? request.pathAndQuery : target.pathname + target.search;
    const response = (await accessor.fetch(pathAndQuery, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    })) as Response;
    // Whatever the action committed is on disk before anyone hears of it.
    await this.whenDurable();
    return response;
  }

  /**
   * Resolves once every commit made so far is on disk. Nothing a commit
   * wrote may reach a client before then: mutation and action results wait
   * for it here, query results and subscription updates in the servers.
   */
  whenDurable(seq?: number): Promise<void> {
    return this.store.whenDurable(seq);
  }

  /** Sequence number of the latest commit written to the log (`whenDurable(seq)` waits for it). */
  get lastSeq(): number {
    return this.store.lastSeq;
  }

  /** Log syncs so far (fewer than commits when commits are grouped). */
  get walSyncCount(): number {
    return this.store.syncCount;
  }

  /** Runs an internal function as the scheduler or a cron does: no identity. */
  async runScheduled(udfPath: string, args: JSONValue): Promise<FunctionOutcome> {
    const info = this.functionInfo(udfPath);
    if (info === null || info.type === "httpAction") {
      return { ok: false, errorMessage: `Could not find function for '${udfPath}'`, logLines: [] };
    }
    const admin: Caller = { kind: "admin" };
    if (info.type === "query") return await this.runQuery(udfPath, args, admin);
    if (info.type === "mutation") return await this.runMutation(udfPath, args, admin);
    return await this.runAction(udfPath, args, admin);
  }

  /** Set by `close`; commits after it are discarded. */
  closed = false;

  close() {
    this.closed = true;
    this.store.close();
    // Timers convex-test armed for scheduled functions skip jobs that no longer exist.
    for (const state of this.components.values()) {
      for (const id of state.tables.get("_scheduled_functions")?.keys() ?? []) delete state.db._documents[id];
    }
    rmSync(this.buildRoot, { recursive: true, force: true });
  }

  private async execute(
    type: FunctionType,
    udfPath: string,
    args: JSONValue,
    caller: Caller,
    invoke: (accessor: any, functionPath: { udfPath: string; componentPath: string }, args: unknown) => Promise<Value>,
  ): Promise<FunctionOutcome> {
    const logLines: string[] = [];
    const canonical = canonicalUdfPath(udfPath);
    const info = this.functionInfo(canonical);
    const callable = info !== null && info.type === type && (info.visibility === "public" || caller.kind === "admin");
    if (!callable) {
      const which = caller.kind === "admin" ? "" : "public ";
      return {
        ok: false,
        errorMessage: `Could not find ${which}function for '${canonical}'. Did you forget to run \`npx convex dev\`?`,
        logLines,
      };
    }
    const accessor = caller.kind === "user" && caller.identity !== null ? this.t.withIdentity(caller.identity) : this.t;
    const logSink = { lines: logLines, open: true };
    try {
      const parsed = jsonToConvex(args);
      const value = await withCallContext({ log: logSink }, () =>
        invoke(accessor, { udfPath: canonical, componentPath: ROOT }, parsed),
      );
      const outcome: FunctionOutcome = { ok: true, value: convexToJson(value), logLines };
      if (type === "mutation") outcome.ts = this.lastCommitTs;
      return outcome;
    } catch (error) {
      return { ...describeError(error), logLines };
    } finally {
      logSink.open = false;
    }
  }

  // ---- storage, called from the patched TransactionManager ----

  /** The pending writes of a top-level transaction in every component, with what they replace. */
  beforeCommit(): Array<{ state: ComponentState; before: Map<string, any> }> {
    const pending: Array<{ state: ComponentState; before: Map<string, any> }> = [];
    for (const state of this.components.values()) {
      const writes: Record<string, any> | undefined = state.db._writes[0];
      if (writes === undefined || Object.keys(writes).length === 0) continue;
      const before = new Map<string, any>();
      for (const id of Object.keys(writes)) before.set(id, state.db._documents[id] ?? null);
      pending.push({ state, before });
    }
    return pending;
  }

  /** Called right after a top-level commit: index, persist (one log record for all components), notify. */
  afterCommit(pending: Array<{ state: ComponentState; before: Map<string, any> }>, commitTs: bigint) {
    if (pending.length === 0) return;
    const changes: DocumentChange[] = [];
    const writes: Array<[string, StoredDocument | null]> = [];
    const deletedFiles: string[] = [];
    for (const { state, before } of pending) {
      for (const [id, previous] of before) {
        const next = state.db._documents[id] ?? null;
        const table = tableOf(id);
        state.indexDocument(table, id, previous, next);
        changes.push({ id, component: state.path, table, before: previous, after: next });
        writes.push([id, next === null ? null : this.toStored(state, id, next)]);
        if (table === "_storage" && next === null && previous !== null) deletedFiles.push(id);
      }
    }
    const request = callStorage.getStore()?.request;
    const attach = request !== undefined && !request.done;
    if (attach) request.done = true;
    this.store.appendCommit({
      ts: commitTs.toString(),
      nextDocId: this.db._nextDocId,
      writes,
      ...(attach ? { request: request.key } : {}),
    });
    if (this.store.shouldCompact) this.compact(commitTs);
    if (deletedFiles.length > 0) this.removeFilesWhenDurable(deletedFiles);
    this.onCommit(changes, commitTs);
  }

  /** A deleted `_storage` row's blob goes once the delete is on disk (a crash before leaves an orphan, swept at start). */
  private removeFilesWhenDurable(ids: string[]) {
    this.store
      .whenDurable()
      .then(() => {
        for (const id of ids) this.files.remove(id);
      })
      .catch((error: unknown) => this.options.log(`Could not remove deleted files: ${String(error)}`));
  }

  /** Stores an uploaded body as `ctx.storage.store` would; resolves with its id once the row is durable. */
  async storeUpload(bytes: Uint8Array<ArrayBuffer>, contentType: string): Promise<string> {
    const id = (await this.t.run(async (ctx: any) => await ctx.storage.store(new Blob([bytes], { type: contentType })))) as string;
    await this.whenDurable();
    return id;
  }

  /** A committed `_storage` row (any component), or null. */
  storedFile(storageId: string): { contentType?: string; size: number } | null {
    for (const state of this.components.values()) {
      const row = state.tables.get("_storage")?.get(storageId);
      if (row !== undefined) return { contentType: row.contentType, size: row.size };
    }
    return null;
  }

  /** Folds the write-ahead log into a snapshot of the committed state (runs inside a commit, so nothing is pending). */
  private compact(ts: bigint) {
    const documents = new Map<string, StoredDocument>(this.detached);
    for (const state of this.components.values()) {
      for (const [id, doc] of Object.entries(state.db._documents)) documents.set(id, this.toStored(state, id, doc));
    }
    this.store.compact({ ts, nextDocId: this.db._nextDocId, documents, mutationResults: this.mutationResults });
  }

  /** A document as stored: its JSON, naming its component unless it is the app's, and a job's target component. */
  private toStored(state: ComponentState, id: string, doc: any): StoredDocument {
    const json = convexToJson(doc as Value) as StoredDocument;
    const stored: StoredDocument = state.path === ROOT ? json : { ...json, [COMPONENT_FIELD]: state.path };
    const target = this.jobTargets.get(id);
    if (target === undefined) return stored;
    // A finished job is never resumed: forget where it pointed.
    if (doc.state.kind !== "pending" && doc.state.kind !== "inProgress") {
      this.jobTargets.delete(id);
      return stored;
    }
    return { ...stored, [TARGET_FIELD]: target };
  }

  /**
   * Scheduled functions survive a restart as `_scheduled_functions` documents
   * of the component that scheduled them; re-arm the pending ones. One caught
   * mid-run is retried if it is a mutation (its writes never committed) and
   * marked failed if it is an action, which Convex runs at most once.
   */
  private resumeScheduledFunctions() {
    for (const state of this.components.values()) {
      const jobs = [...(state.tables.get("_scheduled_functions")?.values() ?? [])];
      const pending = jobs.filter((job) => job.state.kind === "pending" || job.state.kind === "inProgress");
      if (pending.length === 0) continue;
      const targetOf = (job: any) => this.jobTargets.get(job._id) ?? state.path;
      const isMutation = (job: any) => this.functionInfo(job.name, targetOf(job))?.type === "mutation";
      void this.t
        .runInComponent(state.path, async () => {
          for (const job of pending) {
            if (job.state.kind !== "inProgress") continue;
            state.db.patch("_scheduled_functions", job._id, {
              state: { kind: isMutation(job) ? "pending" : "failed" },
            });
          }
        })
        .then(() => {
          for (const job of pending) {
            if (job.state.kind === "inProgress" && !isMutation(job)) continue;
            this.armScheduledFunction(state, targetOf(job), job._id, job.name, job.args[0], job.scheduledTime);
          }
        })
        .catch((error: unknown) => this.options.log(`Could not resume scheduled functions: ${String(error)}`));
    }
  }

  private armScheduledFunction(
    state: ComponentState,
    target: string,
    jobId: string,
    name: string,
    args: unknown,
    scheduledTime: number,
  ) {
    const fire = () => {
      void this.internals.convexGlobalStorage
        .run(this.global, () =>
          this.internals.runScheduledFunction({
            db: state.db,
            jobId,
            componentPath: state.path,
            functionPath: { udfPath: name, componentPath: target },
            args,
            name,
          }),
        )
        .catch((error: unknown) => this.options.log(`Scheduled function ${name} failed: ${String(error)}`));
    };
    setTimeout(fire, Math.max(0, scheduledTime - Date.now()));
  }
}

function schemaOf(modules: ModuleMap): any {
  return (modules.get("schema")?.default as any) ?? null;
}

function exportSchema(schema: any) {
  return {
    schemaValidation: schema.schemaValidation,
    tables: new Map(Object.entries(schema.tables).map(([name, table]: [string, any]) => [name, table.export()])),
  };
}

function outcomeToRecord(outcome: FunctionOutcome): JSONValue {
  return {
    ok: outcome.ok,
    value: outcome.value ?? null,
    errorMessage: outcome.errorMessage ?? null,
    errorData: outcome.errorData === undefined ? null : { data: outcome.errorData },
    ts: outcome.ts?.toString() ?? null,
  };
}

function recordedOutcome(recorded: JSONValue): FunctionOutcome {
  const r = recorded as Record<string, any>;
  if (r.committedWithoutRecordedResult) return { ok: true, value: null, ts: BigInt(r.ts), logLines: [] };
  return {
    ok: r.ok,
    value: r.value ?? undefined,
    errorMessage: r.errorMessage ?? undefined,
    errorData: r.errorData === null ? undefined : r.errorData.data,
    ts: r.ts === null ? undefined : BigInt(r.ts),
    logLines: [],
  };
}

/** The component a `1.0/schedule` call targets, resolved as convex-test resolves it. */
function scheduleTarget(args: { name?: string; reference?: string; functionHandle?: string }, current: string): string {
  if (args.functionHandle !== undefined) return args.functionHandle.split("function://")[1].split(";")[0];
  if (args.name !== undefined || args.reference === undefined) return current;
  // "_reference/childComponent/<name>/module/function"
  const child = args.reference.split("/")[2];
  return current === ROOT ? child : `${current}/${child}`;
}
