/**
 * The thread tools' executors (tools/registry): an agent posts in its task's
 * thread, moves its task or asks there for a tool, and a run says a note
 * there. Each acts as the run's agent on the run's task only; neither comes
 * from the model's arguments.
 */
import { v } from "convex/values";
import type { Doc } from "../_generated/dataModel";
import { internalMutation, type MutationCtx } from "../_generated/server";
import { agentActor } from "../lib/actors";
import { MaestroError } from "../lib/errors";
import { delegationCorrelationId, recordEnvelope } from "../reactions/a2a";
import { moveTask } from "../reactions/taskChange";
import { postNote as postSystemNote, postToThread } from "../reactions/threadPost";
import { agentBySessionKey } from "../records/agents";
import { mentionCandidates } from "../records/messages";
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

/**
 * An agent moves only a task that is its work: one it is assigned, or that
 * it delegated or created. An @mention on someone else's task lets it speak
 * there, not move it.
 */
function requireTaskOfAgent(task: Doc<"tasks">, agent: Doc<"agents">): void {
  const key = agent.sessionKey;
  if (task.assigneeSessionKeys.includes(key) || task.delegatedBy === key || task.createdBy === key) return;
  throw new MaestroError("FORBIDDEN", "You may move only a task you are assigned, or one you delegated: ask its assignee or a person in the thread instead.");
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
    requireTaskOfAgent(task, agent);
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

/** Longest reason, and longest arguments (as JSON), a tool request carries. */
const MAX_REQUEST_REASON_CHARS = 500;
const MAX_REQUEST_ARGUMENTS_CHARS = 1000;

/**
 * `request_tool` (messaging spec: "request_tool intent can route through
 * messaging when human-in-the-loop required"): the agent asks for a tool it
 * may not call — from the people who can allow it (`to` absent), or from a
 * named agent allowed it, or a person, to run it for it (`to`). The request
 * is an `a2a.request_tool` envelope under the task's correlation id and a
 * line in the task's thread that @mentions whom it asks (a mentioned agent
 * is woken to run it). `tool` is a registered tool (checked by the registry).
 */
export const requestToolTool = internalMutation({
  args: { runId: v.id("runs"), key: vKey, tool: v.string(), reason: v.string(), to: v.optional(v.string()), input: v.optional(v.string()) },
  returns: v.object({ to: v.string() }),
  handler: async (ctx, { runId, key, tool, reason, to, input }) => {
    const { agent, task } = await runScope(ctx, runId);
    if (reason.length > MAX_REQUEST_REASON_CHARS) throw new MaestroError("INVALID_ARGUMENT", `reason must be at most ${MAX_REQUEST_REASON_CHARS} characters.`);
    if (input !== undefined && input.length > MAX_REQUEST_ARGUMENTS_CHARS) throw new MaestroError("INVALID_ARGUMENT", `arguments must be at most ${MAX_REQUEST_ARGUMENTS_CHARS} characters as JSON.`);
    let target: { kind: "agent" | "member"; key: string; name: string } | null = null;
    if (to === undefined) {
      if (agent.allowedTools.includes(tool)) throw new MaestroError("INVALID_ARGUMENT", `you may call ${tool} already: call it instead of asking for it.`);
    } else {
      const wanted = to.trim().replace(/^@/, "").toLowerCase();
      target = (await mentionCandidates(ctx, task.departmentId)).find((c) => c.name.toLowerCase() === wanted) ?? null;
      if (target === null) throw new MaestroError("NOT_FOUND", `nobody called "${to}" in this department.`);
      if (target.key === agent.sessionKey) throw new MaestroError("INVALID_ARGUMENT", "ask someone else: you cannot run a tool for yourself.");
      if (target.kind === "agent") {
        const other = await agentBySessionKey(ctx, target.key);
        if (other === null || !other.allowedTools.includes(tool)) throw new MaestroError("INVALID_ARGUMENT", `${target.name} may not call ${tool} either: ask a person (an owner or admin can allow it).`);
      }
    }
    const toName = target?.name ?? "the department's owners and admins";
    return await oncePerKey(ctx, { key, tool: "request_tool", runId }, async () => {
      const correlationId = delegationCorrelationId(task._id);
      await recordEnvelope(ctx, {
        intent: "request_tool",
        correlationId,
        from: agentActor(agent),
        to: [toName],
        task,
        data: { tool, reason, ...(input === undefined ? {} : { arguments: input }) },
      });
      const line =
        target === null
          ? `I need the tool ${tool}, which I may not call here: ${reason} (An owner or admin can allow it in my agent settings.)`
          : `@${target.name} please run ${tool}${input === undefined ? "" : ` with ${input}`} for me and post the result here: ${reason}`;
      await postToThread(ctx, agentActor(agent), task, line, { correlationId });
      return { to: toName };
    });
  },
});
