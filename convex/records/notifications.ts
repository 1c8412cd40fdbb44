/** The bell: who was assigned a task or @mentioned, until they read it. */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { actorKey } from "../lib/actors";
import type { Actor, Mention } from "../validators";

/** Most unread notifications counted or marked read in one call. */
export const MAX_UNREAD_NOTIFICATIONS = 500;

/** Notifies newly assigned agents, once each. */
export async function notifyAssigned(ctx: MutationCtx, task: Doc<"tasks">, sessionKeys: readonly string[]): Promise<void> {
  for (const sessionKey of new Set(sessionKeys)) {
    await ctx.db.insert("notifications", { departmentId: task.departmentId, recipientKey: sessionKey, kind: "assignment", taskId: task._id });
  }
}

/**
 * Notifies everyone a message mentions (never its own author), once each;
 * returns the mentions that were notified, in order.
 */
export async function notifyMentioned(
  ctx: MutationCtx,
  message: { _id: Id<"messages">; taskId: Id<"tasks">; departmentId: Id<"departments">; author: Actor; mentions: Mention[] },
): Promise<Mention[]> {
  const authorKey = actorKey(message.author);
  const done = new Map<string, Mention>();
  for (const mention of message.mentions) {
    if (mention.key === authorKey || done.has(mention.key)) continue;
    done.set(mention.key, mention);
    await ctx.db.insert("notifications", {
      departmentId: message.departmentId,
      recipientKey: mention.key,
      kind: "mention",
      taskId: message.taskId,
      messageId: message._id,
    });
  }
  return [...done.values()];
}

/** A recipient's unread notifications, newest first, bounded. */
export async function unreadNotifications(ctx: QueryCtx, recipientKey: string): Promise<Array<Doc<"notifications">>> {
  return await ctx.db
    .query("notifications")
    .withIndex("by_recipient_and_readAt", (q) => q.eq("recipientKey", recipientKey).eq("readAt", undefined))
    .order("desc")
    .take(MAX_UNREAD_NOTIFICATIONS);
}

/** Marks one notification read; 0 when it was already read. */
export async function markNotificationRead(ctx: MutationCtx, notification: Doc<"notifications">): Promise<number> {
  if (notification.readAt !== undefined) return 0;
  await ctx.db.patch("notifications", notification._id, { readAt: Date.now() });
  return 1;
}

/** Marks a recipient's unread notifications on one task read; returns how many. */
export async function markTaskNotificationsRead(ctx: MutationCtx, recipientKey: string, taskId: Id<"tasks">): Promise<number> {
  const unread = await ctx.db
    .query("notifications")
    .withIndex("by_recipient_and_task_and_readAt", (q) => q.eq("recipientKey", recipientKey).eq("taskId", taskId).eq("readAt", undefined))
    .take(MAX_UNREAD_NOTIFICATIONS);
  const now = Date.now();
  for (const n of unread) await ctx.db.patch("notifications", n._id, { readAt: now });
  return unread.length;
}

/** Marks a recipient's unread notifications in one department read (up to MAX_UNREAD_NOTIFICATIONS); returns how many. */
export async function markDepartmentNotificationsRead(ctx: MutationCtx, recipientKey: string, departmentId: Id<"departments">): Promise<number> {
  const unread = (await unreadNotifications(ctx, recipientKey)).filter((n) => n.departmentId === departmentId);
  const now = Date.now();
  for (const n of unread) await ctx.db.patch("notifications", n._id, { readAt: now });
  return unread.length;
}

/** Deletes the department's oldest notifications, read or not, created before `before`, at most `limit`; returns how many (history retention). */
export async function deleteNotificationsBefore(ctx: MutationCtx, departmentId: Id<"departments">, before: number, limit: number): Promise<number> {
  const old = await ctx.db
    .query("notifications")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId).lt("_creationTime", before))
    .take(limit);
  for (const notification of old) await ctx.db.delete("notifications", notification._id);
  return old.length;
}
