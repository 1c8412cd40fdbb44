/**
 * Runs: one row per agent run, with its status, lease, usage and tool-call
 * records. Reads for the screens and the sweeper, and the writes of the run
 * row itself; what a run's start, pause or end sets off across nouns is in
 * reactions/ (runQueue, pauses, runEnd).
 */
import type { PaginationOptions } from "convex/server";
import { type Infer, v } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import { env, type MutationCtx, type QueryCtx } from "../_generated/server";
import { ACTIVE_RUN_SCAN, MAX_QUEUED_TRIGGERS } from "../lib/limits";
import { modelLabel } from "../lib/modelConfig";
import { runLeaseMs } from "../lib/runLease";
import { vRunTiming, type RunStatus, type RunTriggerKind, type ToolCallRecord } from "../validators";
import { chargeModelCall } from "./costs";
import { appendRunEvent, redactRunText } from "./runEvents";

type ReadCtx = QueryCtx | MutationCtx;

/** Tool call records kept on one run. */
export const MAX_TOOL_CALL_RECORDS = 50;
/** Longest argument JSON kept on a tool call record. */
export const MAX_RECORDED_ARGS_CHARS = 2000;
/** Most runs the sweeper handles per pass (the next pass takes the rest). */
export const SWEEP_BATCH = 50;

/** What started a run (or was folded into one). */
export interface RunTrigger {
  kind: RunTriggerKind;
  messageId?: Id<"messages">;
  channelMessageId?: Id<"channelMessages">;
  /** The #maestro message that @mentioned the agent: its reply goes to #maestro (reactions/runEnd). */
  chatId?: number;
  note?: string;
}

/** The run, or a bug: callers hold an id they were given by Maestro itself. */
export async function getRunX(ctx: ReadCtx, runId: Id<"runs">): Promise<Doc<"runs">> {
  const run = await ctx.db.get("runs", runId);
  if (run === null) throw new Error(`Run ${runId} not found`);
  return run;
}

export function isActive(run: Pick<Doc<"runs">, "status">): boolean {
  return run.status === "queued" || run.status === "running" || run.status === "waiting";
}

/** The agent's queued, running or waiting run on this task, if any. */
export async function activeRunOfAgentOnTask(ctx: ReadCtx, agentSessionKey: string, taskId: Id<"tasks">): Promise<Doc<"runs"> | null> {
  const recent = await ctx.db
    .query("runs")
    .withIndex("by_agent_and_task", (q) => q.eq("agentSessionKey", agentSessionKey).eq("taskId", taskId))
    .order("desc")
    .take(ACTIVE_RUN_SCAN);
  return recent.find(isActive) ?? null;
}

/** The agent's run in progress (running before queued), preferring one on `taskId`; null when it is idle. */
export async function runInProgressOf(ctx: ReadCtx, agent: Doc<"agents">, taskId?: Id<"tasks">): Promise<Doc<"runs"> | null> {
  const active: Array<Doc<"runs">> = [];
  for (const status of ["running", "queued"] as const) {
    active.push(...(await runsOfAgentWithStatus(ctx, agent.sessionKey, status, ACTIVE_RUN_SCAN)));
  }
  return active.find((run) => run.taskId === taskId) ?? active[0] ?? null;
}

/** An agent's runs with one status, newest first. */
export async function runsOfAgentWithStatus(ctx: ReadCtx, agentSessionKey: string, status: RunStatus, limit: number): Promise<Array<Doc<"runs">>> {
  return await ctx.db
    .query("runs")
    .withIndex("by_agent_and_status", (q) => q.eq("agentSessionKey", agentSessionKey).eq("status", status))
    .order("desc")
    .take(limit);
}

/** The task's newest run whose status is one of `statuses`. */
export async function taskRunWithStatus(ctx: ReadCtx, taskId: Id<"tasks">, statuses: readonly RunStatus[]): Promise<Doc<"runs"> | null> {
  return (await runsOfTask(ctx, taskId, ACTIVE_RUN_SCAN)).find((run) => statuses.includes(run.status)) ?? null;
}

