/**
 * Scheduling: which component each scheduled job runs in (kept across
 * restarts), re-arming the jobs a restart finds pending, and running a
 * function as the scheduler or a cron does (crons.ts hands its jobs here).
 * convex-test's own scheduler arms the jobs scheduled while the backend runs.
 */
import type { JSONValue } from "convex/values";
import type { ComponentState, Components } from "./componentState.js";
import type { ConvexTestInternals } from "./convexTestInternals.js";
import { ROOT, type Caller, type FunctionOutcome } from "./functions.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test internals are untyped */

/**
 * Field naming, on a stored `_scheduled_functions` document, the component
 * whose function the job runs when that is not the job's own component (a
 * component calling back into the app through a function handle, as
 * workpool does). convex-test keeps it only in its timer.
 */
export const TARGET_FIELD = "_target";

/**
 * How long a finished job's `_scheduled_functions` row is kept (ms):
 * Convex's "Scheduled function results are available for 7 days after they
 * have completed", its SCHEDULED_JOB_RETENTION. Rows of succeeded, failed
 * and canceled jobs older than this are deleted; a pending or running job's
 * row never is.
 */
export const SCHEDULED_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Rows one pruning transaction deletes at most (Convex's SCHEDULED_JOB_GARBAGE_COLLECTION_BATCH_SIZE). */
export const SCHEDULED_JOB_PRUNE_BATCH = 1000;

/** How often finished jobs past their retention are looked for (ms); at most the retention itself. */
export const SCHEDULED_JOB_PRUNE_EVERY_MS = 60_000;

/** The retention MAESTRO_SCHEDULED_JOB_RETENTION_MS names (tests and benchmarks fit weeks into minutes with it), else Convex's. */
export function scheduledJobRetentionMsFromEnv(value = process.env.MAESTRO_SCHEDULED_JOB_RETENTION_MS): number {
  if (value === undefined || value === "") return SCHEDULED_JOB_RETENTION_MS;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) throw new Error(`MAESTRO_SCHEDULED_JOB_RETENTION_MS must be a positive whole number of milliseconds, not ${JSON.stringify(value)}.`);
  return ms;
}

const FINISHED_STATES = new Set(["success", "failed", "canceled"]);

/** What runs a scheduled or cron job: the engine's own entry points. */
export interface FunctionRunner {
  runQuery(udfPath: string, args: JSONValue, caller: Caller): Promise<FunctionOutcome>;
  runMutation(udfPath: string, args: JSONValue, caller: Caller): Promise<FunctionOutcome>;
  runAction(udfPath: string, args: JSONValue, caller: Caller): Promise<FunctionOutcome>;
}

