/**
 * Unread state per recipient (an agent's sessionKey or `member:<userId>`):
 * counts for badges, mark read, mark all read. Each read is logged as a
 * `messaging.read` event, which is also the audit trail of who read what.
 */
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import type { MutationCtx } from "./_generated/server";
import { MAX_UNREAD_COUNTED } from "./channels";
import { channelMutation, departmentMutation, departmentQuery } from "./functions";
import { memberActor, memberKey } from "./lib/actors";
import { emitEvent } from "./lib/events";
import type { Actor } from "./validators";

/** Most inbox rows one call marks read (a bigger backlog takes another call). */
export const MAX_MARKED_PER_CALL = 500;

/** Marks rows read and logs one event per conversation touched. */
export async function markRowsRead(ctx: MutationCtx, rows: Array<Doc<"inbox">>, actor: Actor): Promise<number> {
  const now = Date.now();
  const perChannel = new Map<Id<"channels">, number>();
  for (const row of rows) {
    if (row.readAt !== undefined) continue;
    await ctx.db.patch("inbox", row._id, { readAt: now });
    perChannel.set(row.channelId, (perChannel.get(row.channelId) ?? 0) + 1);
  }
  for (const [channelId, count] of perChannel) {
    const departmentId = rows[0].departmentId;
    await emitEvent(ctx, { departmentId, type: "messaging.read", actor, channelId, data: { count } });
  }
  return [...perChannel.values()].reduce((a, b) => a + b, 0);
}

/** The caller's unread totals in a department: all, and those addressed to them (mentions, DMs). */
export const summary = departmentQuery({
  args: {},
  returns: v.object({ unread: v.number(), direct: v.number(), more: v.boolean() }),
  handler: async (ctx, { departmentId }) => {
    const rows = await ctx.db
      .query("inbox")
      .withIndex("by_recipient_and_department_and_readAt", (q) =>
        q.eq("recipientKey", memberKey(ctx.member.userId)).eq("departmentId", departmentId).eq("readAt", undefined),
      )
      .take(MAX_UNREAD_COUNTED + 1);
    return { unread: Math.min(rows.length, MAX_UNREAD_COUNTED), direct: rows.filter((r) => r.direct).length, more: rows.length > MAX_UNREAD_COUNTED };
  },
});

/** Marks the caller's unread messages in one conversation read (all of them, or the ones named). */
export const markRead = channelMutation({
  role: "viewer",
  args: { messageIds: v.optional(v.array(v.id("channelMessages"))) },
  returns: v.number(),
  handler: async (ctx, { channelId, messageIds }) => {
    const me = memberKey(ctx.member.userId);
    let rows: Array<Doc<"inbox">>;
    if (messageIds === undefined) {
      rows = await ctx.db
        .query("inbox")
        .withIndex("by_recipient_and_channel_and_readAt", (q) => q.eq("recipientKey", me).eq("channelId", channelId).eq("readAt", undefined))
        .take(MAX_MARKED_PER_CALL);
    } else {
      rows = [];
      for (const messageId of messageIds.slice(0, MAX_MARKED_PER_CALL)) {
        const row = await ctx.db
          .query("inbox")
          .withIndex("by_recipient_and_message", (q) => q.eq("recipientKey", me).eq("messageId", messageId))
          .unique();
        if (row !== null && row.channelId === channelId) rows.push(row);
      }
    }
    return await markRowsRead(ctx, rows, memberActor(ctx.member));
  },
});

/** Marks everything unread for the caller in this department read. Viewers may: it is their own state. */
export const markAllRead = departmentMutation({
  role: "viewer",
  args: {},
  returns: v.number(),
  handler: async (ctx, { departmentId }) => {
    const rows = await ctx.db
      .query("inbox")
      .withIndex("by_recipient_and_department_and_readAt", (q) =>
        q.eq("recipientKey", memberKey(ctx.member.userId)).eq("departmentId", departmentId).eq("readAt", undefined),
      )
      .take(MAX_MARKED_PER_CALL);
    return await markRowsRead(ctx, rows, memberActor(ctx.member));
  },
});
