/**
 * A running run holds a lease its action renews as it works (each streamed
 * batch, each model call, each tool call). A lease that lapses means the
 * action died (a backend restart, a crash): the sweeper ends or retries it.
 */

/** How long a run may go without a sign of life; MAESTRO_RUN_LEASE_MS overrides it. */
export const DEFAULT_RUN_LEASE_MS = 45_000;
/** How often the sweeper looks for lapsed leases (convex/crons.ts); MAESTRO_RUN_SWEEP_SECONDS overrides it. */
export const SWEEP_INTERVAL_SECONDS = 30;

/** The sweeper's period configured in `env`, in seconds. */
export function sweepIntervalSeconds(env: Record<string, string | undefined>): number {
  const value = Number(env.MAESTRO_RUN_SWEEP_SECONDS);
  return Number.isSafeInteger(value) && value > 0 ? value : SWEEP_INTERVAL_SECONDS;
}
/** Executions of one run: an interrupted run with no side effect yet is retried until this many. */
export const MAX_RUN_ATTEMPTS = 3;

/** The lease length configured in `env`, in ms. */
export function runLeaseMs(env: Record<string, string | undefined>): number {
  const value = Number(env.MAESTRO_RUN_LEASE_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_RUN_LEASE_MS;
}

/**
 * Whether a heartbeat at `now` should write a new expiry: only once half the
 * lease is used, so a streaming run touches its row a few times a minute,
 * not on every batch (each write re-runs the queries that list runs).
 */
export function leaseNeedsRenewal(leaseExpiresAt: number | undefined, now: number, leaseMs: number): boolean {
  return leaseExpiresAt === undefined || leaseExpiresAt - now < leaseMs / 2;
}

/** What the sweeper does with a run whose lease lapsed. */
export function recoveryFor(run: { toolStarted?: boolean; attempt?: number }): "retry" | "interrupt" {
  return !run.toolStarted && (run.attempt ?? 1) < MAX_RUN_ATTEMPTS ? "retry" : "interrupt";
}

/** How long a run may stay queued (its action never started) before the sweeper ends it; MAESTRO_RUN_QUEUED_LIMIT_MS overrides it. */
export const DEFAULT_QUEUED_LIMIT_MS = 10 * 60_000;

export function queuedLimitMs(source: Record<string, string | undefined>): number {
  const value = Number(source.MAESTRO_RUN_QUEUED_LIMIT_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_QUEUED_LIMIT_MS;
}

/** The reason the sweeper gives a run whose action died after a tool had run. */
export const INTERRUPTED_REASON = "interrupted";
