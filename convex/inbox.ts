/**
 * Unread state for people and the roster: counts for badges, mark read,
 * mark all read, and the department's messaging figures (records/inbox).
 */
import { v } from "convex/values";
import { channelMutation, departmentMutation, departmentQuery } from "./functions";
import { memberActor, memberKey } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { DAY_MS, median, perDay, utcDay } from "./lib/messagingStats";
import { hasRole } from "./lib/roles";
import { departmentAgents } from "./records/agents";
import { markAllRead as markAllReadFor, markMessagesRead, MAX_AGENT_UNREAD_COUNTED, MAX_MARKED_PER_CALL, statsRows, unreadRows, unreadSummary } from "./records/inbox";
import { markDepartmentNotificationsRead, MAX_UNREAD_NOTIFICATIONS } from "./records/notifications";
import { mentionCandidates } from "./records/messages";

/** Rows the stats read at most per kind; a busier window reports `partial`. */
export const MAX_STATS_ROWS = 5_000;
export const MAX_STATS_DAYS = 31;

/** The caller's unread totals in a department: all, and those addressed to them (mentions, DMs). */
export const summary = departmentQuery({
  args: {},
  returns: v.object({ unread: v.number(), direct: v.number(), more: v.boolean() }),
  handler: async (ctx, { departmentId }) => await unreadSummary(ctx, memberKey(ctx.member.userId), departmentId),
});

/**
 * What each agent of the department has unread (messages its runs have not
 * been shown yet), for the badges on the roster; agents with none are left
 * out. Anyone in the department may see it, as on the figures page.
 */
export const agentUnread = departmentQuery({
  args: {},
  returns: v.array(v.object({ sessionKey: v.string(), unread: v.number(), more: v.boolean() })),
  handler: async (ctx, { departmentId }) => {
    const out = [];
    for (const agent of await departmentAgents(ctx, departmentId)) {
      const rows = await unreadRows(ctx, agent.sessionKey, departmentId, MAX_AGENT_UNREAD_COUNTED + 1);
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
    const actor = memberActor(ctx.member);
    return messageIds === undefined
      ? await markAllReadFor(ctx, me, ctx.channel.departmentId, actor, channelId)
      : await markMessagesRead(ctx, me, messageIds, actor, channelId);
  },
});

/**
 * Marks everything unread for the caller in this department read: channel
 * and DM messages, and the bell's mentions and assignments. Answers how many
 * of each; `more` when a bound was reached and another call marks the rest.
 * Viewers may: it is their own state.
 */
export const markAllRead = departmentMutation({
  role: "viewer",
  args: {},
  returns: v.object({ messages: v.number(), notifications: v.number(), more: v.boolean() }),
  handler: async (ctx, { departmentId }) => {
    const me = memberKey(ctx.member.userId);
    const messages = await markAllReadFor(ctx, me, departmentId, memberActor(ctx.member));
    const notifications = await markDepartmentNotificationsRead(ctx, me, departmentId);
    return { messages, notifications, more: messages >= MAX_MARKED_PER_CALL || notifications >= MAX_UNREAD_NOTIFICATIONS };
  },
});

/**
 * Messaging figures over `days` UTC days from `sinceDay` (the client names
 * the window, since a query may not read the clock): posted and read per
 * day, who has what unread, median time-to-read. Admins see the
 * department's (DMs left out of the posts); anyone else sees their own.
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
    const onlyKey = hasRole(ctx.member.role, "admin") ? undefined : memberKey(ctx.member.userId);
    const { posted, read, unread, partial } = await statsRows(ctx, departmentId, sinceDay, sinceDay + days * DAY_MS, MAX_STATS_ROWS + 1, onlyKey);
    const names = new Map((await mentionCandidates(ctx, departmentId)).map((c) => [c.key, c.name]));
    const byRecipient = new Map<string, number>();
    for (const row of unread) byRecipient.set(row.recipientKey, (byRecipient.get(row.recipientKey) ?? 0) + 1);
    return {
      perDay: perDay(sinceDay, posted.map((m) => m._creationTime), read.map((r) => r.readAt!), days),
      unreadByRecipient: [...byRecipient]
        .map(([key, count]) => ({ key, name: names.get(key) ?? "someone who left", unread: count }))
        .sort((a, b) => b.unread - a.unread),
      medianTimeToReadMs: median(read.map((r) => r.readAt! - r._creationTime)),
      partial,
    };
  },
});