/** A task's runs, newest first. */
export async function runsOfTask(ctx: ReadCtx, taskId: Id<"tasks">, limit: number): Promise<Array<Doc<"runs">>> {
  return await ctx.db
    .query("runs")
    .withIndex("by_task", (q) => q.eq("taskId", taskId))
    .order("desc")
    .take(limit);
}

/** A department's runs, newest first. */
export async function runsOfDepartment(ctx: ReadCtx, departmentId: Id<"departments">, limit: number): Promise<Array<Doc<"runs">>> {
  return await ctx.db
    .query("runs")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .order("desc")
    .take(limit);
}

/** A department's runs created after `after` and before `before`, oldest first (the history retention's walk). */
export async function runsCreatedBetween(ctx: ReadCtx, departmentId: Id<"departments">, after: number, before: number, limit: number): Promise<Array<Doc<"runs">>> {
  return await ctx.db
    .query("runs")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId).gt("_creationTime", after).lt("_creationTime", before))
    .take(limit);
}

/** Notes on an ended run that the history retention deleted its steps: the run page says so instead of showing none. */
export async function markStepsDeleted(ctx: MutationCtx, runId: Id<"runs">, at: number): Promise<void> {
  await ctx.db.patch("runs", runId, { stepsDeletedAt: at });
}

/** An agent's runs, newest first. */
export async function runsOfAgent(ctx: ReadCtx, agentId: Id<"agents">, limit: number): Promise<Array<Doc<"runs">>> {
  return await ctx.db
    .query("runs")
    .withIndex("by_agentId", (q) => q.eq("agentId", agentId))
    .order("desc")
    .take(limit);
}

/** A new queued run of `agent` on `taskId`; `correlationId` is the delegation's when the task was delegated. */
export async function insertRun(ctx: MutationCtx, agent: Doc<"agents">, taskId: Id<"tasks">, trigger: RunTrigger, correlationId?: string): Promise<Id<"runs">> {
  return await ctx.db.insert("runs", {
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
    ...(correlationId === undefined ? {} : { correlationId }),
  });
}

/**
 * A trigger folded into a run already under way. One that asks for an
 * answer of its own (`answer`: an assignment, a mention, a message that
 * would have started a run) is answered by a running or waiting run in a
 * follow-up run (`rerun`: it has read its context already; every such
 * request is kept in `rerunTriggers`, see rerunTriggersOf), and named in a
 * queued run's "why" when it starts (`queuedTriggers`, brain/context), so
 * every request folded in before the start is answered, not only the first.
 */
export async function foldTrigger(ctx: MutationCtx, run: Doc<"runs">, trigger: RunTrigger, { answer }: { answer: boolean }): Promise<void> {
  const rerun = answer && (run.status === "running" || run.status === "waiting");
  const queuedTriggers = answer && run.status === "queued" ? withTrigger(run.queuedTriggers ?? [], trigger, run.trigger) : null;
  const rerunTriggers = rerun ? withTrigger(run.rerunTriggers ?? [], trigger) : null;
  await ctx.db.patch("runs", run._id, {
    foldedTriggers: run.foldedTriggers + 1,
    rerunRequested: run.rerunRequested || rerun,
    ...(queuedTriggers !== null ? { queuedTriggers } : {}),
    ...(rerunTriggers !== null ? { rerunTriggers } : {}),
  });
}

/** `kept` with `trigger` added, or null when it holds MAX_QUEUED_TRIGGERS already or the same request (or `answered` is it). */
function withTrigger(kept: RunTrigger[], trigger: RunTrigger, answered?: RunTrigger): RunTrigger[] | null {
  if (kept.length >= MAX_QUEUED_TRIGGERS) return null;
  if ((answered !== undefined && sameTrigger(answered, trigger)) || kept.some((t) => sameTrigger(t, trigger))) return null;
  return [...kept, trigger];
}

