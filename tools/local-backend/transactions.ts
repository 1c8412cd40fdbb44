/**
 * Transactions: running queries, mutations, actions and HTTP actions, and
 * turning each top-level commit into one log record and one notification.
 * Results wait until their commits are on disk; a client's repeated mutation
 * gets its recorded outcome. The convex-test patches call it as `__maestro`.
 */
import type { UserIdentity } from "convex/server";
import { convexToJson, jsonToConvex, type JSONValue, type Value } from "convex/values";
import { callStorage, withCallContext } from "./callContext.js";
import { tableOf, type ComponentState, type Components } from "./componentState.js";
import type { TransactionHooks } from "./convexTestPatches.js";
import { DocumentShapes } from "./documentShapes.js";
import type { ExecutionClock } from "./executionLimits.js";
import type { FileStore } from "./fileStorage.js";
import {
  canonicalUdfPath,
  describeError,
  ROOT,
  type Caller,
  type FunctionOutcome,
  type FunctionType,
  type HttpActionRequest,
} from "./functions.js";
import type { Persistence } from "./persistence.js";
import { ReadSet, type DocumentChange } from "./readSets.js";
import { mutationRequestKey, trimResults, type DurableStore, type MutationRequestKey, type StoredDocument } from "./storage.js";
import type { TurnGate } from "./turns.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test internals are untyped */

/** The pending writes of a top-level transaction in each component it wrote to, with what they replace. */
export type PendingWrites = Array<{ state: ComponentState; before: Map<string, any> }>;

export class Transactions implements TransactionHooks<PendingWrites> {
  /** Recorded outcomes of client mutation requests, by `mutationRequestKey`. */
  readonly mutationResults = new Map<string, JSONValue>();
  /**
   * The server's fair turns (turns.ts), at which an action's queries and
   * mutations pause once a turn's budget is spent: they run on promises
   * alone, so a busy action kept the loop from seeing finished fsyncs and
   * from sending subscription updates for tens of milliseconds.
   */
  turns: TurnGate | null = null;

  /** Set by the engine's `close`; commits after it are discarded. */
  closed = false;

  /** Builds committed documents with shared shapes and strings. */
  private readonly shapes = new DocumentShapes();

  /** Times each top-level query and mutation against Convex's limit (executionLimits.ts). */
  clock: ExecutionClock | null = null;

  constructor(
    private readonly t: any,
    private readonly global: any,
    private readonly components: Components,
    private readonly store: DurableStore,
    private readonly persistence: Persistence,
    private readonly files: FileStore,
    /** Told of each committed transaction that wrote something. */
    private readonly notify: (changes: DocumentChange[], ts: bigint) => void,
    private readonly log: (line: string) => void,
  ) {}

  /** Timestamp of the latest commit (nanoseconds). */
  get lastCommitTs(): bigint {
    return this.global.transactionManager._lastCommitTs as bigint;
  }

  /** Resolves once every commit so far is on disk (group commit); rejects if the disk failed. */
  whenDurable(): Promise<void> {
    return this.store.whenDurable();
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
        await this.store.whenDurable();
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
      origin: request.origin,
    })) as Response;
    // Whatever the action committed is on disk before anyone hears of it.
    await this.store.whenDurable();
    return response;
  }

  /** Stores an uploaded body as `ctx.storage.store` would; resolves with its id once the row is durable. */
  async storeUpload(bytes: Uint8Array<ArrayBuffer>, contentType: string): Promise<string> {
    const id = (await this.t.run(async (ctx: any) => await ctx.storage.store(new Blob([bytes], { type: contentType })))) as string;
    await this.store.whenDurable();
    return id;
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
    const info = this.components.functionInfo(canonical);
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

  // ---- commits, called from the patched TransactionManager ----

  /** The pending writes of a top-level transaction in every component, with what they replace. */
  beforeCommit(): PendingWrites {
    const pending: PendingWrites = [];
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
  afterCommit(pending: PendingWrites, commitTs: bigint) {
    if (pending.length === 0) return;
    const changes: DocumentChange[] = [];
    const writes: Array<[string, StoredDocument | null]> = [];
    const deletedFiles: string[] = [];
    for (const { state, before } of pending) {
      const committed = state.db._documents as Record<string, any>;
      const byId = (named: string) => committed[named];
      for (const [id, previous] of before) {
        let next = committed[id] ?? null;
        // Kept for weeks: with the shape and short strings other documents of its fields have (documentShapes.ts).
        if (next !== null) next = committed[id] = this.shapes.settle(next, previous, byId);
        const table = tableOf(id);
        state.indexDocument(table, id, previous, next);
        changes.push({ id, component: state.path, table, before: previous, after: next });
        writes.push([id, next === null ? null : this.persistence.toStored(state, id, next)]);
        if (table === "_storage" && next === null && previous !== null) deletedFiles.push(id);
      }
    }
    const request = callStorage.getStore()?.request;
    const attach = request !== undefined && !request.done;
    if (attach) request.done = true;
    this.store.appendCommit({
      ts: commitTs.toString(),
      nextDocId: this.components.root.db._nextDocId,
      writes,
      ...(attach ? { request: request.key } : {}),
    });
    // Off the commit path: the snapshot is written a chunk per turn while commits go on (storage.ts).
    if (this.store.shouldCompact) void this.persistence.compactInBackground(() => this.lastCommitTs, this.mutationResults);
    if (deletedFiles.length > 0) this.removeFilesWhenDurable(deletedFiles);
    this.notify(changes, commitTs);
  }

  /** A deleted `_storage` row's blob goes once the delete is on disk (a crash before leaves an orphan, swept at start). */
  private removeFilesWhenDurable(ids: string[]) {
    this.store
      .whenDurable()
      .then(() => {
        for (const id of ids) this.files.remove(id);
      })
      .catch((error: unknown) => this.log(`Could not remove deleted files: ${String(error)}`));
  }
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