export class Scheduling {
  /** Pending scheduled job id → the component whose function it runs, when not its own. */
  readonly jobTargets = new Map<string, string>();
  /** Finished jobs' rows deleted so far (for tests and benchmarks). */
  prunedJobs = 0;
  private pruneTimer: NodeJS.Timeout | null = null;
  private pruning: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly internals: ConvexTestInternals,
    private readonly t: any,
    private readonly global: any,
    private readonly components: Components,
    private readonly runner: FunctionRunner,
    private readonly log: (line: string) => void,
  ) {}

  /** Notes which component each newly scheduled job targets, so a restart can resume it there. */
  recordScheduleTargets() {
    const asyncSyscall = this.global.asyncSyscall as (op: string, jsonArgs: string) => Promise<string>;
    // Only `1.0/schedule` waits for its answer here; every other syscall is handed on as it is (no async frame of its own).
    this.global.asyncSyscall = (op: string, jsonArgs: string): Promise<string> => {
      if (op !== "1.0/schedule") return asyncSyscall(op, jsonArgs);
      const current = this.internals.executionContextStorage.getStore()?.componentPath ?? ROOT;
      return asyncSyscall(op, jsonArgs).then((result) => {
        const target = scheduleTarget(JSON.parse(jsonArgs), current);
        if (target !== current) this.jobTargets.set(JSON.parse(result) as string, target);
        return result;
      });
    };
  }

  /** Runs an internal function as the scheduler or a cron does: no identity. */
  async runScheduled(udfPath: string, args: JSONValue): Promise<FunctionOutcome> {
    const info = this.components.functionInfo(udfPath);
    if (info === null || info.type === "httpAction") {
      return { ok: false, errorMessage: `Could not find function for '${udfPath}'`, logLines: [] };
    }
    const admin: Caller = { kind: "admin" };
    if (info.type === "query") return await this.runner.runQuery(udfPath, args, admin);
    if (info.type === "mutation") return await this.runner.runMutation(udfPath, args, admin);
    return await this.runner.runAction(udfPath, args, admin);
  }

  /**
   * Scheduled functions survive a restart as `_scheduled_functions` documents
   * of the component that scheduled them; re-arm the pending ones. An action
   * caught mid-run (`inProgress`) is marked failed: Convex runs actions at
   * most once. A mutation's job is never seen `inProgress`: it goes from
   * pending to success in the commit of the mutation's writes
   * (SCHEDULED_MUTATIONS in convexTestInternals.ts), so a crash leaves it
   * pending with none of them, and it runs once. Data from an older backend,
   * which marked a job `inProgress` in a commit of its own before running
   * the mutation, may still hold one: most likely caught before the
   * mutation's commit, it is run again.
   */
  resumeScheduledFunctions() {
    for (const state of this.components.values()) {
      const jobs = [...(state.tables.get("_scheduled_functions")?.values() ?? [])];
      const pending = jobs.filter((job) => job.state.kind === "pending" || job.state.kind === "inProgress");
      if (pending.length === 0) continue;
      const targetOf = (job: any) => this.jobTargets.get(job._id) ?? state.path;
      const isMutation = (job: any) => this.components.functionInfo(job.name, targetOf(job))?.type === "mutation";
      void this.t
        .runInComponent(state.path, async () => {
          for (const job of pending) {
            if (job.state.kind !== "inProgress") continue;
            // A mutation's job here comes from an older backend's data (see above).
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
        .catch((error: unknown) => this.log(`Could not resume scheduled functions: ${String(error)}`));
    }
  }

  /**
   * Deletes the rows of finished jobs once they are past `retentionMs`, as
   * Convex's scheduled-job garbage collector does: at start, then every
   * SCHEDULED_JOB_PRUNE_EVERY_MS (or sooner with a shorter retention), at
   * most SCHEDULED_JOB_PRUNE_BATCH rows per transaction. Without it every
   * job ever scheduled stayed in memory and in the snapshot for good.
   */
  startPruningFinishedJobs(retentionMs: number) {
    const prune = () => {
      if (this.closed || this.pruning !== null) return;
      this.pruning = this.pruneFinishedJobs(retentionMs)
        .then(() => {})
        .catch((error: unknown) => this.log(`Could not prune finished scheduled functions: ${String(error)}`))
        .finally(() => (this.pruning = null));
    };
    prune();
    this.pruneTimer = setInterval(prune, Math.min(SCHEDULED_JOB_PRUNE_EVERY_MS, retentionMs));
    this.pruneTimer.unref();
  }

  /** One pass: every component's finished jobs completed before now − `retentionMs`, a batch per transaction. */
  async pruneFinishedJobs(retentionMs: number): Promise<number> {
    const before = Date.now() - retentionMs;
    let pruned = 0;
    for (const state of this.components.values()) {
      const expired: string[] = [];
      for (const job of state.tables.get("_scheduled_functions")?.values() ?? []) {
        // A canceled job from an older backend has no completedTime: its creation stands in.
        if (FINISHED_STATES.has(job.state.kind) && (job.completedTime ?? job._creationTime) < before) expired.push(job._id);
      }
      for (let start = 0; start < expired.length && !this.closed; start += SCHEDULED_JOB_PRUNE_BATCH) {
        const batch = expired.slice(start, start + SCHEDULED_JOB_PRUNE_BATCH);
        pruned += (await this.t.runInComponent(state.path, async () => {
          let deleted = 0;
          for (const id of batch) {
            // Read again inside the transaction: a row already gone is skipped.
            if (state.db.get("_scheduled_functions", id) === null) continue;
            state.db.delete("_scheduled_functions", id);
            deleted += 1;
          }
          return deleted;
        })) as number;
      }
    }
    this.prunedJobs += pruned;
    return pruned;
  }

  /** On close: timers convex-test armed for scheduled functions skip jobs that no longer exist. */
  forgetScheduledFunctions() {
    this.closed = true;
    if (this.pruneTimer !== null) clearInterval(this.pruneTimer);
    for (const state of this.components.values()) {
      for (const id of state.tables.get("_scheduled_functions")?.keys() ?? []) delete state.db._documents[id];
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
        .catch((error: unknown) => this.log(`Scheduled function ${name} failed: ${String(error)}`));
    };
    setTimeout(fire, Math.max(0, scheduledTime - Date.now()));
  }
}

/** The component a `1.0/schedule` call targets, resolved as convex-test resolves it. */
function scheduleTarget(args: { name?: string; reference?: string; functionHandle?: string }, current: string): string {
  if (args.functionHandle !== undefined) return args.functionHandle.split("function://")[1].split(";")[0];
  if (args.name !== undefined || args.reference === undefined) return current;
  // "_reference/childComponent/<name>/module/function"
  const child = args.reference.split("/")[2];
  return current === ROOT ? child : `${current}/${child}`;
}
