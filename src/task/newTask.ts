import { LIMITS } from "../../convex/lib/limits";
import type { Id } from "../../convex/_generated/dataModel";
import type { Priority } from "../board/types";

/** The new-task form as typed: tags as one comma-separated string. */
export type NewTaskDraft = {
  title: string;
  description: string;
  priority: Priority;
  tags: string;
  assigneeSessionKeys: string[];
  /** The channel to follow it in; "" for none. */
  channelId: string;
};

/** What `tasks.create` gets (less the department). */
export type NewTaskValue = {
  title: string;
  description: string;
  priority: Priority;
  tags: string[];
  assigneeSessionKeys: string[];
  channelId?: Id<"channels">;
};

export type NewTaskErrors = Partial<Record<"title" | "description" | "tags" | "assignees", string>>;

export const EMPTY_DRAFT: NewTaskDraft = { title: "", description: "", priority: "medium", tags: "", assigneeSessionKeys: [], channelId: "" };

/** "ui, launch , UI,," → ["ui", "launch"]: trimmed, no empties, no case-insensitive repeats. */
export function parseTags(text: string): string[] {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const raw of text.split(",")) {
    const tag = raw.trim();
    if (tag === "" || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    tags.push(tag);
  }
  return tags;
}

/** Tags as the form shows them. */
export function formatTags(tags: readonly string[]): string {
  return tags.join(", ");
}

/** Problems with a list of tags, in the server's limits, or null. */
export function tagsError(tags: readonly string[]): string | null {
  if (tags.length > LIMITS.tagsPerTask) return `Use at most ${LIMITS.tagsPerTask} tags.`;
  const long = tags.find((tag) => tag.length > LIMITS.tagChars);
  if (long !== undefined) return `“${long.slice(0, 20)}…” is too long: a tag has at most ${LIMITS.tagChars} characters.`;
  return null;
}

/** Problems with a title, or null. */
export function titleError(title: string): string | null {
  const trimmed = title.trim();
  if (trimmed === "") return "Give the task a title.";
  if (trimmed.length > LIMITS.taskTitleChars) return `Keep the title under ${LIMITS.taskTitleChars} characters (it has ${trimmed.length}).`;
  return null;
}

/** Problems with a description, or null. */
export function descriptionError(description: string): string | null {
  const length = description.trim().length;
  return length > LIMITS.taskDescriptionChars
    ? `Keep the description under ${LIMITS.taskDescriptionChars.toLocaleString("en")} characters (it has ${length.toLocaleString("en")}).`
    : null;
}

/**
 * Checks the form against the same limits the server enforces, so most
 * mistakes are caught before a round trip; the server still has the last word.
 */
export function validateNewTask(draft: NewTaskDraft): { ok: true; value: NewTaskValue } | { ok: false; errors: NewTaskErrors } {
  const tags = parseTags(draft.tags);
  const errors: NewTaskErrors = {};
  const title = titleError(draft.title);
  if (title) errors.title = title;
  const description = descriptionError(draft.description);
  if (description) errors.description = description;
  const tagProblem = tagsError(tags);
  if (tagProblem) errors.tags = tagProblem;
  if (draft.assigneeSessionKeys.length > LIMITS.assigneesPerTask) errors.assignees = `Pick at most ${LIMITS.assigneesPerTask} assignees.`;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      title: draft.title.trim(),
      description: draft.description.trim(),
      priority: draft.priority,
      tags,
      assigneeSessionKeys: draft.assigneeSessionKeys,
      ...(draft.channelId === "" ? {} : { channelId: draft.channelId as Id<"channels"> }),
    },
  };
}
