import { v } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import { internalMutation, type MutationCtx } from "../_generated/server";
import { agentActor } from "../lib/actors";
import { MaestroError } from "../lib/errors";
import { postMessage } from "../messages";
import { moveTask } from "../tasks";
import { vTaskStatus } from "../validators";
import { oncePerKey } from "./effects";

/**
 * The thread tools an agent calls during a run. Each acts as the run's agent
 * on the run's task only; neither comes from the model's arguments.
 */
async function runScope(ctx: MutationCtx, runId: Doc<"runs">["_id"]) {
  const run = await ctx.db.get("runs", runId);
  if (run === null || run.status !== "running") throw new MaestroError("INVALID_ARGUMENT", "This run is not running.");
  const agent = (await ctx.db.get("agents", run.agentId))!;
  const task = await ctx.db.get("tasks", run.taskId);
  if (task === null) throw new MaestroError("NOT_FOUND", "The task no longer exists.");
  return { agent, task };
}

/** The call's idempotency key (tools/idempotency): the same call from the same cause acts once (tools/effects). */
const vKey = v.optional(v.string());

/** `post_message`: the agent posts in its task's thread. */
export const postMessageTool = internalMutation({
  args: { runId: v.id("runs"), content: v.string(), key: vKey },
  returns: v.id("messages"),
  handler: async (ctx, { runId, content, key }) => {
    const { agent, task } = await runScope(ctx, runId);
    return await oncePerKey(ctx, { key, tool: "post_message", runId }, async () => await postMessage(ctx, agentActor(agent), task, content));
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
 * Posts an agent's question in its task's thread and blocks the task until a
 * member answers (there or on the question card); returns the message.
 */
export async function askInThread(ctx: MutationCtx, agent: Doc<"agents">, task: Doc<"tasks">, question: string, questionId?: Id<"questions">) {
  const messageId = await postMessage(ctx, agentActor(agent), task, `❓ ${question.trim()}`);
  const previousStatus = task.pendingQuestion?.previousStatus ?? (task.status === "blocked" ? "in_progress" : task.status);
  await ctx.db.patch("tasks", task._id, {
    pendingQuestion: { agentSessionKey: agent.sessionKey, messageId, previousStatus, ...(questionId === undefined ? {} : { questionId }) },
  });
  if (task.status !== "blocked") await moveTask(ctx, agentActor(agent), task, "blocked");
  return messageId;
}

/**
 * `ask_question` without a card: the agent asks the humans in the thread; the
 * task is blocked until a member answers there, which unblocks it and wakes the agent.
 */
export const askQuestion = internalMutation({
  args: { runId: v.id("runs"), question: v.string() },
  returns: v.id("messages"),
  handler: async (ctx, { runId, question }) => {
    const { agent, task } = await runScope(ctx, runId);
    return await askInThread(ctx, agent, task, question);
  },
});

/**
 * A system note from a run in its task's thread: what a tool call could not
 * do and the choices (tools/notes). Notes mention nobody, so they wake no one.
 */
export const postNote = internalMutation({
  args: { runId: v.id("runs"), content: v.string() },
  returns: v.id("messages"),
  handler: async (ctx, { runId, content }) => {
    const { task } = await runScope(ctx, runId);
    return await postMessage(ctx, { kind: "system" }, task, content);
  },
});
