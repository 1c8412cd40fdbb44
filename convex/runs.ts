import { v, type Infer } from "convex/values";
import { internal } from "./_generated/api";
import type { Doc, Id } from "./_generated/dataModel";
import { env, internalMutation, type MutationCtx, type QueryCtx } from "./_generated/server";
import { agentQuery, departmentQuery, taskMutation, taskQuery, userQuery } from "./functions";
import { cutForThread, stripToolCalls } from "./brain/toolCalls";
import { streamingText } from "./lib/runTimeline";
import { modelConfigFromEnv } from "./brain/model";
import { actorName, agentActor, memberActor } from "./lib/actors";
import { requireMember } from "./lib/auth";
import { MaestroError } from "./lib/errors";
import { boundedText, type AgentEndReason, type SubmitEvent } from "./lib/runEvents";
import { recoveryFor, runLeaseMs } from "./lib/runLease";
import { appendRunEvent, openMessageEvents } from "./runEvents";
import { closePause, takeResumePoint } from "./pauses";
import { vResumePoint } from "./lib/resumePoint";
import { answerWhereAsked, wakeAfterRun } from "./wakeups";
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
  channelMessageId?: Id<"channelMessages">;
  note?: string;
}

/** The agent's queued, running or waiting run on this task, if any. */
async function activeRun(ctx: MutationCtx, agentSessionKey: string, taskId: Id<"tasks">) {
  const recent = await ctx.db
    .query("runs")
    .withIndex("by_agent_and_task", (q) => q.eq("agentSessionKey", agentSessionKey).eq("taskId", taskId))
    .order("desc")
    .take(ACTIVE_RUN_SCAN);
  return recent.find((run) => run.status === "queued" || run.status === "running" || run.status === "waiting") ?? null;
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
    // A running or waiting run has read its context already: it answers the trigger in a follow-up run.
    const running = existing.status === "running" || existing.status === "waiting";
    await ctx.db.patch("runs", existing._id, {
      foldedTriggers: existing.foldedTriggers + 1,
      rerunRequested: existing.rerunRequested || running,
      // A queued run has not read its context yet, so it will see what this trigger brought.
      ...(running ? { foldedTrigger: trigger } : {}),
    });
    await submitTrigger(ctx, existing._id, trigger);
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
    attempt: 0,
    lastActiveAt: Date.now(),
  });
  // Submit before runtime: the stream says what was asked before the model hears of it.
  await submitTrigger(ctx, runId, trigger);
  if (agent.status !== "active") await ctx.db.patch("agents", agent._id, { status: "active" });
  await ctx.scheduler.runAfter(0, internal.brain.run.execute, { runId });
  return { runId, folded: false };
}

/** The submit event a trigger writes to a run's stream (de-duplicated by its message). */
export async function submitTrigger(ctx: MutationCtx, runId: Id<"runs">, trigger: RunTrigger) {
  const message = trigger.messageId === undefined ? null : await ctx.db.get("messages", trigger.messageId);
  const channelMessage = trigger.channelMessageId === undefined ? null : await ctx.db.get("channelMessages", trigger.channelMessageId);
  let event: SubmitEvent;
  if (trigger.kind === "delegation_result") {
    event = { type: "tool_output_submitted", tool: "delegate_task", content: boundedText(trigger.note ?? message?.content ?? "") };
  } else if (message !== null) {
    event = { type: "user_message_submitted", messageId: message._id, author: actorName(message.author), content: boundedText(message.content) };
  } else if (channelMessage !== null) {
    event = {
      type: "user_message_submitted",
      channelMessageId: channelMessage._id,
      author: actorName(channelMessage.from),
      content: boundedText(channelMessage.body),
      blocking: channelMessage.blocking,
    };
  } else {
    event = { type: "control_submitted", action: "start", by: "Maestro", note: trigger.kind === "nudge" && trigger.note ? boundedText(trigger.note) : trigger.kind };
  }
  const clientMessageId = trigger.messageId ?? trigger.channelMessageId;
  await appendRunEvent(ctx, runId, event, clientMessageId === undefined ? {} : { clientMessageId });
}

/** The agent with this session key, if it exists. */
export async function agentBySessionKey(ctx: MutationCtx, sessionKey: string) {
  return await ctx.db
    .query("agents")
    .withIndex("by_sessionKey", (q) => q.eq("sessionKey", sessionKey))
    .unique();
}

