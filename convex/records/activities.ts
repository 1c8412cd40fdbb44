/** The department's activity feed: what happened on the board, by whom, newest first. */
import type { PaginationOptions } from "convex/server";
import type { Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { feedMayQuote } from "../lib/channels";
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
  entry: {
    departmentId: Id<"departments">;
    type: ActivityType;
    actor: Actor;
    taskId?: Id<"tasks">;
    messageId?: Id<"messages">;
    channelMessageId?: Id<"channelMessages">;
    data?: ActivityData;
  },
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

/** Longest preview of a channel or DM message in the feed (reactions/delivery's timeline line). */
export const CHANNEL_PREVIEW_CHARS = 120;

/**
 * The feed's entries quoting a channel or DM message (a message to an agent
 * on its task's timeline) show the message as it is now: its edited text,
 * marked edited, or no text once it is deleted. Called after the message
 * was changed.
 */
export async function reviseChannelMessageEntries(ctx: MutationCtx, channelMessageId: Id<"channelMessages">): Promise<void> {
  const message = await ctx.db.get("channelMessages", channelMessageId);
  if (message === null) return;
  // A message to several agents is one entry per agent it reached; the bound keeps a bad row from costing a scan.
  const channel = await ctx.db.get("channels", message.channelId);
  // An entry quotes only what the whole department may read (reactions/delivery); edits keep it that way.
  const quoted = channel !== null && feedMayQuote(channel);
  for (const entry of await ctx.db.query("activities").withIndex("by_channelMessageId", (q) => q.eq("channelMessageId", channelMessageId)).take(50)) {
    const data =
      message.deletedAt !== undefined
        ? { ...entry.data, preview: null, deleted: true }
        : { ...entry.data, preview: quoted ? message.body.slice(0, CHANNEL_PREVIEW_CHARS) : null, edited: true };
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

/** Deletes the department's oldest feed entries created before `before`, at most `limit`; returns how many (history retention). */
export async function deleteActivitiesBefore(ctx: MutationCtx, departmentId: Id<"departments">, before: number, limit: number): Promise<number> {
  const old = await ctx.db
    .query("activities")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId).lt("_creationTime", before))
    .take(limit);
  for (const entry of old) await ctx.db.delete("activities", entry._id);
  return old.length;
}
