/**
 * The thread tools' executors (tools/registry): an agent posts in its task's
 * thread or moves its task, and a run says a note there. Each acts as the
 * run's agent on the run's task only; neither comes from the model's arguments.
 */
import { v } from "convex/values";
import type { Doc } from "../_generated/dataModel";
import { internalMutation, type MutationCtx } from "../_generated/server";
import { agentActor } from "../lib/actors";
import { MaestroError } from "../lib/errors";
import { moveTask } from "../reactions/taskChange";
import { postNote as postSystemNote, postToThread } from "../reactions/threadPost";
import { oncePerKey } from "../records/toolEffects";
import { vTaskStatus } from "../validators";

/** The running run's agent and task. */
async function runScope(ctx: MutationCtx, runId: Doc<"runs">["_id"]) {
  const run = await ctx.db.get("runs", runId);
  if (run === null || run.status !== "running") throw new MaestroError("INVALID_ARGUMENT", "This run is not running.");
  const agent = (await ctx.db.get("agents", run.agentId))!;
  const task = await ctx.db.get("tasks", run.taskId);
  if (task === null) throw new MaestroError("NOT_FOUND", "The task no longer exists.");
  return { agent, task };
}

/** The call's idempotency key (lib/idempotency): the same call from the same cause acts once (records/toolEffects). */
const vKey = v.optional(v.string());

/** `post_message`: the agent posts in its task's thread. */
export const postMessageTool = internalMutation({
  args: { runId: v.id("runs"), content: v.string(), key: vKey },
  returns: v.id("messages"),
  handler: async (ctx, { runId, content, key }) => {
    const { agent, task } = await runScope(ctx, runId);
    return await oncePerKey(ctx, { key, tool: "post_message", runId }, async () => (await postToThread(ctx, agentActor(agent), task, content))._id);
  },
});

/** `update_task_status`: the agent moves its task to another column. */
export const updateTaskStatus = internalMutation({
  args: { runId: v.id("runs"), status: vTaskStatus, key: vKey },
  returns: v.object({ from: vTaskStatus, to: vTaskStatus }),
  handler: async (ctx, { runId, status, key }) => {
    const { agent, task } = await runScope(ctx, runId);
    return await oncePerKey(ctx, { key, tool: "update_task_status", runId }, async () => {
      if (task.pendingQuestion !== undefined && status !== "blocked") {
        throw new MaestroError("INVALID_ARGUMENT", "The task is blocked on your question until a human answers.");
      }
      if (task.status !== status) await moveTask(ctx, agentActor(agent), task, status);
      return { from: task.status, to: status };
    });
  },
});

/**
 * A system note from a run in its task's thread: what a tool call could not
 * do and the choices (lib/notes). Notes mention nobody, so they wake no one.
 */
export const postNote = internalMutation({
  args: { runId: v.id("runs"), content: v.string() },
  returns: v.id("messages"),
  handler: async (ctx, { runId, content }) => {
    const { task } = await runScope(ctx, runId);
    return await postSystemNote(ctx, task, content);
  },
});
