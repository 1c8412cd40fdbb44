/**
 * Loads `convex-test`'s engine with the few internals the offline backend
 * builds on (its in-memory database class, its context storage and its
 * scheduled-function runner). The package exports none of them, so we load its
 * single dist file once more with an export line appended. The version is
 * pinned exactly in package.json and checked here, because these are private
 * names that may change in any release.
 */
import type { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { httpActionRequest } from "./bufferedBodies.js";
import { ContextSlot } from "./contextSlots.js";
import { QUERY_ALL_OP } from "./queryBatching.js";
import { validatorPredicates } from "./validatorPredicates.js";
import { valueLimits } from "./valueLimits.js";

export const SUPPORTED_CONVEX_TEST_VERSION = "0.0.60";

const INTERNAL_NAMES = [
  "DatabaseFake",
  "TransactionManager",
  "convexGlobalStorage",
  "runScheduledFunction",
  "evaluateRangeFilter",
  "evaluateFieldPath",
  "evaluateFilter",
  "executionContextStorage",
] as const;

/* eslint-disable @typescript-eslint/no-explicit-any -- these are convex-test's untyped internals */
export interface ConvexTestInternals {
  convexTest: (options: { schema: any; modules: Record<string, () => Promise<any>>; transactionLimits?: boolean }) => any;
  DatabaseFake: any;
  TransactionManager: any;
  convexGlobalStorage: AsyncLocalStorage<any>;
  runScheduledFunction: (options: {
    db: any;
    jobId: string;
    componentPath: string;
    functionPath: { udfPath: string; componentPath: string };
    args: unknown;
    name: string;
  }) => Promise<void>;
  evaluateRangeFilter: (doc: any, filter: any) => boolean;
  evaluateFieldPath: (fieldPath: string, doc: any) => unknown;
  /** A `.filter()` expression on a document. */
  evaluateFilter: (doc: any, filter: any) => unknown;
  /** The running function's component path, among others. */
  executionContextStorage: AsyncLocalStorage<{ componentPath: string; udfType?: string } | undefined>;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * Union validators try each member and catch its exception; for the enum-like
 * unions of literals our schemas use everywhere ("status", "priority") that
 * made return-value validation of a 2,000-card board cost ~50 ms. A literal
 * member that matches is accepted before any member is tried; a value that
 * matches none still gets convex-test's own error.
 */
const UNION_CASE = 'case "union": {\n            let isValid = false;';
const UNION_FAST_PATH =
  'case "union": {\n            if (validator.value.some((member) => member.type === "literal" && member.value === value)) {\n                return;\n            }\n            let isValid = false;';

/**
 * Every document a function reads crosses the syscall boundary as JSON:
 * `convexToJson` then `JSON.stringify` here, for each `db.get` and each row a
 * query yields, so a query re-run over 2,000 unchanged cards re-encoded all of
 * them. Documents are never changed in place (a write stores a new object), so
 * each document object's JSON text and size are computed once and kept beside
 * it (a WeakMap: gone with the object). The text is exactly what the original
 * expression produces: `convexToJson` sorts keys, so `{ value, done }` is
 * `{"done":false,"value":…}`.
 */
const DOCUMENT_TEXT_CACHE = `
const maestroDocumentText = new WeakMap();
function maestroDocument(doc) {
    let entry = maestroDocumentText.get(doc);
    if (entry === undefined) {
        const json = JSON.stringify(convexToJson(doc));
        // plain: no value needs jsonToConvex (no {"$integer"}, {"$bytes"}, {"$float"}: each has a key starting "$").
        entry = { json, size: getDocumentSize(doc), plain: !json.includes('"$') };
        maestroDocumentText.set(doc, entry);
    }
    return entry;
}
DatabaseFake.prototype.maestroQueryAll = function (query) {
    const tracker = getTransactionManager().getMetricsTracker();
    tracker?.trackIndexRange();
    const queryId = this.startQuery(query);
    const entries = [];
    for (;;) {
        const { value, done } = this.queryNext(queryId);
        if (done) {
            break;
        }
        if (value === null) {
            entries.push(null);
            continue;
        }
        const entry = maestroDocument(value);
        tracker?.trackRead(entry.size);
        entries.push(entry);
    }
    delete this._queryResults[queryId];
    return entries;
};
function asyncSyscallImpl() {`;
/**
 * `db.maestroQueryAll(query)`: the same, for the engine's direct path
 * (queryBatching.ts): each row's entry (its JSON text and size), null for a
 * null row, with no syscall's JSON around them.
 *
 * `maestro/queryAll`: a query started, read to its end and closed in one
 * syscall: its index range counted as `1.0/queryStream` counts it, each row
 * tracked against the transaction's read limits exactly as
 * `1.0/queryStreamNext` tracks it (see queryBatching.ts, which calls it from
 * `collect()`), and nothing left to clean up (`1.0/queryCleanup` does nothing).
 */
const QUERY_ALL = `switch (op) {
            case "${QUERY_ALL_OP}": {
                const texts = db.maestroQueryAll(args.query).map((entry) => (entry === null ? "null" : entry.json));
                return \`{"values":[\${texts.join(",")}]}\`;
            }
            case "1.0/get": {`;
const DOCUMENT_SPEEDUPS: Array<[string, string]> = [
  ["function asyncSyscallImpl() {", DOCUMENT_TEXT_CACHE],
  ['switch (op) {\n            case "1.0/get": {', QUERY_ALL],
  [
    "tracker?.trackRead(getDocumentSize(doc));\n            }\n            return doc;",
    "tracker?.trackRead(maestroDocument(doc).size);\n            }\n            return doc;",
  ],
  [
    "const doc = getAndTrack(table, id);\n                return JSON.stringify(convexToJson(doc));",
    "const doc = getAndTrack(table, id);\n                return doc === null ? \"null\" : maestroDocument(doc).json;",
  ],
  [
    "if (!done && value !== null) {\n                    tracker?.trackRead(getDocumentSize(value));\n                }\n                return JSON.stringify(convexToJson({ value, done }));",
    "if (!done && value !== null) {\n                    const entry = maestroDocument(value);\n                    tracker?.trackRead(entry.size);\n                    return `{\"done\":false,\"value\":${entry.json}}`;\n                }\n                return JSON.stringify(convexToJson({ value, done }));",
  ],
];

/**
 * Each call resolved its function's validators by serializing them
 * (`exportArgs()`, `exportReturns()`) and parsing the text back, a large
 * object for a query returning board columns: once per function object now
 * (validation itself still runs on every call). A reload brings new
 * function objects, so new entries.
 */
const VALIDATOR_CACHE = `
const maestroValidators = new WeakMap();
async function resolveFunction(functionPath, type) {`;
const VALIDATOR_SPEEDUPS: Array<[string, string]> = [
  ["async function resolveFunction(functionPath, type) {", VALIDATOR_CACHE],
  [
    "const args = JSON.parse(func.exportArgs());",
    "let validators = maestroValidators.get(func);\n    if (validators === undefined) {\n        validators = { args: JSON.parse(func.exportArgs()), returns: JSON.parse(func.exportReturns()) };\n        maestroValidators.set(func, validators);\n    }\n    const args = validators.args;",
  ],
  ["const returns = JSON.parse(func.exportReturns());", "const returns = validators.returns;"],
];

/**
 * `validateValidator` (every document write, every call's arguments and
 * return value) first asks the validator's compiled predicate
 * (validatorPredicates.ts), which accepts exactly the values it accepts
 * without walking the validator's JSON or throwing an Error per union member
 * that does not match; a value the predicate refuses goes on through
 * convex-test's own code and gets its own error. The compiler reaches the
 * generated module through a global, as the ContextSlot class does, and is
 * given the module's own helpers so that both judge alike.
 */
const VALIDATOR_PREDICATES_GLOBAL = "maestro.localBackend.validatorPredicates";
const PREDICATE_SPEEDUPS: Array<[string, string]> = [
  [
    "function validateValidator(validator, value) {\n    switch (validator.type) {",
    `const maestroPredicateFor = globalThis[Symbol.for(${JSON.stringify(VALIDATOR_PREDICATES_GLOBAL)})]({ isSimpleObject, tableNameFromId, CommitTsPlaceholder });
function validateValidator(validator, value) {
    if (maestroPredicateFor(validator)(value)) {
        return;
    }
    switch (validator.type) {`,
  ],
];

/**
 * One transaction at a time, as convex-test runs them, but handed on in
 * arrival order: convex-test woke every waiting transaction when one ended
 * (all but one went back to sleep), so with 100 clients posting each commit
 * cost 100 wake-ups and the order among waiters was left to chance (the p99
 * of a busy chat). Now the ending transaction wakes the oldest waiter only,
 * and the lock stays taken until it runs, so no newcomer slips in between.
 * The waiter is woken as a microtask. Waking it from the event loop
 * (setImmediate) let I/O in between transactions, but it put a full
 * event-loop turn behind every transaction of a run: brain overhead per model
 * call went from p50 3.8 / p99 10 ms to 30 / 510 ms in bench:runs.
 * Queries the engine runs (subscription re-runs, HTTP queries) wait in a
 * queue of their own that goes first: a query writes nothing, so running it
 * before queued mutations changes no outcome, and a client's update no
 * longer waits behind a flood of posts (the unread badge of issue 13). The
 * engine's Transactions (`__maestro` on the manager) tell which call is a
 * query.
 */
const FIFO_LOCK_SPEEDUPS: Array<[string, string]> = [
  [
    "while (this._waitOnCurrentFunction !== null) {\n                await this._waitOnCurrentFunction;\n            }",
    "if (this._waitOnCurrentFunction !== null) {\n                const queue = this.__maestro?.runningQuery() === true ? (this._maestroQueries ??= []) : (this._maestroWaiters ??= []);\n                await new Promise((resolve) => queue.push(resolve));\n            }",
  ],
  [
    "this._waitOnCurrentFunction = null;\n            this._markTransactionDone();\n            this._markTransactionDone = null;",
    "this._markTransactionDone();\n            this._markTransactionDone = null;\n            const next = this._maestroQueries?.shift() ?? this._maestroWaiters?.shift();\n            // Held for `next` until it runs (it installs its own promise).\n            this._waitOnCurrentFunction = next === undefined ? null : Promise.resolve();\n            next?.();",
  ],
];

/**
 * A storage write (`ctx.storage.store`, `ctx.storage.delete`) joins the
 * caller's own transaction in a mutation, and runs in a transaction of its
 * own, in its turn for the lock, from an action or an HTTP action.
 * convex-test told the two apart by asking the manager whether *any*
 * transaction was open, which in a test (one call at a time) is the caller's.
 * On a server, an action storing a file while another request's transaction
 * was open wrote its `_storage` row into that one without the lock: kept or
 * lost with the other's outcome, or, when the other committed while the
 * blob's hash was computed, thrown as "Write outside of transaction" (one of
 * two uploads sent at once got a 500). The caller's own nested-transaction
 * lock (set for the body of each query and mutation, absent in actions)
 * says which case it is.
 */
const OWN_TRANSACTION: Array<[string, string]> = [
  [
    "async function writeToDatabase(impl) {\n    const db = getDb();\n    if (!getTransactionManager().isInTransaction()) {",
    "async function writeToDatabase(impl) {\n    const db = getDb();\n    if (nestedTxStorage.getStore() === undefined) {",
  ],
];

/**
 * convex-test's six AsyncLocalStorage instances become slots of one carrier
 * (contextSlots.ts): each enabled instance costs a hook call on every promise.
 * The class reaches the generated module through a global, whatever loader
 * imports it.
 */
const CONTEXT_SLOT_GLOBAL = "maestro.localBackend.ContextSlot";
const CONTEXT_SLOT_SPEEDUPS: Array<[string, string]> = [
  [
    'import { AsyncLocalStorage } from "node:async_hooks";',
    `const AsyncLocalStorage = globalThis[Symbol.for(${JSON.stringify(CONTEXT_SLOT_GLOBAL)})];`,
  ],
];

/**
 * Every function call re-checked its 26 global accessors (a property
 * descriptor each), to re-wrap globals a test stubbed in between. The backend
 * replaces globals (Date, console) only before its first function runs, so
 * the accessors are installed once.
 */
const GLOBAL_PROXY_SPEEDUPS: Array<[string, string]> = [
  [
    "function installGlobalProxies() {\n    const g = globalThis;",
    "let maestroGlobalProxiesInstalled = false;\nfunction installGlobalProxies() {\n    if (maestroGlobalProxiesInstalled)\n        return;\n    maestroGlobalProxiesInstalled = true;\n    const g = globalThis;",
  ],
];

/**
 * `withAuth()` builds a whole accessor (some forty closures: run a query, a
 * mutation, an action, fetch, ...) over an auth and request options, and
 * convex-test called it afresh for every call a function makes: each
 * component call (the rate limiter's, on every chat post), each action's
 * query or mutation, each scheduled function. The accessor holds no state
 * of its own beyond those two, so it is built once per auth and options
 * (WeakMaps: gone with them).
 */
const WITH_AUTH_SIGNATURE = "function withAuth(auth = authStorage.getStore() ?? new AuthFake(), requestOptions = DEFAULT_REQUEST_OPTIONS) {";
const WITH_AUTH_CACHE = `const maestroAccessors = new WeakMap();
function withAuth(auth = authStorage.getStore() ?? new AuthFake(), requestOptions = DEFAULT_REQUEST_OPTIONS) {
    let byOptions = maestroAccessors.get(auth);
    if (byOptions === undefined) {
        byOptions = new WeakMap();
        maestroAccessors.set(auth, byOptions);
    }
    let accessor = byOptions.get(requestOptions);
    if (accessor === undefined) {
        accessor = maestroBuildAccessor(auth, requestOptions);
        byOptions.set(requestOptions, accessor);
    }
    return accessor;
}
function maestroBuildAccessor(auth, requestOptions) {`;
const ACCESSOR_SPEEDUPS: Array<[string, string]> = [[WITH_AUTH_SIGNATURE, WITH_AUTH_CACHE]];

/**
 * Convex stops a query or mutation whose user code ran past its time
 * (executionLimits.ts): the clock is read at each database call and, here,
 * once more when the function returns, before a mutation commits or a query
 * answers. `__maestro` is the engine's (convexTestPatches.ts's TransactionHooks).
 */
const FINISHED_CHECK = "transactionManager.__maestro?.clock?.finished();";
const EXECUTION_LIMIT_CHECKS: Array<[string, string]> = [
  [
    "const rawResult = await nestedTxStorage.run(childLock, invokeInContext);\n            const commitTs = transactionManager.commit(isNested);",
    `const rawResult = await nestedTxStorage.run(childLock, invokeInContext);\n            ${FINISHED_CHECK}\n            const commitTs = transactionManager.commit(isNested);`,
  ],
  [
    "const rawResult = await nestedTxStorage.run(childLock, invokeInContext);\n            const result = jsonToConvex(JSON.parse(rawResult));\n            if (!isNested && hasPendingValues(result)) {",
    `const rawResult = await nestedTxStorage.run(childLock, invokeInContext);\n            ${FINISHED_CHECK}\n            const result = jsonToConvex(JSON.parse(rawResult));\n            if (!isNested && hasPendingValues(result)) {`,
  ],
];

/**
 * Convex's limits on values (valueLimits.ts): every document a function
 * writes to an app or component table (system tables are the backend's own),
 * every call's arguments, and every query's, mutation's and action's return
 * value, checked where the deployment checks them. A mutation's return value
 * is checked before it commits, as its return validator is. The checks reach
 * the generated module through a global, as the ContextSlot class does, and
 * are given its `isSimpleObject`, so that they see the objects it validates.
 */
const VALUE_LIMITS_GLOBAL = "maestro.localBackend.valueLimits";
const VALUE_LIMITS: Array<[string, string]> = [
  [
    "function tableNameFromId(id) {",
    `const maestroValueLimits = globalThis[Symbol.for(${JSON.stringify(VALUE_LIMITS_GLOBAL)})]({ isSimpleObject });\nfunction tableNameFromId(id) {`,
  ],
  [
    "function validateFunctionArgs(argsValidator, args, functionPath, allowPendingValues) {",
    "function validateFunctionArgs(argsValidator, args, functionPath, allowPendingValues) {\n    maestroValueLimits.checkArgsSize(args, functionPath.udfPath);\n    maestroValueLimits.checkValue(args);",
  ],
  [
    "_addWrite(id, newValue) {",
    '_addWrite(id, newValue) {\n        if (newValue !== null && tableNameFromId(id)?.startsWith("_") === false) {\n            maestroValueLimits.checkDocument(newValue);\n        }',
  ],
  [
    "const result = jsonToConvex(JSON.parse(rawResult));\n            if (!isNested && hasPendingValues(result)) {",
    "const result = jsonToConvex(JSON.parse(rawResult));\n            maestroValueLimits.checkResultSize(result, rawResult.length, functionPath.udfPath);\n            maestroValueLimits.checkValue(result);\n            if (!isNested && hasPendingValues(result)) {",
  ],
  [
    "                return jsonToConvex(JSON.parse(rawResult));",
    "                const result = jsonToConvex(JSON.parse(rawResult));\n                maestroValueLimits.checkResultSize(result, rawResult.length, functionPath.udfPath);\n                maestroValueLimits.checkValue(result);\n                return result;",
  ],
];

/**
 * A mutation's return value is checked against its `returns` validator
 * before its writes commit, so a value that fails commits nothing, as on
 * Convex. convex-test checked it after the commit: the writes stayed and the
 * caller got the error. Nested calls (a component's mutation, `runMutation`
 * from a mutation) roll back only their own writes, as a failed call does.
 */
const RETURNS_BEFORE_COMMIT: Array<[string, string]> = [
  [
    "const runMutationWithHandler = async (handler, args, extraCtx = {}, functionPath, isNested, transactionLimits) => {",
    "const runMutationWithHandler = async (handler, args, extraCtx = {}, functionPath, isNested, transactionLimits, returnsValidator = null) => {",
  ],
  [
    "const commitTs = transactionManager.commit(isNested);\n            const result = jsonToConvex(JSON.parse(rawResult));",
    'const result = jsonToConvex(JSON.parse(rawResult));\n            maestroValueLimits.checkResultSize(result, rawResult.length, functionPath.udfPath);\n            maestroValueLimits.checkValue(result);\n            validateReturnValue(returnsValidator, result, "mutation", functionPath);\n            const commitTs = transactionManager.commit(isNested);',
  ],
  [
    "const result = await runMutationWithHandler(resolved.handler, args, {}, resolved.functionPath, isNested, transactionLimits);\n                validateReturnValue(resolved.returns, result, \"mutation\", resolved.functionPath);\n                return result;",
    "return await runMutationWithHandler(resolved.handler, args, {}, resolved.functionPath, isNested, transactionLimits, resolved.returns);",
  ],
];

/**
 * An HTTP action's Request keeps its body as bytes until its stream is
 * asked for (bufferedBodies.ts): Node's made a stream of it at once and the
 * action read it back through the stream's promises. The factory reaches the
 * generated module through a global, as the ContextSlot class does.
 */
const HTTP_REQUEST_GLOBAL = "maestro.localBackend.httpActionRequest";
const HTTP_REQUEST_SPEEDUPS: Array<[string, string]> = [
  [
    "a.invokeHttpAction(new Request(url, init))",
    `a.invokeHttpAction(globalThis[Symbol.for(${JSON.stringify(HTTP_REQUEST_GLOBAL)})](url, init))`,
  ],
  // The action's `request.url` is on the origin the client called (the site server passes `init.origin`), as on Convex,
  // not convex-test's made-up https://some.convex.site: answers that name their own address (an agent's endpoint_url) stay on this machine.
  ["const url = new URL(`https://some.convex.site${path}`);", "const url = new URL(`${init?.origin ?? \"https://some.convex.site\"}${path}`);"],
];

/**
 * A finished job as Convex stores it: `completedTime` on success as on
 * failure (convex-test set it on failure only), and a failure's `error`
 * message, which convex-test left out. convexTestPatches.ts finishes a
 * scheduled mutation's job with it; the generated module reaches it through
 * a global, as the ContextSlot class does.
 */
export const finishedJob = {
  // Convex stamps a canceled job's completion too (its garbage collector keeps every finished job 7 days from it).
  canceled: () => ({ state: { kind: "canceled" as const }, completedTime: Date.now() }),
  succeeded: () => ({ state: { kind: "success" as const }, completedTime: Date.now() }),
  failed: (error: unknown) => ({
    state: { kind: "failed" as const, error: error instanceof Error ? error.message : String(error) },
    completedTime: Date.now(),
  }),
};
const FINISHED_JOB_GLOBAL = "maestro.localBackend.finishedJob";
const FINISHED_JOBS: Array<[string, string]> = [
  [
    'db.patch("_scheduled_functions", jobId, {\n                    state: { kind: "failed" },\n                    completedTime: Date.now(),\n                });',
    'db.patch("_scheduled_functions", jobId, maestroFinishedJob.failed(error));',
  ],
  ['db.patch("_scheduled_functions", jobId, {\n                state: { kind: "success" },\n            });', 'db.patch("_scheduled_functions", jobId, maestroFinishedJob.succeeded());'],
  ['db.patch("_scheduled_functions", id, { state: { kind: "canceled" } });', 'db.patch("_scheduled_functions", id, maestroFinishedJob.canceled());'],
];

/**
 * A scheduled mutation's job while the mutation runs (SCHEDULED_MUTATIONS):
 * the first top-level transaction begun in this context claims it.
 */
export interface ScheduledJob {
  /** The database of the component the job document lives in (maybe not the function's). */
  db: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- convex-test's DatabaseFake
  jobId: string;
  /** Set by the mutation's own transaction: work it starts inherits the context. */
  claimed: boolean;
  /** The job was canceled or gone when that transaction began: the function did not run. */
  notPending: boolean;
}

export const scheduledJobStorage = new ContextSlot<ScheduledJob>();

/**
 * A scheduled action starts once every commit so far, the one that scheduled
 * it included, is on disk: an action's effects reach outside (a model call,
 * a webhook sent with `node:http`, which the fetch gate in
 * functionGlobals.ts does not see), and none may announce a write a crash
 * then loses. A job runs at the commit that scheduled it, while that
 * commit's log line may still wait behind a running sync (group commit). A
 * scheduled mutation does not wait: its writes follow in the same log.
 *
 * A scheduled mutation runs in one transaction, as on Convex: the check that
 * its job is still pending, the function's writes and the job's move to
 * `success` commit together (convexTestPatches.ts's `begin` and `commit` do
 * the job's part, for the job `scheduledJobStorage` holds). convex-test ran
 * it in three: job `inProgress`, the function, job `success`. That was two
 * more commits per job (log records, fsyncs, subscription checks), and a
 * crash after the function's commit left the job `inProgress`, which a
 * restart ran again. A mutation that throws commits nothing and its job is
 * marked `failed` in a transaction of its own, as before. Actions keep the
 * three steps: Convex runs them at most once, and their work spans many
 * transactions.
 */
const SCHEDULED_JOB_GLOBAL = "maestro.localBackend.scheduledJob";
const SCHEDULED_MUTATION = `const maestroFinishedJob = globalThis[Symbol.for(${JSON.stringify(FINISHED_JOB_GLOBAL)})];
const maestroScheduledJob = globalThis[Symbol.for(${JSON.stringify(SCHEDULED_JOB_GLOBAL)})];
async function maestroRunScheduledMutation({ db, jobId, componentPath, functionPath, args, name }) {
    const job = { db, jobId, claimed: false, notPending: false };
    try {
        await maestroScheduledJob.run(job, () => withAuth().mutationFromPath(functionPath, args));
    }
    catch (error) {
        // Canceled or gone when its transaction began: it did not run.
        if (job.notPending)
            return;
        console.error(\`Error when running scheduled function \${name}\`, error);
        await withAuth().runInComponent(componentPath, async () => {
            if (db.get("_scheduled_functions", jobId)?.state.kind !== "pending")
                return;
            db.patch("_scheduled_functions", jobId, maestroFinishedJob.failed(error));
        });
    }
}
async function runScheduledFunction({ db, jobId, componentPath, functionPath, args, name, }) {`;
const SCHEDULED_MUTATIONS: Array<[string, string]> = [
  ["async function runScheduledFunction({ db, jobId, componentPath, functionPath, args, name, }) {", SCHEDULED_MUTATION],
  [
    "authStorage.run(new AuthFake(), async () => {\n        const canceled = await withAuth().runInComponent(componentPath, async () => {",
    // A function that cannot be resolved takes convex-test's path, which marks its job failed.
    'authStorage.run(new AuthFake(), async () => {\n        if (await resolveFunction(functionPath, "any").then(({ func }) => func.isMutation === true, () => false)) {\n            await maestroRunScheduledMutation({ db, jobId, componentPath, functionPath, args, name });\n            return;\n        }\n        await getTransactionManager().__maestro?.whenDurable();\n        const canceled = await withAuth().runInComponent(componentPath, async () => {',
  ],
];

/**
 * A job a query or mutation schedules to run now (`runAfter(0)`) is started
 * once its transaction commits, after the commit's subscription flush was
 * queued (convexTestPatches.ts arms them from `commit`), instead of on a
 * timer armed inside the function. The timer (1 ms at least) fired in the
 * loop's timers phase, ahead of the flush queued for the same commit: a
 * delegation's two tasks reached the board only after both assignees' jobs
 * and the next model reply had run (~13 ms). A job from a transaction that
 * rolls back is dropped with it (convex-test's timer found no job and did
 * nothing). Jobs scheduled for later, or from an action, keep the timer.
 */
const SCHEDULED_AT_COMMIT: Array<[string, string]> = [
  [
    "function frameworkSetTimeout(cb, ms) {",
    `function maestroArmScheduled(fire, ms) {
    const manager = getTransactionManager();
    if (ms > 0 || manager.__maestro === undefined || !manager.isInTransaction()) {
        return frameworkSetTimeout(fire, ms);
    }
    (manager.__maestroDueAtCommit ??= []).push(fire);
}
function frameworkSetTimeout(cb, ms) {`,
  ],
  ["                    frameworkSetTimeout(() => {\n                        scheduler.timerFired();", "                    maestroArmScheduled(() => {\n                        scheduler.timerFired();"],
];

/** Convex's own checks that convex-test leaves out; the app's unit tests run with these alone. */
const CONVEX_CHECKS = [...RETURNS_BEFORE_COMMIT, ...VALUE_LIMITS];

/** Which changes a load makes: none (convex-test as published), Convex's checks alone, or all the offline backend runs on. */
export type ConvexTestPatches = "published" | "convex checks" | "offline backend";

function applyPatches(source: string, version: string, patches: ConvexTestPatches): string {
  const changes: Array<[string, string]> =
    patches === "published"
      ? []
      : patches === "convex checks"
        ? CONVEX_CHECKS
        : [
            [UNION_CASE, UNION_FAST_PATH],
            ...DOCUMENT_SPEEDUPS,
            ...VALIDATOR_SPEEDUPS,
            ...PREDICATE_SPEEDUPS,
            ...FIFO_LOCK_SPEEDUPS,
            ...OWN_TRANSACTION,
            ...CONTEXT_SLOT_SPEEDUPS,
            ...GLOBAL_PROXY_SPEEDUPS,
            ...ACCESSOR_SPEEDUPS,
            ...EXECUTION_LIMIT_CHECKS,
            ...CONVEX_CHECKS,
            ...HTTP_REQUEST_SPEEDUPS,
            ...FINISHED_JOBS,
            ...SCHEDULED_MUTATIONS,
            ...SCHEDULED_AT_COMMIT,
          ];
  // Each change's text is found exactly once in the published source, or this version is not the one they were made for.
  for (const [from] of changes) {
    if (source.split(from).length !== 2) {
      throw new Error(`convex-test ${version}: the code tools/local-backend patches changed shape; update it there.`);
    }
  }
  let patched = source;
  for (const [from, to] of changes) patched = patched.replace(from, () => to);
  return patched;
}

let loaded: Promise<ConvexTestInternals> | null = null;

/** The engine module, loaded once per process. */
export function loadConvexTestInternals(projectRoot: string): Promise<ConvexTestInternals> {
  loaded ??= load<ConvexTestInternals>(projectRoot, INTERNAL_NAMES, "offline backend");
  return loaded;
}

/**
 * convex-test's module with `names` exported besides its own exports, with
 * these `patches`: the app's unit tests run on Convex's checks, and tests
 * hold the offline backend's engine beside the published one.
 */
export function importConvexTest(projectRoot: string, names: readonly string[], patches: ConvexTestPatches): Promise<Record<string, unknown>> {
  return load(projectRoot, names, patches);
}

async function load<T>(projectRoot: string, names: readonly string[], patches: ConvexTestPatches): Promise<T> {
  const require = createRequire(path.join(projectRoot, "package.json"));
  const packageJsonPath = require.resolve("convex-test/package.json");
  const { version } = JSON.parse(readFileSync(packageJsonPath, "utf8")) as { version: string };
  if (version !== SUPPORTED_CONVEX_TEST_VERSION) {
    throw new Error(
      `The offline backend needs convex-test ${SUPPORTED_CONVEX_TEST_VERSION} exactly, found ${version}. ` +
        "Pin it in package.json or update tools/local-backend for the new version.",
    );
  }
  const distDir = path.join(path.dirname(packageJsonPath), "dist");
  let source = readFileSync(path.join(distDir, "index.js"), "utf8");
  for (const name of names) {
    if (!new RegExp(`(class|function|const) ${name}\\b`).test(source)) {
      throw new Error(`convex-test ${version} no longer defines ${name}; tools/local-backend needs updating.`);
    }
  }
  // Relative imports must keep pointing into the package's own dist folder.
  source = source.replace(/from "\.\/([^"]+)"/g, (_m, file: string) => {
    return `from ${JSON.stringify(pathToFileURL(path.join(distDir, file)).href)}`;
  });
  source = applyPatches(source, version, patches);
  source += `\nexport { ${names.join(", ")} };\n`;
  // Written under node_modules so that bare imports ("convex/server") resolve
  // to the project's own copy, the one the app's functions use.
  const outDir = path.join(projectRoot, "node_modules", ".cache", "maestro-local-backend");
  mkdirSync(outDir, { recursive: true });
  (globalThis as Record<symbol, unknown>)[Symbol.for(CONTEXT_SLOT_GLOBAL)] = ContextSlot;
  (globalThis as Record<symbol, unknown>)[Symbol.for(HTTP_REQUEST_GLOBAL)] = httpActionRequest;
  (globalThis as Record<symbol, unknown>)[Symbol.for(VALUE_LIMITS_GLOBAL)] = valueLimits;
  (globalThis as Record<symbol, unknown>)[Symbol.for(VALIDATOR_PREDICATES_GLOBAL)] = validatorPredicates;
  (globalThis as Record<symbol, unknown>)[Symbol.for(SCHEDULED_JOB_GLOBAL)] = scheduledJobStorage;
  (globalThis as Record<symbol, unknown>)[Symbol.for(FINISHED_JOB_GLOBAL)] = finishedJob;
  // Named by its content: a checkout of other code sharing this node_modules (a baseline for a benchmark) writes its own file.
  const outFile = path.join(outDir, `convex-test-${version}-${createHash("sha256").update(source).digest("hex").slice(0, 12)}.mjs`);
  writeFileSync(outFile, source);
  return (await import(pathToFileURL(outFile).href)) as T;
}
