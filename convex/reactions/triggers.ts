/**
 * An agent was assigned a task or @mentioned in its thread: the trigger is
 * recorded once and taken up at once, starting a run of the agent on the
 * task or folding into the one it has there. Mentions written by agents (or
 * Maestro) notify but start nothing, so a lead and an assignee can never
 * ping-pong through @mentions; delegated work reaches assignees through
 * their assignment instead.
 */
import type { Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { agentBySessionKey } from "../records/agents";
import { AGENT_MENTION_NOTE, consumeTrigger, insertTrigger, sameTrigger, type NewTrigger } from "../records/triggers";
import { enqueueRun } from "./runQueue";

/** Records that an agent has work and takes it up; a repeat of the same event changes nothing. Null when the task is gone. */
export async function recordTrigger(ctx: MutationCtx, trigger: NewTrigger): Promise<Id<"agentTriggers"> | null> {
  const task = await ctx.db.get("tasks", trigger.taskId);
  if (task === null) return null;
  const same = await sameTrigger(ctx, trigger);
  if (same !== null) return same._id;
  const triggerId = await insertTrigger(ctx, trigger, task.departmentId);
  const agent = await agentBySessionKey(ctx, trigger.agentSessionKey);
  if (agent === null) {
    await consumeTrigger(ctx, triggerId, { note: "the agent no longer exists" });
    return triggerId;
  }
  if (trigger.messageId !== undefined) {
    const message = await ctx.db.get("messages", trigger.messageId);
    if (message !== null && message.author.kind !== "member") {
      await consumeTrigger(ctx, triggerId, { note: AGENT_MENTION_NOTE });
      return triggerId;
    }
  }
  const result = await enqueueRun(ctx, agent, trigger.taskId, { kind: trigger.kind, messageId: trigger.messageId });
  await consumeTrigger(ctx, triggerId, result.runId === null ? { note: result.note } : { runId: result.runId });
  return triggerId;
}
