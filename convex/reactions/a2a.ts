/**
 * Agent-to-agent linkage (messaging spec, "A2A Integration"): every
 * delegation and every status update of delegated work carries one envelope
 * — `correlation_id`, intent, from, to, and the task, batch and project it is
 * about — recorded as an `a2a.<intent>` event in the department's log (and
 * its webhook). A delegation's correlation id is its task's, so the chain
 * from `a2a.delegate` to the `a2a.status_update` that says done reads as one
 * id. The updates also post into the parent task's thread: created, started
 * and blocked here; review and done are reactions/taskChange's result line,
 * which also wakes the delegator.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { actorName } from "../lib/actors";
import { agentNamer } from "../records/agents";
import { emitEvent } from "../records/events";
import type { Actor, TaskStatus } from "../validators";
import { postNote } from "./threadPost";

export type A2AIntent = "delegate" | "request_tool" | "status_update";

/** Levels walked up a delegation tree to find its batch (its root task); deeper trees are refused by the depth guard long before. */
const MAX_BATCH_DEPTH = 20;

/** The correlation id of the delegation that made `taskId`: every envelope about it carries this one. */
export function delegationCorrelationId(taskId: Id<"tasks">): string {
  return `a2a:${taskId}`;
}

/** A batch is the set of tasks one delegation tree created, named by its root task. */
async function batchOf(ctx: MutationCtx, task: Doc<"tasks">): Promise<Id<"tasks">> {
  let current = task;
  for (let depth = 0; depth < MAX_BATCH_DEPTH && current.parentTaskId !== undefined; depth++) {
    const parent = await ctx.db.get("tasks", current.parentTaskId);
    if (parent === null) break;
    current = parent;
  }
  return current._id;
}

/** Records one envelope as an `a2a.<intent>` event; `to` are names. */
export async function recordEnvelope(
  ctx: MutationCtx,
  envelope: { intent: A2AIntent; correlationId: string; from: Actor; to: readonly string[]; task: Doc<"tasks">; data?: Record<string, string> },
): Promise<void> {
  const { intent, correlationId, from, to, task } = envelope;
  await emitEvent(ctx, {
    departmentId: task.departmentId,
    type: `a2a.${intent}`,
    actor: from,
    correlationId,
    data: {
      correlation_id: correlationId,
      intent,
      from: actorName(from),
      to: to.join(", "),
      task_id: task._id,
      batch_id: await batchOf(ctx, task),
      project_id: task.departmentId,
      ...envelope.data,
    },
  });
}

async function assigneeNames(ctx: MutationCtx, task: Doc<"tasks">): Promise<string[]> {
  const nameOf = agentNamer(ctx);
  const names = [];
  for (const key of task.assigneeSessionKeys) names.push(await nameOf(key));
  return names;
}

/** A delegation was made: its envelope, and a line in the parent task's thread. */
export async function delegationCreated(ctx: MutationCtx, from: Actor, task: Doc<"tasks">): Promise<void> {
  const to = await assigneeNames(ctx, task);
  await recordEnvelope(ctx, { intent: "delegate", correlationId: delegationCorrelationId(task._id), from, to, task, data: { title: task.title } });
  const parent = task.parentTaskId === undefined ? null : await ctx.db.get("tasks", task.parentTaskId);
  if (parent !== null) await postNote(ctx, parent, `${actorName(from)} delegated “${task.title}” to ${to.length > 0 ? to.join(", ") : "nobody yet"}.`);
}

/** What the parent's thread is told for a status this module reports (review and done: reactions/taskChange). */
const STATUS_LINES: Partial<Record<TaskStatus, string>> = { in_progress: "has started", blocked: "is blocked" };
/** The statuses a delegation reports: started, review, done, blocked. */
const REPORTED: readonly TaskStatus[] = ["in_progress", "review", "done", "blocked"];

/** A delegated task moved: its status update's envelope to the delegator, and the parent's thread line for started and blocked. */
export async function delegationStatusChanged(ctx: MutationCtx, by: Actor, task: Doc<"tasks">, status: TaskStatus): Promise<void> {
  if (task.delegatedBy === undefined || task.parentTaskId === undefined || !REPORTED.includes(status)) return;
  const delegator = await agentNamer(ctx, () => task.delegatedBy!)(task.delegatedBy);
  await recordEnvelope(ctx, { intent: "status_update", correlationId: delegationCorrelationId(task._id), from: by, to: [delegator], task, data: { status } });
  const line = STATUS_LINES[status];
  const parent = line === undefined ? null : await ctx.db.get("tasks", task.parentTaskId);
  if (parent !== null) {
    const who = await assigneeNames(ctx, task);
    await postNote(ctx, parent, `Delegated task “${task.title}” (assigned to ${who.length > 0 ? who.join(", ") : "nobody"}) ${line}.`);
  }
}
