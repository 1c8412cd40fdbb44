/**
 * Convex's limits on one query or mutation, enforced offline as a deployment
 * enforces them, so a function that would fail in production fails here:
 * - the transaction limits (documents and bytes read and written, index
 *   ranges, scheduled functions): convex-test's `transactionLimits: true`,
 *   plus documents a `.filter()` skipped, which Convex counts as scanned
 *   (see LazyQueryResults in convexTestPatches.ts);
 * - the execution time: user code may run for 1 s, database calls not
 *   counted, then the call fails with the deployment's own message. Code
 *   cannot be interrupted mid-statement in this process, so the clock is
 *   read at every database call and once more when the function returns:
 *   the call fails there, and a mutation commits nothing. The clock is the
 *   process's CPU time, not the wall clock: on a machine shared with other
 *   work a function waiting for a core is not running, and Convex Auth's
 *   password hash (a mutation) took past 1 s of wall time at a load of 12
 *   on 2 cores while using a fraction of it.
 *
 * Reading the CPU clock is a system call that sums every thread of the
 * process (2 µs and more under load; three of them per database call were a
 * tenth of a chat post's CPU). The wall clock is cheap, and user code cannot
 * use more CPU time than the wall time it ran, so each check reads only the
 * wall clock; the CPU clock is read again only once a function's user code
 * has run past the limit by the wall clock. Even one reading per transaction
 * cost 30-75 µs of wall time each on a busy 2-core machine (measured in the
 * backend under bench:chat and the small-department mention), about a
 * hundred per @Jarvis mention: a transaction starts from the latest reading
 * when it is at most CPU_READING_MAX_AGE_MS old, as if every core had run
 * since, so its own time is never over-counted (and under-counted by at
 * most that age times the cores, 20 ms of the 1 s on 2 cores).
 */
import { availableParallelism } from "node:os";
// Node's own objects, not the globals: convex-test makes `performance` and `process` global accessors (its
// per-transaction overrides), a context lookup per use, and the clock is read around every database call.
import { performance } from "node:perf_hooks";
import process from "node:process";
import type { ConvexTestInternals } from "./convexTestInternals.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test internals are untyped */

/** Convex's limit on a query's or mutation's user code (`docs.convex.dev/production/state/limits`). */
export const USER_TIMEOUT_MS = 1000;

/** Convex's message (its `UserTimeoutError`, a Rust `Duration` printed with `{:?}`: "1s", "250ms"). */
export function userTimeoutMessage(ms: number): string {
  const duration = ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
  return `Function execution timed out (maximum duration: ${duration})`;
}

/** Database calls: their time is the database's, not the function's. */
const DATABASE_SYSCALLS = new Set([
  "1.0/get",
  "1.0/queryStream",
  "1.0/queryStreamNext",
  "1.0/queryPage",
  "1.0/queryCleanup",
  "1.0/insert",
  "1.0/shallowMerge",
  "1.0/replace",
  "1.0/remove",
  "1.0/count",
  "1.0/db/normalizeId",
  "maestro/queryAll",
]);

/** CPU milliseconds (user + system) the process has used. */
function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The oldest reading of the CPU clock a transaction may start from (ms of wall time). */
export const CPU_READING_MAX_AGE_MS = 10;

/** The clocks a transaction is timed with (milliseconds): replaced in tests. */
export interface Clocks {
  wall: () => number;
  cpu: () => number;
  /** How many threads can run at once: the most CPU time the process can use per millisecond of wall time. */
  cores: number;
}

const PROCESS_CLOCKS: Clocks = { wall: () => performance.now(), cpu: cpuNow, cores: availableParallelism() };

/**
 * The running top-level transaction's clock: when it started (wall and CPU)
 * and how long its database calls took by the wall clock (their CPU time is
 * at most that, so leaving it out never counts database time as the function's).
 */
interface Clock {
  wallStart: number;
  cpuStart: number;
  database: number;
}

