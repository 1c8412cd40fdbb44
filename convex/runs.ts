/**
 * What the screens show of agent runs (a task's runs and who is typing, a
 * department's or an agent's runs, an agent's page, one run's header, the
 * injection figures), whether agents can think at all, and Stop.
 */
import { paginationOptsValidator, paginationResultValidator, type PaginationOptions } from "convex/server";
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import { env, internalMutation, internalQuery, type QueryCtx } from "./_generated/server";
import { agentQuery, departmentQuery, taskMutation, taskQuery, userMutation, userQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { hasRole } from "./lib/roles";
import { ACTIVE_RUN_SCAN, MAX_WAITING_CALLS_PAGE } from "./lib/limits";
import { modelConfigFromEnv, modelConfigProblem } from "./lib/modelConfig";
import { streamingText } from "./lib/runTimeline";
import { typingPreview } from "./lib/toolCalls";
import { submitToolOutputAs } from "./reactions/pauses";
import { stopRun } from "./reactions/runEnd";
import { scopedKeyAgentX } from "./records/agentApiKeys";
import { agentNamesById } from "./records/agents";
import { requireMember } from "./records/members";
import { openMessageEvents } from "./records/runEvents";
import { costTotal } from "./records/costs";
import { runsOfAgent, runsOfDepartment, runsOfTask, summarizeRuns, waitingExternalCalls } from "./records/runs";
import schema from "./schema";

/** Runs the drawer lists for one task. */
export const MAX_RUNS_PER_TASK = 20;
/** Runs a list shows. */
export const MAX_RUNS_LISTED = 50;
/** Runs summed for an agent's token totals. */
const MAX_RUNS_TOTALLED = 500;
/** Runs the figures page charts, newest first. */
export const MAX_INJECTION_RUNS = 100;

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
    "costMicros",
    "correlationId",
  )
  .extend({
    _id: v.id("runs"),
    _creationTime: v.number(),
    agentName: v.string(),
    /** While waiting on a tool run outside Maestro: that tool (the run waits for its output, not for a person). */
    waitingOnTool: v.optional(v.string()),
    /** …and when that call times out (the run then goes on with the timeout as the call's error). */
    waitingExpiresAt: v.optional(v.number()),
  });

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
  /** Micro-dollars (lib/pricing.ts). */
  costMicros: v.number(),
  /** When the department's history retention deleted this run's steps. */
  stepsDeletedAt: v.optional(v.number()),
});

function runView(run: Doc<"runs">, agentName: string) {
  const { _id, _creationTime, agentSessionKey, trigger, status, reason, iterations, toolCalls, model, promptTokens, completionTokens, guards, timings, startedAt, endedAt, injectionTokens, costMicros, correlationId } = run;
  return {
    _id,
    _creationTime,
    agentName,
    agentSessionKey,
    trigger,
    status,
    reason,
    iterations,
    toolCalls,
    model,
    promptTokens,
    completionTokens,
    guards,
    timings,
    startedAt,
    endedAt,
    ...(injectionTokens === undefined ? {} : { injectionTokens }),
    ...(costMicros === undefined ? {} : { costMicros }),
    ...(run.status === "waiting" && run.paused?.kind === "tool_output" ? { waitingOnTool: run.paused.call.name } : {}),
    ...(run.status === "waiting" && run.externalCallExpiresAt !== undefined ? { waitingExpiresAt: run.externalCallExpiresAt } : {}),
    ...(correlationId === undefined ? {} : { correlationId }),
  };
}

