/**
 * The retention form's values as text and back: an empty field keeps
 * everything of its kind (the server's default), anything else must be a
 * whole number inside the server's bounds (convex/lib/retention.ts), checked
 * here first so the admin sees which field is wrong.
 */
import { RETENTION_BOUNDS, type RetentionPolicy } from "../../convex/lib/retention";

export type RetentionField = keyof Required<RetentionPolicy>;
export type RetentionDraft = Record<RetentionField, string>;

/** The four fields, with the words the form uses for them and their bounds. */
export const RETENTION_FIELDS: ReadonlyArray<{
  key: RetentionField;
  label: string;
  unit: string;
  min: number;
  max: number;
  about: string;
}> = [
  {
    key: "messageTtlDays",
    label: "Delete messages after",
    unit: "days",
    ...RETENTION_BOUNDS.ttlDays,
    about: "Channel and DM messages, with their threads, once nothing in the thread is newer.",
  },
  {
    key: "maxMessagesPerConversation",
    label: "Keep per conversation at most",
    unit: "messages",
    ...RETENTION_BOUNDS.maxMessagesPerConversation,
    about: "Each channel or DM keeps its newest top-level messages (with their threads).",
  },
  {
    key: "artifactTtlDays",
    label: "Delete files after",
    unit: "days",
    ...RETENTION_BOUNDS.ttlDays,
    about: "Files posted in messages; the messages themselves stay.",
  },
  {
    key: "historyTtlDays",
    label: "Delete history after",
    unit: "days",
    ...RETENTION_BOUNDS.ttlDays,
    about: "The activity feed, notifications and the steps of finished runs; tasks, their threads and the runs' replies and costs stay.",
  },
];

/** The form's text for a saved policy: an unset limit is an empty field. */
export function retentionDraft(policy: RetentionPolicy): RetentionDraft {
  const text = (value: number | undefined) => (value === undefined ? "" : String(value));
  return {
    messageTtlDays: text(policy.messageTtlDays),
    maxMessagesPerConversation: text(policy.maxMessagesPerConversation),
    artifactTtlDays: text(policy.artifactTtlDays),
    historyTtlDays: text(policy.historyTtlDays),
  };
}

/**
 * The policy a draft asks for, or an error per wrong field. Digits only:
 * "1e3", "12.5" and "-1" are refused rather than guessed at.
 */
export function parseRetention(draft: RetentionDraft): { policy: RetentionPolicy } | { errors: Partial<Record<RetentionField, string>> } {
  const policy: RetentionPolicy = {};
  const errors: Partial<Record<RetentionField, string>> = {};
  for (const { key, unit, min, max } of RETENTION_FIELDS) {
    const text = draft[key].trim();
    if (text === "") continue;
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max)
      errors[key] = `Enter a whole number of ${unit} from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}, or leave it empty to keep everything.`;
    else policy[key] = value;
  }
  return Object.keys(errors).length > 0 ? { errors } : { policy };
}

/** The policy in one sentence, for the line under the heading. */
export function retentionSummary(policy: RetentionPolicy): string {
  const parts: string[] = [];
  if (policy.messageTtlDays !== undefined) parts.push(`messages are deleted after ${policy.messageTtlDays} days`);
  if (policy.maxMessagesPerConversation !== undefined) parts.push(`each conversation keeps its newest ${policy.maxMessagesPerConversation} messages`);
  if (policy.artifactTtlDays !== undefined) parts.push(`files are deleted after ${policy.artifactTtlDays} days`);
  if (policy.historyTtlDays !== undefined) parts.push(`history (the feed, notifications, finished runs' steps) is deleted after ${policy.historyTtlDays} days`);
  if (parts.length === 0) return "Everything is kept: nothing is deleted until a limit is set.";
  const sentence = parts.join("; ");
  return `${sentence[0].toUpperCase()}${sentence.slice(1)}. An hourly sweep deletes what is past its time.`;
}
