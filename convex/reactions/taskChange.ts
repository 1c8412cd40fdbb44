/**
 * A task is created, assigned or moved. Creating or assigning notifies the
 * new assignees and gives each an "assigned" trigger (taken up after this
 * transaction, reactions/triggers); every change is in the activity feed;
 * and when a delegated task reaches review or done, the parent's thread says
 * so and the delegator is woken on the parent task. A parent reflects its
 * delegated subtasks (lib/delegation parentStatusFromSubtasks): In progress
 * while any is open, Review once all are in Review or Done.
 */
import { internal } from "../_generated/api";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { recordActivity } from "../records/activities";
import { agentBySessionKey } from "../records/agents";
import { notifyAssigned } from "../records/notifications";
import { parentStatusFromSubtasks } from "../lib/delegation";
import { MAX_SUBTASKS } from "../lib/limits";
import { insertTask, liveTask, placeTask, resolveAssignees, setAssignees, subtasksOf, type NewTask } from "../records/tasks";
import type { Actor, TaskStatus } from "../validators";
import { taskStatusReported } from "./a2a";
import { enqueueRun } from "./runQueue";

/** The feed's line saying who a task is assigned to now. */
async function recordAssigned(ctx: MutationCtx, actor: Actor, task: Doc<"tasks">, assignees: ReadonlyArray<Doc<"agents">>): Promise<void> {
  const data = { title: task.title, assignees: assignees.map((a) => a.name).join(", ") };
  await recordActivity(ctx, { departmentId: task.departmentId, type: "task_assigned", actor, taskId: task._id, data });
}

/** Notifies newly assigned agents and hands each an "assigned" trigger, once each. */
async function announceAssignees(ctx: MutationCtx, task: Doc<"tasks">, sessionKeys: readonly string[]): Promise<void> {
  await notifyAssigned(ctx, task, sessionKeys);
  for (const sessionKey of new Set(sessionKeys)) {
    await ctx.scheduler.runAfter(0, internal.triggers.agentAssigned, { taskId: task._id, sessionKey });
  }
}

/**
 * Creates a task at the end of its column (`assigned` when it has assignees,
 * else `inbox`), records the activity and notifies and triggers the assignees.
 */
export async function createTask(ctx: MutationCtx, actor: Actor, input: NewTask): Promise<Doc<"tasks">> {
  const { task, assignees } = await insertTask(ctx, actor, input);
  await recordActivity(ctx, { departmentId: task.departmentId, type: "task_created", actor, taskId: task._id, data: { title: task.title } });
  if (assignees.length > 0) {
    await recordAssigned(ctx, actor, task, assignees);
    await announceAssignees(ctx, task, task.assigneeSessionKeys);
  }
  return task;
}

/** Sets a task's assignees (the board and /assign); newly added agents are notified and triggered. */
export async function assignTask(ctx: MutationCtx, actor: Actor, task: Doc<"tasks">, assigneeSessionKeys: string[]): Promise<void> {
  const assignees = await resolveAssignees(ctx, task.departmentId, assigneeSessionKeys);
  const keys = assignees.map((a) => a.sessionKey);
  const added = keys.filter((key) => !task.assigneeSessionKeys.includes(key));
  await setAssignees(ctx, task._id, keys);
  await recordAssigned(ctx, actor, task, assignees);
  if (added.length > 0) await announceAssignees(ctx, { ...task, assigneeSessionKeys: keys }, added);
  if (task.status === "inbox" && keys.length > 0) await moveTask(ctx, actor, task, "assigned");
}

/**
 * Moves a task to `status` at `position` in that column (on top when omitted),
 * or just before the card `{ before }` names, recording a column change.
 */
export async function moveTask(ctx: MutationCtx, actor: Actor, task: Doc<"tasks">, status: TaskStatus, position?: number | { before: Id<"tasks"> }): Promise<void> {
  await placeTask(ctx, task, status, position);
  if (status === task.status) return;
  await recordActivity(ctx, {
    departmentId: task.departmentId,
    type: "task_status_changed",
    actor,
    taskId: task._id,
    data: { title: task.title, from: task.status, to: status },
  });
  const line = await taskStatusReported(ctx, actor, task, status);
  if (line !== null && (status === "review" || status === "done")) await wakeDelegator(ctx, task, line);
  if (task.parentTaskId !== undefined) await reflectSubtasks(ctx, task.parentTaskId);
}

/**
 * A parent task follows its delegated subtasks (lib/delegation
 * parentStatusFromSubtasks): moved by the system to In progress while any is
 * open, to Review once all are in Review or Done; a parent that is Done,
 * Blocked, archived or deleted stays. Called when a subtask is made or moves.
 */
export async function reflectSubtasks(ctx: MutationCtx, parentId: Id<"tasks">): Promise<void> {
  const parent = await liveTask(ctx, parentId);
  if (parent === null || parent.archivedAt !== undefined) return;
  const { subtasks } = await subtasksOf(ctx, parentId, MAX_SUBTASKS);
  const delegated = subtasks.filter((sub) => sub.delegatedBy !== undefined && sub.deletedAt === undefined && sub.archivedAt === undefined);
  const next = parentStatusFromSubtasks(parent.status, delegated.map((sub) => sub.status));
  if (next !== null) await moveTask(ctx, { kind: "system" }, parent, next);
}

/**
 * The delegating agent takes the parent it split when nobody holds it (it
 * is the one following the work): assigned quietly, with the feed's line
 * but no assignment run, since it is already working on it.
 */
export async function leadHoldsParent(ctx: MutationCtx, parent: Doc<"tasks">, lead: Doc<"agents">): Promise<void> {
  if (parent.assigneeSessionKeys.length > 0 || parent.departmentId !== lead.departmentId) return;
  await setAssignees(ctx, parent._id, [lead.sessionKey]);
  await recordAssigned(ctx, { kind: "system" }, parent, [lead]);
}

/**
 * Results flow back: when a delegated task reaches review or done, its parent
 * task's thread has said so (`line`) and the delegator is woken on the parent task.
 */
async function wakeDelegator(ctx: MutationCtx, task: Doc<"tasks">, line: Doc<"messages">): Promise<void> {
  const delegator = task.delegatedBy === undefined ? null : await agentBySessionKey(ctx, task.delegatedBy);
  if (delegator !== null) await enqueueRun(ctx, delegator, line.taskId, { kind: "delegation_result", messageId: line._id, note: line.content });
}
