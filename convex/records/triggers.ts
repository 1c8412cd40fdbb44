/**
 * Agent triggers: one row per (agent, task, kind, message) saying an agent
 * has work, with the run that took it up. A repeat of the same event finds
 * its row. What a trigger starts is reactions/triggers.ts.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";

/** Bound on the rows scanned to de-duplicate one agent's triggers on one task. */
const MAX_TRIGGERS_PER_AGENT_AND_TASK = 1000;

export interface NewTrigger {
  taskId: Id<"tasks">;
  agentSessionKey: string;
  kind: "assigned" | "mentioned";
  messageId?: Id<"messages">;
}

/**
 * The row already recording this event, if any: a mention is one event per
 * message; an assignment is new work again once the last one was consumed
 * (the agent was taken off the task and put back on).
 */
export async function sameTrigger(ctx: QueryCtx, trigger: NewTrigger): Promise<Doc<"agentTriggers"> | null> {
  const existing = await ctx.db
    .query("agentTriggers")
    .withIndex("by_agent_and_task", (q) => q.eq("agentSessionKey", trigger.agentSessionKey).eq("taskId", trigger.taskId))
    .take(MAX_TRIGGERS_PER_AGENT_AND_TASK);
  return existing.find((t) => t.kind === trigger.kind && t.messageId === trigger.messageId && (t.kind === "mentioned" || t.status === "pending")) ?? null;
}

export async function insertTrigger(ctx: MutationCtx, trigger: NewTrigger, departmentId: Id<"departments">): Promise<Id<"agentTriggers">> {
  return await ctx.db.insert("agentTriggers", { ...trigger, departmentId, status: "pending" });
}

/** Why an agent's (or Maestro's) @mention starts no run: its trigger row says so. */
export const AGENT_MENTION_NOTE = "mentioned by an agent: agents' mentions notify but start no run";

/**
 * An @mention that starts no run (written by an agent or Maestro), recorded
 * as its trigger row already consumed, with the note, in the transaction
 * that posted it; a repeat of the same event changes nothing.
 */
export async function recordUnstartedMention(ctx: MutationCtx, trigger: NewTrigger & { kind: "mentioned" }, departmentId: Id<"departments">): Promise<void> {
  if ((await sameTrigger(ctx, trigger)) !== null) return;
  await ctx.db.insert("agentTriggers", { ...trigger, departmentId, status: "consumed", note: AGENT_MENTION_NOTE });
}

/** The trigger was taken up: by a run, or with a note saying why none started. */
export async function consumeTrigger(ctx: MutationCtx, triggerId: Id<"agentTriggers">, outcome: { runId?: Id<"runs">; note?: string }): Promise<void> {
  await ctx.db.patch("agentTriggers", triggerId, { status: "consumed", ...outcome });
}

/**
 * Deletes the department's oldest wake-ups a run already took up (or none
 * would), created before `before`, at most `limit`; pending ones stay.
 * Returns how many (history retention).
 */
export async function deleteHandledTriggersBefore(ctx: MutationCtx, departmentId: Id<"departments">, before: number, limit: number): Promise<number> {
  const old = await ctx.db
    .query("agentTriggers")
    .withIndex("by_department_and_status", (q) => q.eq("departmentId", departmentId).eq("status", "consumed").lt("_creationTime", before))
    .take(limit);
  for (const trigger of old) await ctx.db.delete("agentTriggers", trigger._id);
  return old.length;
}