/** Back to idle once an active agent has no queued or running run left. */
export async function idleIfUnoccupied(ctx: MutationCtx, agent: Doc<"agents">) {
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

/**
 * queued → running as the next attempt, holding a fresh lease; writes
 * `agent_start`. Null when the run is not queued (already started, or ended).
 */
export const markRunning = internalMutation({
  args: { runId: v.id("runs") },
  returns: v.union(v.object({ attempt: v.number() }), v.null()),
  handler: async (ctx, { runId }) => await markRunningRun(ctx, runId),
});

/**
 * The action's first write: the run starts (as `markRunning`) and, for a run
 * that paused for a person, where it goes on (as `pauses.resumePoint`), in
 * one transaction instead of two on the way to the model call.
 */
export const start = internalMutation({
  args: { runId: v.id("runs") },
  returns: v.union(v.object({ attempt: v.number(), resume: v.union(v.null(), vResumePoint), failure: v.optional(v.string()) }), v.null()),
  handler: async (ctx, { runId }) => {
    const started = await markRunningRun(ctx, runId);
    if (started === null) return null;
    try {
      return { attempt: started.attempt, resume: await takeResumePoint(ctx, runId, started.attempt) };
    } catch (error) {
      // It only reads before it fails: the run has started, and the action ends it with the reason, as before.
      return { attempt: started.attempt, resume: null, failure: error instanceof Error ? error.message : String(error) };
    }
  },
});

async function markRunningRun(ctx: MutationCtx, runId: Id<"runs">): Promise<{ attempt: number } | null> {
  const run = await getRunX(ctx, runId);
  if (run.status !== "queued") return null;
  const now = Date.now();
  const attempt = (run.attempt ?? 0) + 1;
  await ctx.db.patch("runs", runId, {
    status: "running",
    startedAt: run.startedAt ?? now,
    attempt,
    leaseExpiresAt: now + runLeaseMs(env),
    lastActiveAt: now,
  });
  const agent = await ctx.db.get("agents", run.agentId);
  let model = "";
  try {
    const config = modelConfigFromEnv(env);
    model = config === null ? "" : (config.label ?? agent?.model ?? config.defaultModel);
  } catch {
    // An unusable configuration ends the run at once, with its reason.
  }
  await appendRunEvent(ctx, runId, { type: "agent_start", agentName: agent?.name ?? run.agentSessionKey, model, attempt });
  return { attempt };
}

/** Adds one model call's usage and timings. */
const vModelCall = {
  model: v.string(),
  promptTokens: v.number(),
  completionTokens: v.number(),
  timing: vRunTiming,
  /** Tokens the injection middleware put into this call's prompt (messages, #maestro, context pack). */
  injectionTokens: v.optional(v.number()),
};
type ModelCall = Infer<ReturnType<typeof v.object<typeof vModelCall>>>;

export const recordModelCall = internalMutation({
  args: { runId: v.id("runs"), ...vModelCall },
  returns: v.null(),
  handler: async (ctx, { runId, ...call }) => {
    await addModelCall(ctx, runId, call);
    return null;
  },
});

async function addModelCall(ctx: MutationCtx, runId: Id<"runs">, { model, promptTokens, completionTokens, timing, injectionTokens }: ModelCall) {
  const run = await getRunX(ctx, runId);
  await ctx.db.patch("runs", runId, {
    model,
    iterations: run.iterations + 1,
    promptTokens: run.promptTokens + promptTokens,
    completionTokens: run.completionTokens + completionTokens,
    timings: [...run.timings, timing],
    injectionTokens: (run.injectionTokens ?? 0) + (injectionTokens ?? 0),
  });
}

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
    /** The attempt finishing: a stale attempt (the run was retried or stopped meanwhile) changes nothing. */
    attempt: v.optional(v.number()),
    status: v.union(v.literal("completed"), v.literal("error"), v.literal("aborted")),
    reason: v.string(),
    reply: v.optional(v.string()),
    /** The run's last model call, recorded in the same write (as `recordModelCall` would, whatever the attempt). */
    modelCall: v.optional(v.object(vModelCall)),
  },
  returns: v.null(),
  handler: async (ctx, { runId, attempt, status, reason, reply, modelCall }) => {
    if (modelCall !== undefined) await addModelCall(ctx, runId, modelCall);
    const run = await getRunX(ctx, runId);
    if (attempt !== undefined && (run.attempt ?? 1) !== attempt) return null;
    await endRun(ctx, run, status, reason, reply);
    return null;
  },
});

/** The reason the sweeper gives a run whose action died after a tool had run. */
export const INTERRUPTED_REASON = "interrupted";

