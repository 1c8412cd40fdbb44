/**
 * Unread state per recipient (an agent's sessionKey or `member:<userId>`):
 * counts for badges, mark read, mark all read. Each read is logged as a
 * `messaging.read` event, which is also the audit trail of who read what.
 */
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import type { MutationCtx, QueryCtx } from "./_generated/server";
import { MAX_AGENTS_PER_DEPARTMENT } from "./agents";
import { MAX_UNREAD_COUNTED } from "./channels";
import { channelMutation, departmentMutation, departmentQuery } from "./functions";
import { memberActor, memberKey } from "./lib/actors";
import { emitEvent } from "./lib/events";
import { DAY_MS, median, perDay, utcDay } from "./lib/messagingStats";
import { MaestroError } from "./lib/errors";
import type { Actor } from "./validators";
import { mentionCandidates } from "./messages";

/** Most inbox rows one call marks read (a bigger backlog takes another call). */
export const MAX_MARKED_PER_CALL = 500;

/**
 * `recipientKey`'s inbox rows for these messages, in order. Ids come as
 * strings (a model or a client sent them): ones that are not message ids, or
 * whose message is not in that inbox, are skipped.
 */
export async function inboxRowsFor(ctx: QueryCtx, recipientKey: string, messageIds: string[]): Promise<Array<Doc<"inbox">>> {
  const rows = [];
  for (const raw of messageIds) {
    const messageId = ctx.db.normalizeId("channelMessages", raw);
    if (messageId === null) continue;
    const row = await ctx.db
      .query("inbox")
      .withIndex("by_recipient_and_message", (q) => q.eq("recipientKey", recipientKey).eq("messageId", messageId))
      .unique();
    if (row !== null) rows.push(row);
  }
  return rows;
}

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

/** Unread rows counted per agent for the roster's badge; more shows as "9+". */
export const MAX_AGENT_UNREAD_COUNTED = 9;

/**
 * What each agent of the department has unread (messages its runs have not
 * been shown yet), for the badges on the roster; agents with none are left
 * out. Anyone in the department may see it, as on the figures page.
 */
export const agentUnread = departmentQuery({
  args: {},
  returns: v.array(v.object({ sessionKey: v.string(), unread: v.number(), more: v.boolean() })),
  handler: async (ctx, { departmentId }) => {
    const agents = await ctx.db
      .query("agents")
      .withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId))
      .take(MAX_AGENTS_PER_DEPARTMENT);
    const out = [];
    for (const agent of agents) {
      const rows = await ctx.db
        .query("inbox")
        .withIndex("by_recipient_and_department_and_readAt", (q) =>
          q.eq("recipientKey", agent.sessionKey).eq("departmentId", departmentId).eq("readAt", undefined),
        )
        .take(MAX_AGENT_UNREAD_COUNTED + 1);
      if (rows.length === 0) continue;
      out.push({ sessionKey: agent.sessionKey, unread: Math.min(rows.length, MAX_AGENT_UNREAD_COUNTED), more: rows.length > MAX_AGENT_UNREAD_COUNTED });
    }
    return out;
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
      rows = (await inboxRowsFor(ctx, me, messageIds.slice(0, MAX_MARKED_PER_CALL))).filter((row) => row.channelId === channelId);
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

/** Rows the stats read at most per kind; a busier window reports `partial`. */
export const MAX_STATS_ROWS = 5_000;
export const MAX_STATS_DAYS = 31;

/**
 * The department's messaging figures over `days` UTC days from `sinceDay`
 * (the client names the window, since a query may not read the clock):
 * posted and read per day, who has what unread, median time-to-read.
 */
export const stats = departmentQuery({
  args: { sinceDay: v.number(), days: v.number() },
  returns: v.object({
    perDay: v.array(v.object({ day: v.number(), posted: v.number(), read: v.number() })),
    unreadByRecipient: v.array(v.object({ key: v.string(), name: v.string(), unread: v.number() })),
    medianTimeToReadMs: v.union(v.number(), v.null()),
    partial: v.boolean(),
  }),
  handler: async (ctx, { departmentId, sinceDay, days }) => {
    if (!Number.isInteger(days) || days < 1 || days > MAX_STATS_DAYS) throw new MaestroError("INVALID_ARGUMENT", `Pick 1 to ${MAX_STATS_DAYS} days.`);
    if (sinceDay !== utcDay(sinceDay)) throw new MaestroError("INVALID_ARGUMENT", "sinceDay must be the start of a UTC day.");
    const until = sinceDay + days * DAY_MS;
    const posted = await ctx.db
      .query("channelMessages")
      .withIndex("by_department", (q) => q.eq("departmentId", departmentId).gte("_creationTime", sinceDay).lt("_creationTime", until))
      .take(MAX_STATS_ROWS + 1);
    const read = await ctx.db
      .query("inbox")
      .withIndex("by_department_and_readAt", (q) => q.eq("departmentId", departmentId).gte("readAt", sinceDay).lt("readAt", until))
      .take(MAX_STATS_ROWS + 1);
    const unread = await ctx.db
      .query("inbox")
      .withIndex("by_department_and_readAt", (q) => q.eq("departmentId", departmentId).eq("readAt", undefined))
      .take(MAX_STATS_ROWS + 1);
    const names = new Map((await mentionCandidates(ctx, departmentId)).map((c) => [c.key, c.name]));
    const byRecipient = new Map<string, number>();
    for (const row of unread) byRecipient.set(row.recipientKey, (byRecipient.get(row.recipientKey) ?? 0) + 1);
    return {
      perDay: perDay(sinceDay, posted.map((m) => m._creationTime), read.map((r) => r.readAt!), days),
      unreadByRecipient: [...byRecipient]
        .map(([key, count]) => ({ key, name: names.get(key) ?? "someone who left", unread: count }))
        .sort((a, b) => b.unread - a.unread),
      medianTimeToReadMs: median(read.map((r) => r.readAt! - r._creationTime)),
      partial: posted.length > MAX_STATS_ROWS || read.length > MAX_STATS_ROWS || unread.length > MAX_STATS_ROWS,
    };
  },
});
