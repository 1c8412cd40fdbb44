/**
 * A task is archived, brought back or deleted. Archiving or deleting stops
 * every run still queued, running or waiting on it, and cancels the A2A
 * tasks of the A2A agents working on it, here and at the agent (a person
 * asked for the work to end; nothing should keep acting on it); each change
 * is in the activity feed.
 */
import { internal } from "../_generated/api";
import type { Doc } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { memberActor } from "../lib/actors";
import { recordActivity } from "../records/activities";
import { runsOfTask } from "../records/runs";
import { markTaskDeleted, setTaskArchived } from "../records/tasks";
import { stopRemoteTasks } from "./a2aRemoteFollow";
import { stopRun } from "./runEnd";

/** Runs of one task looked at for ones to stop (active runs are the newest). */
const RUN_SCAN = 50;

/** Stops the task's runs that have not ended and its open A2A tasks; returns how many were stopped. */
async function stopTaskRuns(ctx: MutationCtx, task: Doc<"tasks">, member: Doc<"members">): Promise<number> {
  let stopped = 0;
  for (const run of await runsOfTask(ctx, task._id, RUN_SCAN)) {
    if (await stopRun(ctx, run, member)) stopped += 1;
  }
  return stopped + (await stopRemoteTasks(ctx, task, member));
}

/** Archives the task (its runs stopped) or brings it back; nothing happens when it already is as asked. */
export async function archiveTask(ctx: MutationCtx, member: Doc<"members">, task: Doc<"tasks">, archived: boolean): Promise<void> {
  if ((task.archivedAt !== undefined) === archived) return;
  const stopped = archived ? await stopTaskRuns(ctx, task, member) : 0;
  await setTaskArchived(ctx, task, archived);
  await recordActivity(ctx, {
    departmentId: task.departmentId,
    type: archived ? "task_archived" : "task_unarchived",
    actor: memberActor(member),
    taskId: task._id,
    data: { title: task.title, ...(stopped > 0 ? { stoppedRuns: stopped } : {}) },
  });
}

/** Deletes the task for everyone, its runs stopped and its files deleted (in batches after this transaction). */
export async function deleteTask(ctx: MutationCtx, member: Doc<"members">, task: Doc<"tasks">): Promise<void> {
  const stopped = await stopTaskRuns(ctx, task, member);
  await markTaskDeleted(ctx, task);
  await ctx.scheduler.runAfter(0, internal.taskFiles.deleteOfTask, { taskId: task._id });
  await recordActivity(ctx, {
    departmentId: task.departmentId,
    type: "task_deleted",
    actor: memberActor(member),
    taskId: task._id,
    data: { title: task.title, ...(stopped > 0 ? { stoppedRuns: stopped } : {}) },
  });
}