/**
 * What the follow-up run of `run` answers: every request folded in while it
 * ran, oldest first (the first is the follow-up's trigger, the others are
 * named in its why); runs recorded before `rerunTriggers` kept only the
 * newest. Its own trigger again when none was kept.
 */
export function rerunTriggersOf(run: Doc<"runs">): [RunTrigger, ...RunTrigger[]] {
  const [first, ...rest] = run.rerunTriggers ?? (run.foldedTrigger === undefined ? [] : [run.foldedTrigger]);
  return first === undefined ? [{ kind: run.trigger.kind, messageId: run.trigger.messageId }] : [first, ...rest];
}

/** Whether two triggers are the same request (the same message, chat line, or a repeat of the same kind naming none). */
function sameTrigger(a: RunTrigger, b: RunTrigger): boolean {
  return a.kind === b.kind && a.messageId === b.messageId && a.channelMessageId === b.channelMessageId && a.chatId === b.chatId && a.note === b.note;
}

/**
 * queued → running as the next attempt, holding a fresh lease; writes
 * `agent_start`. Null when the run is not queued (already started, or ended).
 */
export async function markRunning(ctx: MutationCtx, runId: Id<"runs">): Promise<{ attempt: number } | null> {
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
  await appendRunEvent(ctx, runId, { type: "agent_start", agentName: agent?.name ?? run.agentSessionKey, model: modelLabel(agent?.model), attempt });
  return { attempt };
}

/** The call no longer waits for an outside executor: it leaves the department's waiting list (`waitingExternalCalls`). */
const NOT_WAITING_FOR_EXECUTOR = { externalCallSince: undefined, externalCallExpiresAt: undefined };

/**
 * The run waits for a person, or (`expiresAt` given) for an outside
 * executor's output until then: no lease, so the sweeper leaves it alone.
 */
export async function markWaiting(ctx: MutationCtx, runId: Id<"runs">, paused: Doc<"runs">["paused"], expiresAt?: number): Promise<void> {
  const now = Date.now();
  const executor = expiresAt === undefined ? NOT_WAITING_FOR_EXECUTOR : { externalCallSince: now, externalCallExpiresAt: expiresAt };
  await ctx.db.patch("runs", runId, { status: "waiting", paused, leaseExpiresAt: undefined, lastActiveAt: now, ...executor });
}

/** What an external tool submitted (or its timeout) for the waiting run's paused call, kept on its pause until the next attempt takes it. */
export async function recordPauseOutput(ctx: MutationCtx, runId: Id<"runs">, paused: NonNullable<Doc<"runs">["paused"]>): Promise<void> {
  await ctx.db.patch("runs", runId, { paused, ...NOT_WAITING_FOR_EXECUTOR });
}

/** The run is queued again (resumed after a pause, or retried by the sweeper), without a lease. */
export async function markQueued(ctx: MutationCtx, runId: Id<"runs">): Promise<void> {
  await ctx.db.patch("runs", runId, { status: "queued", leaseExpiresAt: undefined, lastActiveAt: Date.now(), ...NOT_WAITING_FOR_EXECUTOR });
}

/** The run's pause is over: its card was settled or closed. */
export async function clearPause(ctx: MutationCtx, runId: Id<"runs">): Promise<void> {
  await ctx.db.patch("runs", runId, { paused: undefined, ...NOT_WAITING_FOR_EXECUTOR });
}

/** The run said its own reply where it answers, in a post made at `at` (its creation time). */
export async function markReplied(ctx: MutationCtx, runId: Id<"runs">, at: number): Promise<void> {
  await ctx.db.patch("runs", runId, { repliedAt: at });
}

/** The run's end: its status and reason, no lease. */
export async function markEnded(ctx: MutationCtx, runId: Id<"runs">, status: "completed" | "error" | "aborted", reason: string): Promise<void> {
  const now = Date.now();
  await ctx.db.patch("runs", runId, { status, reason, endedAt: now, lastActiveAt: now, leaseExpiresAt: undefined, ...NOT_WAITING_FOR_EXECUTOR });
}

