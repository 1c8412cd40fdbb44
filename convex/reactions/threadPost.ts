/**
 * A message is posted in a task's thread: it is stored with its @mentions
 * resolved, everyone mentioned is notified once, each mentioned agent gets a
 * "mentioned" trigger (a person's taken up after this transaction,
 * reactions/triggers; an agent's or Maestro's recorded here, consumed, since
 * it starts no run), and the activity feed says so.
 */
import { internal } from "../_generated/api";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { feedPreview, recordActivity } from "../records/activities";
import { insertMessage, type ThreadMessageOptions } from "../records/messages";
import { notifyMentioned } from "../records/notifications";
import { recordUnstartedMention } from "../records/triggers";
import type { Actor } from "../validators";

/** Posts `rawContent` in `task`'s thread as `author`; returns the stored message. */
export async function postToThread(ctx: MutationCtx, author: Actor, task: Doc<"tasks">, rawContent: string, options: ThreadMessageOptions = {}): Promise<Doc<"messages">> {
  const message = await insertMessage(ctx, author, task, rawContent, options);
  for (const mention of await notifyMentioned(ctx, message)) {
    if (mention.kind !== "agent") continue;
    const trigger = { taskId: task._id, messageId: message._id, agentSessionKey: mention.key, kind: "mentioned" as const };
    // An agent's (or Maestro's) mention starts no run: its trigger is recorded here, consumed, with no job of its own.
    if (author.kind !== "member") await recordUnstartedMention(ctx, trigger, task.departmentId);
    // A person's is a hand-off, not a call: the trigger is recorded and taken up in its own transaction.
    else await ctx.scheduler.runAfter(0, internal.triggers.agentMentioned, { taskId: task._id, messageId: message._id, sessionKey: mention.key });
  }
  await recordActivity(ctx, {
    departmentId: task.departmentId,
    type: "message_posted",
    actor: author,
    taskId: task._id,
    messageId: message._id,
    data: { title: task.title, preview: feedPreview(message.content) },
  });
  return message;
}

/** A system note in a task's thread: it mentions nobody, so it wakes no one. */
export async function postNote(ctx: MutationCtx, task: Doc<"tasks">, content: string): Promise<Id<"messages">> {
  return (await postToThread(ctx, { kind: "system" }, task, content))._id;
}
