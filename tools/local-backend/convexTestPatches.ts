/**
 * The convex-test patches: what the engine changes in convex-test's
 * TransactionManager and DatabaseFake to behave like a deployment (one commit
 * across components, ids unique deployment-wide, indexed and tracked reads,
 * fair turns for actions, a scheduled mutation's job checked and finished in
 * its own transaction). Instances not marked `__maestro` behave as before.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { getDocumentSize } from "convex/values";
import { tableOf, type ComponentState } from "./componentState.js";
import { finishedJob, scheduledJobStorage, type ConvexTestInternals, type ScheduledJob } from "./convexTestInternals.js";
import type { ExecutionClock } from "./executionLimits.js";
import { newStorageId } from "./fileStorage.js";
import type { TurnGate } from "./turns.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test internals are untyped */

/**
 * What the engine hangs on convex-test's TransactionManager as `__maestro`
 * (convexTestInternals.ts's lock asks it `runningQuery()` as well).
 */
export interface TransactionHooks<Pending> {
  /** The server's fair turns (turns.ts), at which an action's transactions pause. */
  turns: TurnGate | null;
  /** Set once the engine closes; commits after it are discarded. */
  closed: boolean;
  /** Times each top-level query and mutation against Convex's 1 s (executionLimits.ts). */
  clock: ExecutionClock | null;
  /** True inside a query the engine runs (its transactions take the lock ahead of mutations). */
  runningQuery(): boolean;
  /** Called just before a top-level commit: captures its pending writes in every component. */
  beforeCommit(): Pending;
  /** Called right after that commit with what `beforeCommit` captured. */
  afterCommit(pending: Pending, commitTs: bigint): void;
  /** Resolves once every commit so far is on disk: an action's `fetch` waits for it (functionGlobals.ts). */
  whenDurable(): Promise<void>;
}

/**
 * A query's results read on demand, filtered and limited as convex-test's
 * `_evaluateQuery` does. A document `.filter()` skips is still read, and
 * Convex counts it against the transaction's limits (`skipped`); the
 * documents returned are counted where the syscall hands them over.
 */
class LazyQueryResults {
  private remaining: number;

  constructor(
    private readonly docs: Iterator<any>,
    private readonly matches: (doc: any) => boolean,
    limit: number | null,
    private readonly skipped: (doc: any) => void,
  ) {
    this.remaining = limit ?? Number.POSITIVE_INFINITY;
  }

  next(): { value: any; done: boolean } {
    while (this.remaining > 0) {
      const step = this.docs.next();
      if (step.done === true) break;
      if (!this.matches(step.value)) {
        this.skipped(step.value);
        continue;
      }
      this.remaining -= 1;
      return { value: step.value, done: false };
    }
    this.remaining = 0;
    return { value: null, done: true };
  }
}

/** Runs a callback in no function's context (the contexts of when this module loaded: none). */
const outsideFunctions = AsyncLocalStorage.snapshot();

/** Where a top-level transaction keeps the scheduled mutation job it runs, from `begin` to its end. */
const RUNNING_JOB = Symbol("maestro.runningScheduledJob");

/**
 * Claims the scheduled mutation job of this context for the transaction just
 * begun (the mutation's own: see SCHEDULED_MUTATIONS in
 * convexTestInternals.ts). Checked under the lock, so a cancel either
 * commits before it and the function does not run, or after its success.
 */
function startScheduledJob(manager: any) {
  const job = scheduledJobStorage.getStore();
  if (job === undefined || job.claimed) return;
  job.claimed = true;
  if (job.db.get("_scheduled_functions", job.jobId)?.state.kind !== "pending") {
    job.notPending = true;
    manager.rollback(false);
    throw new Error(`Scheduled function ${job.jobId} is no longer pending`);
  }
  manager[RUNNING_JOB] = job;
}

let patched = false;

/**
 * Extends convex-test's transaction manager and database class; instances
 * without `__maestro` (TransactionHooks, a ComponentState) behave as before.
 */
