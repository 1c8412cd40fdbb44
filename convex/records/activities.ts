/** The department's activity feed: what happened on the board, by whom, newest first. */
import type { PaginationOptions } from "convex/server";
import type { Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import type { ActivityData, ActivityType, Actor } from "../validators";

/** Longest preview of a message in the feed. */
const PREVIEW_CHARS = 140;

/** A message's text as the feed quotes it: cut to PREVIEW_CHARS with an ellipsis. */
export function feedPreview(text: string): string {
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

/** Appends an entry to the department's activity feed. */
export async function recordActivity(
  ctx: MutationCtx,
  entry: { departmentId: Id<"departments">; type: ActivityType; actor: Actor; taskId?: Id<"tasks">; messageId?: Id<"messages">; data?: ActivityData },
): Promise<void> {
  await ctx.db.insert("activities", { ...entry, data: entry.data ?? {} });
}

/**
 * The feed's `message_posted` entry of a thread message shows the message as
 * it is now: the edited text (marked edited), or, once it is deleted, no text.
 */
export async function revisePostedEntry(ctx: MutationCtx, messageId: Id<"messages">, change: { editedText: string } | { deleted: true }): Promise<void> {
  // One entry per posted message; the bound keeps a bad row from costing a scan.
  for (const entry of await ctx.db.query("activities").withIndex("by_messageId", (q) => q.eq("messageId", messageId)).take(4)) {
    if (entry.type !== "message_posted") continue;
    const data = "deleted" in change ? { ...entry.data, preview: null, deleted: true } : { ...entry.data, preview: feedPreview(change.editedText), edited: true };
    await ctx.db.patch("activities", entry._id, { data });
  }
}

/** One page of the feed, newest first. */
export async function activityPage(ctx: QueryCtx, departmentId: Id<"departments">, paginationOpts: PaginationOptions) {
  return await ctx.db
    .query("activities")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .order("desc")
    .paginate(paginationOpts);
}
