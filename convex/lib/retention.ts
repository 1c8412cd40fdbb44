/**
 * A department's retention policy (messaging spec, "Retention"): how long
 * its channel and DM messages are kept, how many top-level messages one
 * conversation keeps, how long posted files (its artifacts) are kept, and
 * how long its history is kept: the activity feed, notifications, the
 * step-by-step timelines of finished runs and the wake-ups agents already
 * took up (the rows that otherwise grow with every move, post and run for as
 * long as the squad works). Every field is optional and absent means keep
 * everything: nothing is deleted until an admin sets a limit. Pure.
 */
import { MaestroError } from "./errors";

export interface RetentionPolicy {
  /** Messages (with their threads) whose last activity is older than this are deleted. */
  messageTtlDays?: number;
  /** Each conversation keeps its newest this many top-level messages (and their threads). */
  maxMessagesPerConversation?: number;
  /** Posted files older than this are deleted, blob and row; the messages stay. */
  artifactTtlDays?: number;
  /**
   * Feed entries, notifications (read or not), handled wake-ups and the
   * steps of runs that ended, older than this, are deleted; tasks, messages
   * and the runs themselves (replies, tool calls, costs) stay.
   */
  historyTtlDays?: number;
}

export const RETENTION_BOUNDS = {
  ttlDays: { min: 1, max: 3650 },
  maxMessagesPerConversation: { min: 100, max: 5000 },
} as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A retention day in ms: 24 hours, or MAESTRO_RETENTION_DAY_MS, with which
 * benchmarks and tests fit days into seconds (bench:soak's steady state).
 */
export function retentionDayMs(env: Record<string, string | undefined>): number {
  const value = Number(env.MAESTRO_RETENTION_DAY_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : DAY_MS;
}

function whole(label: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max) throw new MaestroError("INVALID_ARGUMENT", `${label} must be a whole number from ${min} to ${max}.`);
}

/** Refuses a policy outside the bounds (clear error, nothing saved). */
export function checkRetention(policy: RetentionPolicy): RetentionPolicy {
  const { ttlDays, maxMessagesPerConversation: cap } = RETENTION_BOUNDS;
  whole("The message retention (days)", policy.messageTtlDays, ttlDays.min, ttlDays.max);
  whole("The messages kept per conversation", policy.maxMessagesPerConversation, cap.min, cap.max);
  whole("The file retention (days)", policy.artifactTtlDays, ttlDays.min, ttlDays.max);
  whole("The history retention (days)", policy.historyTtlDays, ttlDays.min, ttlDays.max);
  return policy;
}

/** Whether the policy deletes anything at all. */
export function retains(policy: RetentionPolicy | undefined): policy is RetentionPolicy {
  return (
    policy !== undefined &&
    (policy.messageTtlDays !== undefined ||
      policy.maxMessagesPerConversation !== undefined ||
      policy.artifactTtlDays !== undefined ||
      policy.historyTtlDays !== undefined)
  );
}

/** The times before which messages, files and history are past their window (undefined: kept). */
export function retentionCutoffs(
  now: number,
  policy: RetentionPolicy,
  dayMs = DAY_MS,
): { messagesBefore?: number; filesBefore?: number; historyBefore?: number } {
  const before = (days: number | undefined) => (days === undefined ? undefined : now - days * dayMs);
  return { messagesBefore: before(policy.messageTtlDays), filesBefore: before(policy.artifactTtlDays), historyBefore: before(policy.historyTtlDays) };
}