export function installPatches(internals: ConvexTestInternals) {
  if (patched) return;
  patched = true;
  // A top-level commit applies every component's writes at once: capture them
  // all around it, so they become one durable record and one notification.
  const managerProto = internals.TransactionManager.prototype;
  const originalBegin = managerProto.begin;
  managerProto.begin = async function (this: any, isNested: boolean, limits: unknown) {
    const turns: TurnGate | null | undefined = this.__maestro?.turns;
    // Only an action's calls: a request's own transaction took its turn when the request arrived.
    if (!isNested && turns != null && internals.executionContextStorage.getStore()?.udfType === "action") await turns.pause();
    await originalBegin.call(this, isNested, limits);
    if (isNested) return;
    startScheduledJob(this);
    // The lock is taken: the function's own time starts now.
    this.__maestro?.clock?.started();
  };
  const originalManagerCommit = managerProto.commit;
  const commitWithHooks = function (this: any, isNested: boolean): bigint | null {
    const hooks: TransactionHooks<unknown> | undefined = this.__maestro;
    if (hooks === undefined || isNested) return originalManagerCommit.call(this, isNested);
    if (hooks.closed) {
      // Work convex-test scheduled before shutdown may still fire: it can no longer be stored or seen.
      this.rollback(isNested);
      return this._lastCommitTs as bigint;
    }
    const pending = hooks.beforeCommit();
    const commitTs = originalManagerCommit.call(this, isNested) as bigint;
    hooks.afterCommit(pending, commitTs);
    return commitTs;
  };
  managerProto.commit = function (this: any, isNested: boolean) {
    if (isNested) return commitWithHooks.call(this, isNested);
    // Read before the commit ends the transaction: the scheduled mutation it runs, and the jobs it scheduled to
    // run now (SCHEDULED_AT_COMMIT in convexTestInternals.ts).
    const job: ScheduledJob | undefined = this[RUNNING_JOB];
    const due: Array<() => void> | undefined = this.__maestroDueAtCommit;
    // A scheduled mutation's job moves to success in the commit of its writes.
    job?.db.patch("_scheduled_functions", job.jobId, finishedJob.succeeded());
    const commitTs = commitWithHooks.call(this, isNested);
    // After the commit queued its flush, and outside this function's context, as convex-test's timer was.
    if (due !== undefined && this.__maestro?.closed !== true) outsideFunctions(() => due.forEach((fire) => setImmediate(fire)));
    return commitTs;
  };
  // A function's query streams end with its transaction: convex-test keeps them forever (a `.first()` leaves the rest).
  const originalEnd = managerProto._endTransaction;
  managerProto._endTransaction = function (this: any, isNested: boolean) {
    if (!isNested) {
      this[RUNNING_JOB] = undefined;
      // Committed: armed by `commit`; rolled back: dropped with the job documents.
      this.__maestroDueAtCommit = undefined;
    }
    if (this.__maestro !== undefined && !isNested) {
      this.__maestro.clock?.ended();
      for (const component of Object.values(internals.convexGlobalStorage.getStore()?.components ?? {}) as any[]) {
        component.db._queryResults = {};
      }
    }
    return originalEnd.call(this, isNested);
  };

  const proto = internals.DatabaseFake.prototype;
  // Each component has its own counter in convex-test, so two components'
  // `_scheduled_functions` got the same ids; Convex ids are unique across a
  // deployment, and the log and read sets rely on that: count on the app's database.
  const originalGenerateId = proto._generateId;
  proto._generateId = function (this: any, table: string) {
    // File storage ids are handed to clients before anything checks who may use them: random, as Convex's are.
    if (table === "_storage") return newStorageId();
    const state: ComponentState | undefined = this.__maestro;
    const counter = state?.counterDb;
    if (counter === undefined || counter === this) return originalGenerateId.call(this, table);
    this._nextDocId = counter._nextDocId;
    const id = originalGenerateId.call(this, table) as string;
    counter._nextDocId = this._nextDocId;
    return id;
  };

  const operatorsOf = (query: any) => {
    const filters: unknown[] = query.operators.filter((op: any) => "filter" in op).map((op: any) => op.filter);
    const limit: number | null = query.operators.find((op: any) => "limit" in op)?.limit ?? null;
    return { filterFn: (doc: any) => filters.every((filter) => internals.evaluateFilter(doc, filter)), limit };
  };

  // Queries read their range from an ordered index, one document at a time, instead of sorting the table.
  const originalStartQuery = proto.startQuery;
  proto.startQuery = function (this: any, query: any) {
    const state: ComponentState | undefined = this.__maestro;
    const ordered = state?.orderedSource(this, query.source) ?? null;
    if (ordered === null) return originalStartQuery.call(this, query);
    state!.recordRead(query.source);
    const { filterFn, limit } = operatorsOf(query);
    const id = this._nextQueryId as number;
    this._nextQueryId = id + 1;
    const skipped = (doc: any) => internals.convexGlobalStorage.getStore()?.transactionManager.getMetricsTracker()?.trackRead(getDocumentSize(doc));
    this._queryResults[id] = new LazyQueryResults(ordered.docs(), filterFn, limit, skipped);
    return id;
  };
  const originalQueryNext = proto.queryNext;
  proto.queryNext = function (this: any, queryId: number) {
    const results = this._queryResults[queryId];
    if (results instanceof LazyQueryResults) return results.next();
    return originalQueryNext.call(this, queryId);
  };

  const originalResolve = proto._resolveQuerySource;
  proto._resolveQuerySource = function (this: any, query: any) {
    const state: ComponentState | undefined = this.__maestro;
    if (state === undefined) return originalResolve.call(this, query);
    state.recordRead(query.source);
    const page = this.__page as ReturnType<ComponentState["pageSource"]> | undefined;
    if (page != null) {
      // paginate() walks the view `pageSource` made: from its cursor on, read as the page asks.
      const { filterFn, limit } = operatorsOf(query);
      return { sortedDocs: page.docs, filterFn, limit, fieldPathsToSortBy: page.fieldPathsToSortBy, order: page.order };
    }
    // A cursor `pageSource` could not place: the whole range, already in order, for convex-test to walk (or refuse).
    const ordered = state.orderedSource(this, query.source);
    if (ordered !== null) {
      const { filterFn, limit } = operatorsOf(query);
      return { sortedDocs: [...ordered.docs()], filterFn, limit, fieldPathsToSortBy: ordered.fieldPathsToSortBy, order: ordered.order };
    }
    this.__source = query.source;
    try {
      return originalResolve.call(this, query);
    } finally {
      this.__source = undefined;
    }
  };

  // A page starts at its cursor, found by a search of the index; convex-test walked the whole range to it, and past the page.
  const originalPaginate = proto.paginate;
  proto.paginate = function (this: any, args: { query: any; cursor: string | null }) {
    const state: ComponentState | undefined = this.__maestro;
    const page = state?.pageSource(this, args.query.source, args.cursor) ?? null;
    if (page === null) return originalPaginate.call(this, args);
    this.__page = page;
    try {
      // The view already starts after the cursor.
      return originalPaginate.call(this, { ...args, cursor: null });
    } finally {
      this.__page = undefined;
    }
  };

  const originalIterate = proto._iterateDocs;
  proto._iterateDocs = function (this: any, tableName: string, callback: (doc: any) => void) {
    const state: ComponentState | undefined = this.__maestro;
    if (state === undefined) return originalIterate.call(this, tableName, callback);
    const seen = new Set<string>();
    const writes: Array<Record<string, any>> = this._writes;
    const visit = (id: string) => {
      if (seen.has(id)) return;
      seen.add(id);
      // The newest pending write wins over the committed document (as `get` does).
      let doc: any = undefined;
      for (let i = writes.length - 1; i >= 0 && doc === undefined; i--) doc = writes[i][id];
      if (doc === undefined) doc = this._documents[id] ?? null;
      if (doc !== null) callback(doc);
    };
    for (const id of state.candidateIds(tableName, this.__source)) visit(id);
    // Documents written earlier in this transaction may not be indexed yet.
    for (const level of this._writes) {
      for (const id of Object.keys(level)) if (tableOf(id) === tableName) visit(id);
    }
  };

  const originalGet = proto.get;
  proto.get = function (this: any, tableName: string, id: string) {
    this.__maestro?.recordReadId(id);
    return originalGet.call(this, tableName, id);
  };
}
