import { v } from "convex/values";
import { internalMutation, internalQuery, type MutationCtx } from "./_generated/server";
import type { Id } from "./_generated/dataModel";
import { agentBySessionKey, enqueueRun } from "./runs";
import schema from "./schema";

/** Most triggers listed for one task. */
export const MAX_TRIGGERS_PER_TASK = 500;
/** Bound on the rows scanned to de-duplicate one agent's triggers on one task. */
const MAX_TRIGGERS_PER_AGENT_AND_TASK = 1000;

/**
 * Records that an agent has work: one row per (agent, task, kind, message).
 * A repeat of the same event changes nothing. A mention is one event per
 * message; an assignment is new work again once the brain has consumed the
 * last one (the agent was taken off the task and put back on).
 */
async function recordTrigger(
  ctx: MutationCtx,
  trigger: { taskId: Id<"tasks">; agentSessionKey: string; kind: "assigned" | "mentioned"; messageId?: Id<"messages"> },
): Promise<Id<"agentTriggers"> | null> {
  const task = await ctx.db.get("tasks", trigger.taskId);
  if (task === null) return null;
  const existing = await ctx.db
    .query("agentTriggers")
    .withIndex("by_agent_and_task", (q) => q.eq("agentSessionKey", trigger.agentSessionKey).eq("taskId", trigger.taskId))
    .take(MAX_TRIGGERS_PER_AGENT_AND_TASK);
  const same = existing.find(
    (t) => t.kind === trigger.kind && t.messageId === trigger.messageId && (t.kind === "mentioned" || t.status === "pending"),
  );
  if (same !== undefined) return same._id;
  const triggerId = await ctx.db.insert("agentTriggers", { ...trigger, departmentId: task.departmentId, status: "pending" });
  await takeUp(ctx, triggerId);
  return triggerId;
}

/**
 * The brain consumes a trigger at once: it starts a run of the agent on the
 * task, or folds into the one already queued or running. Mentions written by
 * agents (or Maestro) notify but start nothing, so a lead and an assignee can
 * never ping-pong through @mentions; delegated work reaches assignees through
 * their assignment instead.
 */
async function takeUp(ctx: MutationCtx, triggerId: Id<"agentTriggers">) {
  const trigger = (await ctx.db.get("agentTriggers", triggerId))!;
  const consume = (fields: { runId?: Id<"runs">; note?: string }) =>
    ctx.db.patch("agentTriggers", triggerId, { status: "consumed", ...fields });
  const agent = await agentBySessionKey(ctx, trigger.agentSessionKey);
  if (agent === null) return await consume({ note: "the agent no longer exists" });
  if (trigger.messageId !== undefined) {
    const message = await ctx.db.get("messages", trigger.messageId);
    if (message !== null && message.author.kind !== "member") {
      return await consume({ note: "mentioned by an agent: agents' mentions notify but start no run" });
    }
  }
  const result = await enqueueRun(ctx, agent, trigger.taskId, { kind: trigger.kind, messageId: trigger.messageId });
  await consume(result.runId === null ? { note: result.note } : { runId: result.runId });
}

/** An agent was assigned a task. Scheduled by the board; consumed by the brain. */
export const agentAssigned = internalMutation({
  args: { taskId: v.id("tasks"), sessionKey: v.string() },
  returns: v.union(v.id("agentTriggers"), v.null()),
  handler: async (ctx, { taskId, sessionKey }) =>
    await recordTrigger(ctx, { taskId, agentSessionKey: sessionKey, kind: "assigned" }),
});

/** An agent was @mentioned in a task thread. Scheduled by the board; consumed by the brain. */
export const agentMentioned = internalMutation({
  args: { taskId: v.id("tasks"), messageId: v.id("messages"), sessionKey: v.string() },
  returns: v.union(v.id("agentTriggers"), v.null()),
  handler: async (ctx, { taskId, messageId, sessionKey }) =>
    await recordTrigger(ctx, { taskId, messageId, agentSessionKey: sessionKey, kind: "mentioned" }),
});

/** Every trigger recorded on a task, oldest first, with the run that took it up. */
export const listForTask = internalQuery({
  args: { taskId: v.id("tasks") },
  returns: v.array(v.object({ _id: v.id("agentTriggers"), _creationTime: v.number(), ...schema.tables.agentTriggers.validator.fields })),
  handler: async (ctx, { taskId }) =>
    await ctx.db
      .query("agentTriggers")
      .withIndex("by_task", (q) => q.eq("taskId", taskId))
      .take(MAX_TRIGGERS_PER_TASK),
});