export class ExecutionClock {
  private clock: Clock | null = null;
  /** The latest reading of the CPU clock, and the wall time it was taken at. */
  private reading: { wall: number; cpu: number } | null = null;

  constructor(
    private readonly internals: ConvexTestInternals,
    /** Milliseconds of user code a query or mutation may run. */
    readonly limitMs: number = USER_TIMEOUT_MS,
    private readonly clocks: Clocks = PROCESS_CLOCKS,
  ) {}

  /** A top-level transaction took the lock: its user code starts now. */
  started() {
    const wall = this.clocks.wall();
    const reading = this.reading !== null && wall - this.reading.wall <= CPU_READING_MAX_AGE_MS ? this.reading : this.readCpu(wall);
    // Every core may have run since the reading: counted as used before the start, so never as the function's.
    this.clock = { wallStart: wall, cpuStart: reading.cpu + (wall - reading.wall) * this.clocks.cores, database: 0 };
  }

  private readCpu(wall: number) {
    this.reading = { wall, cpu: this.clocks.cpu() };
    return this.reading;
  }

  ended() {
    this.clock = null;
  }

  /**
   * Throws Convex's timeout error once the running query's or mutation's
   * user code has used up its time. Only code of that function is checked:
   * an action's own calls run beside it (its queries and mutations wait for
   * the lock, and get a clock of their own).
   */
  check() {
    if (this.clock === null) return;
    const udfType = this.internals.executionContextStorage.getStore()?.udfType;
    if (udfType === "query" || udfType === "mutation") this.finished();
  }

  /** The running query or mutation returned: past its time, it fails (a mutation commits nothing). */
  finished() {
    const clock = this.clock;
    if (clock === null) return;
    // Within the limit by the wall clock, so within it by the CPU clock: no system call.
    const wall = this.clocks.wall();
    if (wall - clock.wallStart - clock.database <= this.limitMs) return;
    if (this.readCpu(wall).cpu - clock.cpuStart - clock.database > this.limitMs) {
      throw new Error(userTimeoutMessage(this.limitMs));
    }
  }

  /** Runs a database call, its time left out of the function's. */
  databaseCall<T>(call: () => T): T {
    this.check();
    const clock = this.clock;
    const begun = this.clocks.wall();
    try {
      return call();
    } finally {
      if (clock !== null) clock.database += this.clocks.wall() - begun;
    }
  }

  /** As `database`, for an asynchronous call: one promise of its own (an async function with `await` and `finally` made three). */
  private databaseAsync<T>(call: () => Promise<T>): Promise<T> {
    try {
      this.check();
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const clock = this.clock;
    const begun = this.clocks.wall();
    let pending: Promise<T>;
    try {
      pending = call();
    } catch (error) {
      this.leftOut(clock, begun);
      return Promise.reject(error as Error);
    }
    return pending.then(
      (result) => {
        this.leftOut(clock, begun);
        return result;
      },
      (error: unknown) => {
        this.leftOut(clock, begun);
        throw error;
      },
    );
  }

  /** A database call that began at `begun` (wall clock) ended: its time is not the function's. */
  private leftOut(clock: Clock | null, begun: number) {
    if (clock !== null) clock.database += this.clocks.wall() - begun;
  }

  /**
   * Wraps the database's system calls of a deployment's global (`syscall`,
   * `asyncSyscall`): each checks the clock first, and its own time is left
   * out of the function's.
   */
  install(global: any) {
    const { syscall, asyncSyscall } = global;
    global.syscall = (op: string, args: string) => {
      if (!DATABASE_SYSCALLS.has(op)) return syscall(op, args);
      return this.databaseCall(() => syscall(op, args));
    };
    global.asyncSyscall = (op: string, args: string): Promise<string> => {
      if (!DATABASE_SYSCALLS.has(op)) return asyncSyscall(op, args);
      return this.databaseAsync(() => asyncSyscall(op, args));
    };
  }
}