/**
 * One page of the department's runs that wait for an outside executor's
 * output, soonest to expire first. A run without a deadline sorts before
 * every number in the index, so `gte(0)` leaves exactly the waiting ones.
 */
export async function waitingExternalCalls(ctx: QueryCtx, departmentId: Id<"departments">, paginationOpts: PaginationOptions) {
  return await ctx.db
    .query("runs")
    .withIndex("by_department_and_externalCallExpiresAt", (q) => q.eq("departmentId", departmentId).gte("externalCallExpiresAt", 0))
    .paginate(paginationOpts);
}

/** One model call's usage and timings. */
export const vModelCall = {
  model: v.string(),
  promptTokens: v.number(),
  completionTokens: v.number(),
  timing: vRunTiming,
  /** Tokens the injection middleware put into this call's prompt (messages, #maestro, context pack). */
  injectionTokens: v.optional(v.number()),
};
export type ModelCall = Infer<ReturnType<typeof v.object<typeof vModelCall>>>;

/** Adds one model call's usage and timings to the run. */
export async function addModelCall(ctx: MutationCtx, runId: Id<"runs">, { model, promptTokens, completionTokens, timing, injectionTokens }: ModelCall): Promise<void> {
  const run = await getRunX(ctx, runId);
  const cost = await chargeModelCall(ctx, run, model, promptTokens, completionTokens, Date.now());
  await ctx.db.patch("runs", runId, {
    costMicros: (run.costMicros ?? 0) + cost,
    model,
    iterations: run.iterations + 1,
    promptTokens: run.promptTokens + promptTokens,
    completionTokens: run.completionTokens + completionTokens,
    timings: [...run.timings, timing],
    injectionTokens: (run.injectionTokens ?? 0) + (injectionTokens ?? 0),
  });
}

/** Records one dispatched tool call's result (also when it failed or was denied), bounded. */
export async function addToolCall(ctx: MutationCtx, runId: Id<"runs">, record: ToolCallRecord, delegated: boolean, guard: string | undefined): Promise<void> {
  const run = await getRunX(ctx, runId);
  const bounded = record.args.length > MAX_RECORDED_ARGS_CHARS ? `${record.args.slice(0, MAX_RECORDED_ARGS_CHARS)}…` : record.args;
  // The record is on the run every reader of the board sees: its arguments and result pass the scanner.
  const args = await redactRunText(ctx, run.departmentId, "tool arguments", bounded, false);
  const observation = await redactRunText(ctx, run.departmentId, "tool result", record.observation);
  await ctx.db.patch("runs", runId, {
    toolCalls: [...run.toolCalls, { ...record, args, observation }].slice(-MAX_TOOL_CALL_RECORDS),
    delegations: run.delegations + (delegated ? 1 : 0),
    guards: guard === undefined || run.guards.includes(guard) ? run.guards : [...run.guards, guard],
  });
}

/** Running runs whose lease lapsed before `now` (their action died), a sweep's worth. */
export async function lapsedRuns(ctx: QueryCtx, now: number): Promise<Array<Doc<"runs">>> {
  return await ctx.db
    .query("runs")
    .withIndex("by_status_and_leaseExpiresAt", (q) => q.eq("status", "running").lt("leaseExpiresAt", now))
    .take(SWEEP_BATCH);
}

/** Queued runs, oldest first, a sweep's worth. */
export async function queuedRuns(ctx: QueryCtx): Promise<Array<Doc<"runs">>> {
  return await ctx.db
    .query("runs")
    .withIndex("by_status_and_leaseExpiresAt", (q) => q.eq("status", "queued"))
    .take(SWEEP_BATCH);
}

/** A run as the lists show it: its task's title and its agent's name, each read once per list. */
export async function summarizeRuns(ctx: QueryCtx, runs: Array<Doc<"runs">>) {
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
      costMicros: run.costMicros ?? 0,
      ...(run.stepsDeletedAt === undefined ? {} : { stepsDeletedAt: run.stepsDeletedAt }),
    });
  }
  return result;
}
