import { cronJobs } from "convex/server";
import { internal } from "./_generated/api";
import { SWEEP_INTERVAL_SECONDS } from "./lib/runLease";

const crons = cronJobs();

// Runs whose action died (a restart, a crash) are retried or ended, so none stays "running".
crons.interval("sweep lapsed runs", { seconds: SWEEP_INTERVAL_SECONDS }, internal.runs.sweep, {});

export default crons;
