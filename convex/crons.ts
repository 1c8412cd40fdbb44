/** The schedule of the sweepers in convex/sweeps.ts. */
import { cronJobs } from "convex/server";
import { internal } from "./_generated/api";
import { env } from "./_generated/server";
import { sweepIntervalSeconds } from "./lib/runLease";

const crons = cronJobs();

// Runs whose action died (a restart, a crash) are retried or ended, so none stays "running".
crons.interval("sweep lapsed runs", { seconds: sweepIntervalSeconds(env) }, internal.sweeps.lapsedRuns, {});

// Runs whose action never started are ended, so none stays "queued".
crons.interval("end runs stuck queued", { seconds: sweepIntervalSeconds(env) }, internal.sweeps.queuedRuns, {});

// Approvals, questions and plans nobody decided in time expire, and their runs go on.
crons.interval("expire overdue pause cards", { seconds: sweepIntervalSeconds(env) }, internal.sweeps.overdueCards, {});

// An eval that stopped stepping is ended, and throwaway departments no running eval uses are deleted (convex/evals.ts).
crons.interval("sweep eval departments", { minutes: 5 }, internal.evals.sweep, {});

// Files uploaded but never posted in a message within a day are deleted, blob and row.
crons.interval("sweep never-posted files", { hours: 1 }, internal.sweeps.unpostedFiles, {});

// Tool effects older than a week (twice the pause TTL at least) are forgotten: no retry or resume comes that late.
crons.interval("forget old tool effects", { hours: 1 }, internal.sweeps.oldToolEffects, {});

// Each department's retention policy (lib/retention; none by default: everything is kept), in bounded passes.
crons.interval("apply retention policies", { hours: 1 }, internal.retention.sweep, {});

export default crons;