const END_REASON: Record<"completed" | "error" | "aborted", AgentEndReason> = { completed: "complete", error: "error", aborted: "aborted" };

/**
 * Ends a run once (later calls change nothing): `agent_end`, the reply or
 * the error said in the thread, the agent back to idle, and a follow-up run
 * for triggers folded in meanwhile, unless a person stopped it.
 */
async function endRun(ctx: MutationCtx, run: Doc<"runs">, status: "completed" | "error" | "aborted", reason: string, reply?: string) {
  if (run.status === "completed" || run.status === "error" || run.status === "aborted") return;
  if (run.status === "waiting") await closePause(ctx, run, reason);
  const now = Date.now();
  await ctx.db.patch("runs", run._id, { status, reason, endedAt: now, lastActiveAt: now, leaseExpiresAt: undefined });
  await appendRunEvent(ctx, run._id, { type: "agent_end", reason: END_REASON[status], detail: boundedText(reason) });
  const agent = await ctx.db.get("agents", run.agentId);
  const task = await ctx.db.get("tasks", run.taskId);
  if (agent === null || task === null) return;
  if (status !== "aborted" && reply !== undefined && reply.trim() !== "" && !(await answerWhereAsked(ctx, run, agent, reply))) {
    await postMessage(ctx, agentActor(agent), task, cutForThread(reply));
  }
  if (status === "error") {
    await postMessage(ctx, { kind: "system" }, task, `${agent.name} could not finish: ${reason}`);
  }
  const answerFolded = run.rerunRequested && (status === "completed" || reason === INTERRUPTED_REASON);
  const rerun = answerFolded
    ? await enqueueRun(ctx, agent, task._id, run.foldedTrigger ?? { kind: run.trigger.kind, messageId: run.trigger.messageId })
    : null;
  if (rerun !== null && rerun.runId !== null) return;
  // What arrived while it worked and it never saw: a blocking message, or the end-of-run nudge.
  const woke = status !== "aborted" && (await wakeAfterRun(ctx, run, agent));
  if (!woke) await idleIfUnoccupied(ctx, agent);
}

/** Most runs the sweeper handles per pass (the next pass takes the rest). */
const SWEEP_BATCH = 50;

/**
 * The sweeper (convex/crons.ts): a running run whose lease lapsed lost its
 * action. Without a side effect yet it runs again as a new attempt;
 * otherwise it ends `error` with the reason "interrupted", said in the thread.
 */
export const sweep = internalMutation({
  args: {},
  returns: v.object({ retried: v.number(), interrupted: v.number() }),
  handler: async (ctx) => {
    const now = Date.now();
    const lapsed = await ctx.db
      .query("runs")
      .withIndex("by_status_and_leaseExpiresAt", (q) => q.eq("status", "running").lt("leaseExpiresAt", now))
      .take(SWEEP_BATCH);
    let retried = 0;
    let interrupted = 0;
    for (const run of lapsed) {
      if (recoveryFor(run) === "retry") {
        await ctx.db.patch("runs", run._id, { status: "queued", leaseExpiresAt: undefined, lastActiveAt: now });
        await appendRunEvent(ctx, run._id, { type: "control_submitted", action: "resume", by: "Maestro", note: "the run's action stopped; running it again" });
        await ctx.scheduler.runAfter(0, internal.brain.run.execute, { runId: run._id });
        retried += 1;
      } else {
        await endRun(ctx, run, "error", INTERRUPTED_REASON);
        interrupted += 1;
      }
    }
    return { retried, interrupted };
  },
});

/** How long a run may stay queued (its action never started) before the sweeper ends it; MAESTRO_RUN_QUEUED_LIMIT_MS overrides it. */
export const DEFAULT_QUEUED_LIMIT_MS = 10 * 60_000;

