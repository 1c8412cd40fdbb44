import { v } from "convex/values";
import { internal } from "./_generated/api";
import type { Doc, Id } from "./_generated/dataModel";
import { env, internalMutation, type MutationCtx } from "./_generated/server";
import { taskQuery, userQuery } from "./functions";
import { modelConfigFromEnv } from "./brain/model";
import { cutForThread } from "./brain/toolCalls";
import { agentActor } from "./lib/actors";
import schema from "./schema";
import { postMessage } from "./messages";
import { vRunTiming, vToolCallRecord, type RunTriggerKind } from "./validators";

/** Runs the drawer lists for one task. */
export const MAX_RUNS_PER_TASK = 20;
/** Tool call records kept on one run. */
export const MAX_TOOL_CALL_RECORDS = 50;
/** Longest argument JSON kept on a tool call record. */
export const MAX_RECORDED_ARGS_CHARS = 2000;
const ACTIVE_RUN_SCAN = 20;
/** Why agents cannot think on this deployment (no model, or unusable model settings), or null. */
export function modelConfigProblem(): string | null {
  try {
    return modelConfigFromEnv(env) === null ? NO_MODEL_NOTE : null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Why no run starts on a deployment without a model; the UI says the same. */
export const NO_MODEL_NOTE = "No model configured: set OPENAI_API_KEY or OPENAI_BASE_URL for the deployment.";

export interface RunTrigger {
  kind: RunTriggerKind;
  messageId?: Id<"messages">;
  note?: string;
}

/** The agent's queued or running run on this task, if any. */
async function activeRun(ctx: MutationCtx, agentSessionKey: string, taskId: Id<"tasks">) {
  const recent = await ctx.db
    .query("runs")
    .withIndex("by_agent_and_task", (q) => q.eq("agentSessionKey", agentSessionKey).eq("taskId", taskId))
    .order("desc")
    .take(ACTIVE_RUN_SCAN);
  return recent.find((run) => run.status === "queued" || run.status === "running") ?? null;
}

/**
 * Starts a run of `agent` on `taskId`, or folds the trigger into the run
 * already queued or running there (which then runs once more when done), so
 * an agent never thinks twice in parallel about one task.
 */
export async function enqueueRun(
  ctx: MutationCtx,
  agent: Doc<"agents">,
  taskId: Id<"tasks">,
  trigger: RunTrigger,
): Promise<{ runId: Id<"runs">; folded: boolean } | { runId: null; note: string }> {
  if (agent.status === "offline") return { runId: null, note: `${agent.name} is offline` };
  const modelProblem = modelConfigProblem();
  if (modelProblem !== null) return { runId: null, note: modelProblem };
  const existing = await activeRun(ctx, agent.sessionKey, taskId);
  if (existing !== null) {
    const running = existing.status === "running";
    await ctx.db.patch("runs", existing._id, {
      foldedTriggers: existing.foldedTriggers + 1,
      rerunRequested: existing.rerunRequested || running,
      // A queued run has not read its context yet, so it will see what this trigger brought.
      ...(running ? { foldedTrigger: trigger } : {}),
    });
    return { runId: existing._id, folded: true };
  }
  const runId = await ctx.db.insert("runs", {
    departmentId: agent.departmentId,
    agentId: agent._id,
    agentSessionKey: agent.sessionKey,
    taskId,
    trigger,
    status: "queued",
    iterations: 0,
    toolCalls: [],
    promptTokens: 0,
    completionTokens: 0,
    foldedTriggers: 0,
    rerunRequested: false,
    delegations: 0,
    guards: [],
    timings: [],
  });
  if (agent.status !== "active") await ctx.db.patch("agents", agent._id, { status: "active" });
  await ctx.scheduler.runAfter(0, internal.brain.run.execute, { runId });
  return { runId, folded: false };
}

/** The agent with this session key, if it exists. */
export async function agentBySessionKey(ctx: MutationCtx, sessionKey: string) {
  return await ctx.db
    .query("agents")
    .withIndex("by_sessionKey", (q) => q.eq("sessionKey", sessionKey))
    .unique();
}

/** Back to idle once an active agent has no queued or running run left. */
async function idleIfUnoccupied(ctx: MutationCtx, agent: Doc<"agents">) {
  if (agent.status !== "active") return;
  for (const status of ["running", "queued"] as const) {
    const busy = await ctx.db
      .query("runs")
      .withIndex("by_agent_and_status", (q) => q.eq("agentSessionKey", agent.sessionKey).eq("status", status))
      .first();
    if (busy !== null) return;
  }
  await ctx.db.patch("agents", agent._id, { status: "idle" });
}

async function getRunX(ctx: MutationCtx, runId: Id<"runs">) {
  const run = await ctx.db.get("runs", runId);
  if (run === null) throw new Error(`Run ${runId} not found`);
  return run;
}

// ---- internal functions the run action calls ----

/** queued → running; false when the run is not queued (already started, or ended). */
export const markRunning = internalMutation({
  args: { runId: v.id("runs") },
  returns: v.boolean(),
  handler: async (ctx, { runId }) => {
    const run = await getRunX(ctx, runId);
    if (run.status !== "queued") return false;
    await ctx.db.patch("runs", runId, { status: "running", startedAt: Date.now() });
    return true;
  },
});

/** Adds one model call's usage and timings. */
export const recordModelCall = internalMutation({
  args: {
    runId: v.id("runs"),
    model: v.string(),
    promptTokens: v.number(),
    completionTokens: v.number(),
    timing: vRunTiming,
  },
  returns: v.null(),
  handler: async (ctx, { runId, model, promptTokens, completionTokens, timing }) => {
    const run = await getRunX(ctx, runId);
    await ctx.db.patch("runs", runId, {
      model,
      iterations: run.iterations + 1,
      promptTokens: run.promptTokens + promptTokens,
      completionTokens: run.completionTokens + completionTokens,
      timings: [...run.timings, timing],
    });
    return null;
  },
});

/** Records one dispatched tool call's result (also when it failed or was denied). */
export const recordToolCall = internalMutation({
  args: { runId: v.id("runs"), record: vToolCallRecord, delegated: v.boolean(), guard: v.optional(v.string()) },
  returns: v.null(),
  handler: async (ctx, { runId, record, delegated, guard }) => {
    const run = await getRunX(ctx, runId);
    const args = record.args.length > MAX_RECORDED_ARGS_CHARS ? `${record.args.slice(0, MAX_RECORDED_ARGS_CHARS)}…` : record.args;
    await ctx.db.patch("runs", runId, {
      toolCalls: [...run.toolCalls, { ...record, args }].slice(-MAX_TOOL_CALL_RECORDS),
      delegations: run.delegations + (delegated ? 1 : 0),
      guards: guard === undefined || run.guards.includes(guard) ? run.guards : [...run.guards, guard],
    });
    return null;
  },
});

/**
 * Ends a run: posts the agent's reply in the thread (or, on error, a system
 * message saying what went wrong), returns the agent to idle when it has no
 * other work, and starts one more run if a trigger arrived meanwhile.
 */
export const finish = internalMutation({
  args: {
    runId: v.id("runs"),
    status: v.union(v.literal("completed"), v.literal("error"), v.literal("aborted")),
    reason: v.string(),
    reply: v.optional(v.string()),
  },
  returns: v.null(),
  handler: async (ctx, { runId, status, reason, reply }) => {
    const run = await getRunX(ctx, runId);
    if (run.status === "completed" || run.status === "error" || run.status === "aborted") return null;
    await ctx.db.patch("runs", runId, { status, reason, endedAt: Date.now() });
    const agent = await ctx.db.get("agents", run.agentId);
    const task = await ctx.db.get("tasks", run.taskId);
    if (agent !== null && task !== null) {
      if (reply !== undefined && reply.trim() !== "") {
        await postMessage(ctx, agentActor(agent), task, cutForThread(reply));
      }
      if (status === "error") {
        await postMessage(ctx, { kind: "system" }, task, `${agent.name} could not finish: ${reason}`);
      }
      const rerun =
        run.rerunRequested && status === "completed"
          ? await enqueueRun(ctx, agent, task._id, run.foldedTrigger ?? { kind: run.trigger.kind, messageId: run.trigger.messageId })
          : null;
      if (rerun === null || rerun.runId === null) await idleIfUnoccupied(ctx, agent);
    }
    return null;
  },
});

// ---- public ----

/** What the drawer shows of a run: the stored run's public fields and its agent's name. */
const vRunView = schema.tables.runs.validator
  .pick(
    "agentSessionKey",
    "trigger",
    "status",
    "reason",
    "iterations",
    "toolCalls",
    "model",
    "promptTokens",
    "completionTokens",
    "guards",
    "timings",
    "startedAt",
    "endedAt",
  )
  .extend({ _id: v.id("runs"), _creationTime: v.number(), agentName: v.string() });

/** A task's runs, newest first: what the drawer shows live ("Jarvis is thinking…"). */
export const listForTask = taskQuery({
  args: {},
  returns: v.array(vRunView),
  handler: async (ctx, { taskId }) => {
    const runs = await ctx.db
      .query("runs")
      .withIndex("by_task", (q) => q.eq("taskId", taskId))
      .order("desc")
      .take(MAX_RUNS_PER_TASK);
    const names = new Map<string, string>();
    const result = [];
    for (const run of runs) {
      if (!names.has(run.agentSessionKey)) names.set(run.agentSessionKey, (await ctx.db.get("agents", run.agentId))?.name ?? run.agentSessionKey);
      result.push({
        _id: run._id,
        _creationTime: run._creationTime,
        agentName: names.get(run.agentSessionKey)!,
        agentSessionKey: run.agentSessionKey,
        trigger: run.trigger,
        status: run.status,
        reason: run.reason,
        iterations: run.iterations,
        toolCalls: run.toolCalls,
        model: run.model,
        promptTokens: run.promptTokens,
        completionTokens: run.completionTokens,
        guards: run.guards,
        timings: run.timings,
        startedAt: run.startedAt,
        endedAt: run.endedAt,
      });
    }
    return result;
  },
});

/** Whether agents can think on this deployment, and with which model: the board shows it plainly. */
export const modelStatus = userQuery({
  args: {},
  returns: v.object({ configured: v.boolean(), label: v.union(v.string(), v.null()), problem: v.union(v.string(), v.null()) }),
  handler: async () => {
    const problem = modelConfigProblem();
    const config = problem === null ? modelConfigFromEnv(env) : null;
    return { configured: config !== null, label: config === null ? null : (config.label ?? config.defaultModel), problem };
  },
});
