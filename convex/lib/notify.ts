import { internal } from "../_generated/api";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import type { Actor, Mention } from "../validators";

function actorKey(actor: Actor): string | null {
  if (actor.kind === "agent") return actor.sessionKey;
  if (actor.kind === "member") return `member:${actor.userId}`;
  return null;
}

/** Notifies newly assigned agents and schedules their "assigned" trigger, once each. */
export async function notifyAssignees(ctx: MutationCtx, task: Doc<"tasks">, sessionKeys: string[]): Promise<void> {
  for (const sessionKey of new Set(sessionKeys)) {
    await ctx.db.insert("notifications", {
      departmentId: task.departmentId,
      recipientKey: sessionKey,
      kind: "assignment",
      taskId: task._id,
    });
    await ctx.scheduler.runAfter(0, internal.triggers.agentAssigned, { taskId: task._id, sessionKey });
  }
}

/**
 * Notifies everyone a message mentions (never its own author), once each, and
 * schedules a "mentioned" trigger for each mentioned agent.
 */
export async function notifyMentions(
  ctx: MutationCtx,
  message: { _id: Id<"messages">; taskId: Id<"tasks">; departmentId: Id<"departments">; author: Actor; mentions: Mention[] },
): Promise<void> {
  const authorKey = actorKey(message.author);
  const done = new Set<string>();
  for (const mention of message.mentions) {
    if (mention.key === authorKey || done.has(mention.key)) continue;
    done.add(mention.key);
    await ctx.db.insert("notifications", {
      departmentId: message.departmentId,
      recipientKey: mention.key,
      kind: "mention",
      taskId: message.taskId,
      messageId: message._id,
    });
    if (mention.kind === "agent") {
      await ctx.scheduler.runAfter(0, internal.triggers.agentMentioned, {
        taskId: message.taskId,
        messageId: message._id,
        sessionKey: mention.key,
      });
    }
  }
}