export function queuedLimitMs(source: Record<string, string | undefined>): number {
  const value = Number(source.MAESTRO_RUN_QUEUED_LIMIT_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_QUEUED_LIMIT_MS;
}

/**
 * The sweeper's other half (convex/crons.ts): a run queued for longer than
 * the limit lost the action that should have started it; it ends `error`,
 * said in the thread, so the agent is free again.
 */
export const sweepQueued = internalMutation({
  args: {},
  returns: v.number(),
  handler: async (ctx) => {
    const limit = queuedLimitMs(env);
    const before = Date.now() - limit;
    const queued = await ctx.db
      .query("runs")
      .withIndex("by_status_and_leaseExpiresAt", (q) => q.eq("status", "queued"))
      .take(SWEEP_BATCH);
    let ended = 0;
    for (const run of queued) {
      if ((run.lastActiveAt ?? run._creationTime) >= before) continue;
      await endRun(ctx, run, "error", `never started: queued for more than ${Math.round(limit / 60_000)} min`);
      ended += 1;
    }
    return ended;
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
    "injectionTokens",
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
        ...(run.injectionTokens === undefined ? {} : { injectionTokens: run.injectionTokens }),
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

/**
 * Stops a queued, running or waiting run: `control_submitted` (stop) then
 * `agent_end` (aborted). The run's action notices at its next write and
 * cancels its model call; nothing is posted and no tool runs after this.
 */
export const stop = taskMutation({
  args: { runId: v.id("runs") },
  returns: v.null(),
  handler: async (ctx, { runId }) => {
    const run = await ctx.db.get("runs", runId);
    if (run === null || run.taskId !== ctx.task._id) throw new MaestroError("NOT_FOUND", "Run not found.");
    await stopRun(ctx, run, ctx.member);
    return null;
  },
});

/** Stops `run` if it is queued, running or waiting for a person (runs.stop and /stop); false when it had already ended. */
export async function stopRun(ctx: MutationCtx, run: Doc<"runs">, member: Doc<"members">): Promise<boolean> {
  if (run.status !== "queued" && run.status !== "running" && run.status !== "waiting") return false;
  const by = actorName(memberActor(member));
  await appendRunEvent(ctx, run._id, { type: "control_submitted", action: "stop", by });
  await endRun(ctx, run, "aborted", `stopped by ${by}`);
  return true;
}

/** What the thread shows while an agent's reply streams in: partial text without tool-call lines. */
export function typingPreview(text: string): string {
  const shown = stripToolCalls(text);
  const open = shown.lastIndexOf("[TOOL:");
  return (open === -1 ? shown : shown.slice(0, open)).trim();
}

/** The task's running runs and the text each is streaming: "Jarvis is typing…". */
export const streamingForTask = taskQuery({
  args: {},
  returns: v.array(v.object({ runId: v.id("runs"), agentName: v.string(), text: v.string() })),
  handler: async (ctx, { taskId }) => {
    const recent = await ctx.db
      .query("runs")
      .withIndex("by_task", (q) => q.eq("taskId", taskId))
      .order("desc")
      .take(ACTIVE_RUN_SCAN);
    const result = [];
    for (const run of recent) {
      if (run.status !== "running") continue;
      const agent = await ctx.db.get("agents", run.agentId);
      const text = streamingText(await openMessageEvents(ctx, run)) ?? "";
      result.push({ runId: run._id, agentName: agent?.name ?? run.agentSessionKey, text: typingPreview(text) });
    }
    return result;
  },
});

/** Runs a list shows. */
export const MAX_RUNS_LISTED = 50;
/** Runs summed for an agent's token totals. */
const MAX_RUNS_TOTALLED = 500;

const vRunSummary = v.object({
  _id: v.id("runs"),
  _creationTime: v.number(),
  taskId: v.id("tasks"),
  title: v.string(),
  agentId: v.id("agents"),
  agentName: v.string(),
  status: schema.tables.runs.validator.fields.status,
  trigger: schema.tables.runs.validator.fields.trigger.fields.kind,
  reason: v.optional(v.string()),
  lastActiveAt: v.number(),
  promptTokens: v.number(),
  completionTokens: v.number(),
});

async function summarize(ctx: QueryCtx, runs: Array<Doc<"runs">>) {
  const titles = new Map<string, string>();
  const names = new Map<string, string>();
  const result = [];
  for (const run of runs) {
    if (!titles.has(run.taskId)) titles.set(run.taskId, (await ctx.db.get("tasks", run.taskId))?.title ?? "(deleted task)");
    if (!names.has(run.agentId)) names.set(run.agentId, (await ctx.db.get("agents", run.agentId))?.name ?? run.agentSessionKey);
    result.push({
      _id: run._id,
      _creationTime: run._creationTime,
      taskId: run.taskId,
      title: titles.get(run.taskId)!,
      agentId: run.agentId,
      agentName: names.get(run.agentId)!,
      status: run.status,
      trigger: run.trigger.kind,
      ...(run.reason === undefined ? {} : { reason: run.reason }),
      lastActiveAt: run.lastActiveAt ?? run.endedAt ?? run.startedAt ?? run._creationTime,
      promptTokens: run.promptTokens,
      completionTokens: run.completionTokens,
    });
  }
  return result;
}

/** A department's runs, newest first. */
export const listForDepartment = departmentQuery({
  args: {},
  returns: v.array(vRunSummary),
  handler: async (ctx, { departmentId }) => {
    const runs = await ctx.db
      .query("runs")
      .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
      .order("desc")
      .take(MAX_RUNS_LISTED);
    return await summarize(ctx, runs);
  },
});

/** An agent's runs, newest first. */
export const listForAgent = agentQuery({
  args: {},
  returns: v.array(vRunSummary),
  handler: async (ctx, { agentId }) => {
    const runs = await ctx.db
      .query("runs")
      .withIndex("by_agentId", (q) => q.eq("agentId", agentId))
      .order("desc")
      .take(MAX_RUNS_LISTED);
    return await summarize(ctx, runs);
  },
});

/** What an agent's page shows: who it is, what it is doing, what it did, what it cost. */
export const agentOverview = agentQuery({
  args: {},
  returns: v.object({
    agentId: v.id("agents"),
    name: v.string(),
    role: v.string(),
    status: schema.tables.agents.validator.fields.status,
    isSquadLead: v.boolean(),
    allowedTools: v.array(v.string()),
    model: v.optional(v.string()),
    currentTask: v.union(v.object({ taskId: v.id("tasks"), title: v.string(), runId: v.id("runs") }), v.null()),
    runs: v.array(vRunSummary),
    totals: v.object({ runs: v.number(), promptTokens: v.number(), completionTokens: v.number() }),
  }),
  handler: async (ctx) => {
    const { agent } = ctx;
    const recent = await ctx.db
      .query("runs")
      .withIndex("by_agentId", (q) => q.eq("agentId", agent._id))
      .order("desc")
      .take(MAX_RUNS_TOTALLED);
    const current = recent.find((run) => run.status === "running") ?? recent.find((run) => run.status === "queued");
    const currentTask = current === undefined ? null : await ctx.db.get("tasks", current.taskId);
    return {
      agentId: agent._id,
      name: agent.name,
      role: agent.role,
      status: agent.status,
      isSquadLead: agent.isSquadLead,
      allowedTools: agent.allowedTools,
      ...(agent.model === undefined ? {} : { model: agent.model }),
      currentTask: current === undefined || currentTask === null ? null : { taskId: currentTask._id, title: currentTask.title, runId: current._id },
      runs: await summarize(ctx, recent.slice(0, MAX_RUNS_LISTED)),
      totals: {
        runs: recent.length,
        promptTokens: recent.reduce((sum, run) => sum + run.promptTokens, 0),
        completionTokens: recent.reduce((sum, run) => sum + run.completionTokens, 0),
      },
    };
  },
});

/** One run's summary (the run view's header), for members of its department. */
export const get = userQuery({
  args: { runId: v.id("runs") },
  returns: vRunSummary,
  handler: async (ctx, { runId }) => {
    const run = await ctx.db.get("runs", runId);
    if (run === null) throw new MaestroError("NOT_FOUND", "Run not found.");
    await requireMember(ctx, run.departmentId, "viewer", ctx.viewer);
    const [summary] = await summarize(ctx, [run]);
    return summary;
  },
});

/** Runs the figures page charts, newest first. */
export const MAX_INJECTION_RUNS = 100;

/**
 * Tokens the messaging injection (inbox, channels, #maestro, context pack)
 * put into the department's latest runs, with who ran them; a run that
 * recorded none counts 0.
 */
export const injectionUsage = departmentQuery({
  args: { limit: v.number() },
  returns: v.array(
    v.object({
      runId: v.id("runs"),
      agentName: v.string(),
      startedAt: v.number(),
      status: v.string(),
      injectionTokens: v.number(),
    }),
  ),
  handler: async (ctx, { departmentId, limit }) => {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_INJECTION_RUNS) {
      throw new MaestroError("INVALID_ARGUMENT", `Pick 1 to ${MAX_INJECTION_RUNS} runs.`);
    }
    const runs = await ctx.db
      .query("runs")
      .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
      .order("desc")
      .take(limit);
    const names = new Map<Id<"agents">, string>();
    const out = [];
    for (const run of runs) {
      let name = names.get(run.agentId);
      if (name === undefined) {
        name = (await ctx.db.get("agents", run.agentId))?.name ?? "a removed agent";
        names.set(run.agentId, name);
      }
      out.push({ runId: run._id, agentName: name, startedAt: run.startedAt ?? run._creationTime, status: run.status, injectionTokens: run.injectionTokens ?? 0 });
    }
    return out;
  },
});
