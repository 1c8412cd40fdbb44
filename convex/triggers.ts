import { v } from "convex/values";
import { internalMutation, internalQuery, type MutationCtx } from "./_generated/server";
import type { Id } from "./_generated/dataModel";
import { vTriggerKind } from "./validators";

/** Most pending triggers the brain takes in one read. */
export const MAX_PENDING_TRIGGERS = 100;
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
  return await ctx.db.insert("agentTriggers", { ...trigger, departmentId: task.departmentId, status: "pending" });
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

/** Pending triggers, oldest first. */
export const listPending = internalQuery({
  args: {},
  returns: v.array(
    v.object({
      _id: v.id("agentTriggers"),
      _creationTime: v.number(),
      departmentId: v.id("departments"),
      agentSessionKey: v.string(),
      taskId: v.id("tasks"),
      kind: vTriggerKind,
      messageId: v.optional(v.id("messages")),
      status: v.union(v.literal("pending"), v.literal("consumed")),
    }),
  ),
  handler: async (ctx) =>
    await ctx.db
      .query("agentTriggers")
      .withIndex("by_status", (q) => q.eq("status", "pending"))
      .take(MAX_PENDING_TRIGGERS),
});