/** A task's runs, newest first: what the drawer shows live ("Jarvis is thinking…"). */
export const listForTask = taskQuery({
  args: {},
  returns: v.array(vRunView),
  handler: async (ctx, { taskId }) => {
    const runs = await runsOfTask(ctx, taskId, MAX_RUNS_PER_TASK);
    const names = await agentNamesById(
      ctx,
      runs.map((run) => run.agentId),
      "",
    );
    return runs.map((run) => runView(run, names.get(run.agentId) || run.agentSessionKey));
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

/** `toolOutput`'s arguments, the same from the app and from an agent's key. */
const vToolOutputArgs = { tool: v.string(), toolCallId: v.string(), output: v.optional(v.string()), error: v.optional(v.string()) };

/**
 * The spec's `session.toolOutput({ sessionId, tool, toolCallId, output | error })`:
 * a member of the run's department (not a viewer) hands back what a tool run
 * outside Maestro (tools/registry externalTool) returned for the call the run
 * waits on, `toolCallId` being `<runId>:<index>` of its `tool_call` event.
 * Exactly one of `output` and `error`. The run resumes with it as the call's
 * result; a wrong, foreign or repeated submission is refused and changes nothing.
 */
export const toolOutput = userMutation({
  args: { runId: v.id("runs"), ...vToolOutputArgs },
  returns: v.null(),
  handler: async (ctx, submission) => {
    await submitToolOutputAs(ctx, submission, async (run) => {
      await requireMember(ctx, run.departmentId, "member", ctx.viewer);
    });
    return null;
  },
});

/**
 * `toolOutput` for an agent outside Maestro, by its API key's hash (the HTTP
 * API's `POST /runs/{id}/tool-output` and the MCP tool `runs.tool_output`):
 * the key must hold `tools:run` and its agent's department must own the run;
 * then the same refusals as `toolOutput`. `runId` is the id as the caller
 * wrote it (an id that is not a run's is NOT_FOUND).
 */
export const toolOutputForKey = internalMutation({
  args: { keyHash: v.string(), runId: v.string(), ...vToolOutputArgs },
  returns: v.null(),
  handler: async (ctx, { keyHash, ...submission }) => {
    const agent = await scopedKeyAgentX(ctx, keyHash, "tools:run");
    await submitToolOutputAs(ctx, submission, async (run) => {
      if (run.departmentId !== agent.departmentId) throw new MaestroError("FORBIDDEN", "This run belongs to another department.");
    });
    return null;
  },
});

/** One external tool's call a run waits on, as an outside executor needs it to run the call and answer with `toolOutput`. */
const vWaitingToolCall = v.object({
  runId: v.id("runs"),
  taskId: v.id("tasks"),
  tool: v.string(),
  /** What `toolOutput` names: `<runId>:<index>`. */
  toolCallId: v.string(),
  /** The call's arguments, as canonical JSON (secrets redacted); left out for viewers, who cannot answer the call. */
  arguments: v.optional(v.string()),
  /** When the run began to wait (ms since the epoch). */
  since: v.number(),
  /** When the call times out, unless its output arrives first. */
  expiresAt: v.number(),
});

/** One page of the department's waiting external calls, soonest to expire first, at most MAX_WAITING_CALLS_PAGE. */
async function waitingCallsPage(ctx: QueryCtx, departmentId: Id<"departments">, paginationOpts: PaginationOptions, withArguments: boolean) {
  const { numItems } = paginationOpts;
  if (!Number.isInteger(numItems) || numItems < 1 || numItems > MAX_WAITING_CALLS_PAGE) {
    throw new MaestroError("INVALID_ARGUMENT", `Pick 1 to ${MAX_WAITING_CALLS_PAGE} waiting calls a page.`);
  }
  const page = await waitingExternalCalls(ctx, departmentId, paginationOpts);
  const calls = [];
  for (const run of page.page) {
    const { paused, externalCallSince, externalCallExpiresAt } = run;
    // The index holds only runs with a deadline; the rest of the row says what the call is.
    if (paused?.kind !== "tool_output" || externalCallSince === undefined || externalCallExpiresAt === undefined) continue;
    calls.push({
      runId: run._id,
      taskId: run.taskId,
      tool: paused.call.name,
      toolCallId: paused.id,
      ...(withArguments ? { arguments: paused.call.args } : {}),
      since: externalCallSince,
      expiresAt: externalCallExpiresAt,
    });
  }
  return { ...page, page: calls };
}

/**
 * The spec's external tools, from the executor's side: the department's
 * calls that wait for an outside executor's output (a page at a time,
 * soonest to expire first), each with what `toolOutput` needs. Anyone who
 * reads the board may list them (its runs' tool calls are on the board
 * already); answering needs a member, and only those who may answer see a
 * call's arguments (a viewer sees which tool waits, not what it was given).
 */
export const waitingToolCalls = departmentQuery({
  args: { paginationOpts: paginationOptsValidator },
  returns: paginationResultValidator(vWaitingToolCall),
  handler: async (ctx, { departmentId, paginationOpts }) => await waitingCallsPage(ctx, departmentId, paginationOpts, hasRole(ctx.member.role, "member")),
});

/**
 * `waitingToolCalls` for an agent outside Maestro, by its API key's hash
 * (`GET /tool-calls/waiting`, MCP `runs.waiting_tool_calls`): the key must
 * hold `tools:run`; the calls are its agent's department's.
 */
export const waitingToolCallsForKey = internalQuery({
  args: { keyHash: v.string(), paginationOpts: paginationOptsValidator },
  returns: paginationResultValidator(vWaitingToolCall),
  handler: async (ctx, { keyHash, paginationOpts }) => {
    const agent = await scopedKeyAgentX(ctx, keyHash, "tools:run");
    return await waitingCallsPage(ctx, agent.departmentId, paginationOpts, true);
  },
});

/** The task's running runs and the text each is streaming: "Jarvis is typing…". */
export const streamingForTask = taskQuery({
  args: {},
  returns: v.array(v.object({ runId: v.id("runs"), agentName: v.string(), text: v.string() })),
  handler: async (ctx, { taskId }) => {
    const result = [];
    for (const run of await runsOfTask(ctx, taskId, ACTIVE_RUN_SCAN)) {
      if (run.status !== "running") continue;
      const agent = await ctx.db.get("agents", run.agentId);
      const text = streamingText(await openMessageEvents(ctx, run)) ?? "";
      result.push({ runId: run._id, agentName: agent?.name ?? run.agentSessionKey, text: typingPreview(text) });
    }
    return result;
  },
});

/** A department's runs, newest first. */
export const listForDepartment = departmentQuery({
  args: {},
  returns: v.array(vRunSummary),
  handler: async (ctx, { departmentId }) => await summarizeRuns(ctx, await runsOfDepartment(ctx, departmentId, MAX_RUNS_LISTED)),
});

/** An agent's runs, newest first. */
export const listForAgent = agentQuery({
  args: {},
  returns: v.array(vRunSummary),
  handler: async (ctx, { agentId }) => await summarizeRuns(ctx, await runsOfAgent(ctx, agentId, MAX_RUNS_LISTED)),
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
    totals: v.object({ runs: v.number(), promptTokens: v.number(), completionTokens: v.number(), costMicros: v.number() }),
  }),
  handler: async (ctx) => {
    const { agent } = ctx;
    const recent = await runsOfAgent(ctx, agent._id, MAX_RUNS_TOTALLED);
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
      runs: await summarizeRuns(ctx, recent.slice(0, MAX_RUNS_LISTED)),
      totals: {
        runs: recent.length,
        promptTokens: recent.reduce((sum, run) => sum + run.promptTokens, 0),
        completionTokens: recent.reduce((sum, run) => sum + run.completionTokens, 0),
        // All its runs, not only the latest ones totalled above: the denormalised total (records/costs.ts).
        costMicros: await costTotal(ctx, agent.departmentId, "agent", agent._id),
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
    const [summary] = await summarizeRuns(ctx, [run]);
    return summary;
  },
});

/**
 * Tokens the messaging injection (inbox, channels, #maestro, context pack)
 * put into the department's latest runs, with who ran them; a run that
 * recorded none counts 0.
 */
export const injectionUsage = departmentQuery({
  args: { limit: v.number() },
  returns: v.array(v.object({ runId: v.id("runs"), agentName: v.string(), startedAt: v.number(), status: v.string(), injectionTokens: v.number() })),
  handler: async (ctx, { departmentId, limit }) => {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_INJECTION_RUNS) {
      throw new MaestroError("INVALID_ARGUMENT", `Pick 1 to ${MAX_INJECTION_RUNS} runs.`);
    }
    const runs = await runsOfDepartment(ctx, departmentId, limit);
    const names = await agentNamesById(
      ctx,
      runs.map((run) => run.agentId),
      "a removed agent",
    );
    return runs.map((run) => ({ runId: run._id, agentName: names.get(run.agentId)!, startedAt: run.startedAt ?? run._creationTime, status: run.status, injectionTokens: run.injectionTokens ?? 0 }));
  },
});
