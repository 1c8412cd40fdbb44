/**
 * A department's retention policy (messaging spec, "Retention"): how long
 * its channel and DM messages are kept, how many top-level messages one
 * conversation keeps, and how long posted files (its artifacts) are kept.
 * Every field is optional and absent means keep everything: nothing is
 * deleted until an admin sets a limit. Pure.
 */
import { MaestroError } from "./errors";

export interface RetentionPolicy {
  /** Messages (with their threads) whose last activity is older than this are deleted. */
  messageTtlDays?: number;
  /** Each conversation keeps its newest this many top-level messages (and their threads). */
  maxMessagesPerConversation?: number;
  /** Posted files older than this are deleted, blob and row; the messages stay. */
  artifactTtlDays?: number;
}

export const RETENTION_BOUNDS = {
  ttlDays: { min: 1, max: 3650 },
  maxMessagesPerConversation: { min: 100, max: 5000 },
} as const;

const DAY_MS = 24 * 60 * 60 * 1000;

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
  return policy;
}

/** Whether the policy deletes anything at all. */
export function retains(policy: RetentionPolicy | undefined): policy is RetentionPolicy {
  return policy !== undefined && (policy.messageTtlDays !== undefined || policy.maxMessagesPerConversation !== undefined || policy.artifactTtlDays !== undefined);
}

/** The times before which messages and files are past their window (undefined: kept). */
export function retentionCutoffs(now: number, policy: RetentionPolicy): { messagesBefore?: number; filesBefore?: number } {
  return {
    messagesBefore: policy.messageTtlDays === undefined ? undefined : now - policy.messageTtlDays * DAY_MS,
    filesBefore: policy.artifactTtlDays === undefined ? undefined : now - policy.artifactTtlDays * DAY_MS,
  };
}
