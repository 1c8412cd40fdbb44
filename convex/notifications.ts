/** The bell for people: their unread notifications in a department, and marking them read. */
import { v } from "convex/values";
import { departmentQuery, userMutation } from "./functions";
import { memberKey } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { dmTitle, membershipsIn } from "./records/channels";
import { unreadCountIn } from "./records/inbox";
import { markNotificationRead, markTaskNotificationsRead, unreadNotifications } from "./records/notifications";
import { vNotificationKind } from "./validators";

/** Most notifications the bell lists. */
export const MAX_LISTED_NOTIFICATIONS = 50;

/** Most DMs with unread messages the bell lists. */
export const MAX_LISTED_DMS = 10;

/**
 * The caller's unread notifications in a department, newest first, with their
 * task titles and who mentioned them; and their DMs with unread messages.
 */
export const listMine = departmentQuery({
  args: {},
  returns: v.object({
    unreadCount: v.number(),
    /** Tasks where the caller has an unread mention: the board shows a dot on them. */
    unreadMentionTaskIds: v.array(v.id("tasks")),
    notifications: v.array(
      v.object({
        _id: v.id("notifications"),
        _creationTime: v.number(),
        kind: vNotificationKind,
        taskId: v.id("tasks"),
        taskTitle: v.string(),
        messageId: v.optional(v.id("messages")),
        /** Who wrote the message that mentioned the caller. */
        from: v.optional(v.string()),
      }),
    ),
    /** The caller's DMs with messages they have not read. */
    dms: v.array(v.object({ channelId: v.id("channels"), title: v.string(), unread: v.number() })),
  }),
  handler: async (ctx, { departmentId }) => {
    const unread = await unreadNotifications(ctx, memberKey(ctx.member.userId));
    const mine = unread.filter((n) => n.departmentId === departmentId);
    const notifications = [];
    for (const n of mine.slice(0, MAX_LISTED_NOTIFICATIONS)) {
      const task = await ctx.db.get("tasks", n.taskId);
      if (task === null) continue;
      const message = n.messageId === undefined ? null : await ctx.db.get("messages", n.messageId);
      const from = message !== null && message.author.kind !== "system" ? message.author.name : undefined;
      notifications.push({ _id: n._id, _creationTime: n._creationTime, kind: n.kind, taskId: n.taskId, taskTitle: task.title, messageId: n.messageId, ...(from === undefined ? {} : { from }) });
    }
    const me = memberKey(ctx.member.userId);
    const dms = [];
    for (const membership of await membershipsIn(ctx, departmentId, me)) {
      if (dms.length >= MAX_LISTED_DMS) break;
      const channel = await ctx.db.get("channels", membership.channelId);
      if (channel === null || channel.kind !== "dm") continue;
      const unreadInDm = await unreadCountIn(ctx, me, channel._id);
      if (unreadInDm > 0) dms.push({ channelId: channel._id, title: (await dmTitle(ctx, channel._id, me)).join(", "), unread: unreadInDm });
    }
    return {
      unreadCount: mine.length + dms.length,
      unreadMentionTaskIds: [...new Set(mine.filter((n) => n.kind === "mention").map((n) => n.taskId))],
      notifications,
      dms,
    };
  },
});

/** Marks one of the caller's notifications read, or all of them on one task (opening its drawer). */
export const markRead = userMutation({
  args: { notificationId: v.optional(v.id("notifications")), taskId: v.optional(v.id("tasks")) },
  returns: v.number(),
  handler: async (ctx, { notificationId, taskId }) => {
    const key = memberKey(ctx.viewer.user._id);
    if (notificationId !== undefined) {
      const notification = await ctx.db.get("notifications", notificationId);
      if (notification === null || notification.recipientKey !== key) throw new MaestroError("NOT_FOUND", "Notification not found.");
      return await markNotificationRead(ctx, notification);
    }
    if (taskId === undefined) throw new MaestroError("INVALID_ARGUMENT", "Give a notificationId or a taskId.");
    return await markTaskNotificationsRead(ctx, key, taskId);
  },
});
