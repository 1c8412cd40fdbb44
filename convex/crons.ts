import { cronJobs } from "convex/server";
import { internal } from "./_generated/api";
import { env } from "./_generated/server";
import { sweepIntervalSeconds } from "./lib/runLease";

const crons = cronJobs();

// Runs whose action died (a restart, a crash) are retried or ended, so none stays "running".
crons.interval("sweep lapsed runs", { seconds: sweepIntervalSeconds(env) }, internal.runs.sweep, {});

// Runs whose action never started are ended, so none stays "queued".
crons.interval("end runs stuck queued", { seconds: sweepIntervalSeconds(env) }, internal.runs.sweepQueued, {});

// Approvals nobody decided in time count as denied, and their runs go on.
crons.interval("expire overdue approvals", { seconds: sweepIntervalSeconds(env) }, internal.approvals.expireOverdue, {});

// Questions nobody answered in time stop blocking their task, and their runs go on without an answer.
crons.interval("expire overdue questions", { seconds: sweepIntervalSeconds(env) }, internal.questions.expireOverdue, {});

// Plans nobody decided on in time count as rejected (nothing is delegated), and their runs go on.
crons.interval("expire overdue plans", { seconds: sweepIntervalSeconds(env) }, internal.plans.expireOverdue, {});

// Files uploaded but never posted in a message within a day are deleted, blob and row.
crons.interval("sweep never-posted files", { hours: 1 }, internal.channelFiles.sweepUnposted, {});

// Tool effects older than a week (twice the pause TTL at least) are forgotten: no retry or resume comes that late.
crons.interval("forget old tool effects", { hours: 1 }, internal.tools.effects.sweepExpired, {});

export default crons;
