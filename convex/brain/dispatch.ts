/**
 * Executes the tool calls of one model reply, in order. Every call is
 * checked on the server against the agent's `allowedTools` as stored now and
 * validated with the registry's schema; every call gets a recorded result,
 * also when it is denied, invalid, refused by a loop guard or fails. Unknown
 * tools, permission denials, unknown assignees and guard stops are also said
 * in the thread, as a system note naming the problem and the choices.
 *
 * The dispatcher knows no tool by name: it loops over registry entries and
 * reads each executor's typed result.
 */
import type { Infer } from "convex/values";
import { internal } from "../_generated/api";
import type { Id } from "../_generated/dataModel";
import type { ActionCtx } from "../_generated/server";
import { errorMessage } from "../lib/errors";
import { guards } from "../lib/guards";
import { canonicalJson, idempotencyKey } from "../lib/idempotency";
import { deniedNote, guardNote, unknownToolNote, type GuardStop } from "../lib/notes";
import type { PauseRequest, Resolution } from "../lib/pauses";
import { approvalPolicy, findTool, MAX_OBSERVATION_CHARS, needsApproval, planStepCall, type ToolDefinition, type ToolResult, type ToolScope } from "../tools/registry";
import { PRIORITIES, type ApprovalPolicy, type LeadMode, type Priority, type RunPause, type ToolCallRecord } from "../validators";
import type { vDispatchScope } from "./context";
import type { BrainConfig } from "../lib/brainConfig";
import { cutObservation, MAX_TOOL_CALLS_PER_REPLY, type ParsedToolCall } from "../lib/toolCalls";

export interface Observation {
  tool: string;
  text: string;
  /** The native call it answers, when the call was native. */
  callId?: string;
}

type Outcome = ToolCallRecord["outcome"];

const OUTCOME: Record<Exclude<ToolResult, { ok: true }>["problem"], Outcome> = {
  invalid: "invalid",
  failed: "error",
  denied: "denied",
  guard: "refused",
};

function refused(tool: string, stop: GuardStop): ToolResult {
  return { ok: false, problem: "guard", text: `${tool}: refused, ${stop.reason}`, stop };
}

/** What the dispatcher knows of the calling agent, read fresh before each call. */
export interface DispatchScope {
  name: string;
  sessionKey: string;
  /** What the agent may call now. */
  allowedTools: string[];
  chatEnabled: boolean;
  delegations: number;
  /** Who may call what, for a denial's note (read only once a call is denied). */
  squad?: Array<{ name: string; sessionKey: string; allowedTools: string[] }>;
  /** The agent's own approval policies (registry defaults otherwise). */
  toolApprovals?: Array<{ tool: string; policy: ApprovalPolicy }>;
  /** The run's task priority: what `high_priority` policies read when a call names none. */
  taskPriority?: Priority;
  isSquadLead?: boolean;
  /** leadModeOf(task, settings): in "plan" mode a lead's delegations wait for an approved plan. */
  leadMode?: LeadMode;
}

/** In plan mode a squad lead proposes before it delegates. */
export const PLAN_MODE_REFUSAL =
  "refused, this task is in plan mode: propose the work with propose_plan first; its steps are delegated exactly as proposed once a person approves the plan";

/**
 * The checks before a call runs, in order: the per-reply limit, the tool's
 * existence, permission, the arguments, an identical repeat in this run and
 * the per-run delegation limit. Returns the refusal, or the tool and its
 * parsed arguments to execute. Pure: `seen` is only read.
 */
export function checkCall(
  call: ParsedToolCall,
  index: number,
  scope: DispatchScope,
  seen: ReadonlySet<string>,
  config: Pick<BrainConfig, "maxDelegationsPerRun">,
): { refused: ToolResult } | { tool: ToolDefinition; args: Record<string, unknown>; signature: string } {
  if (index >= MAX_TOOL_CALLS_PER_REPLY) {
    const stop = guards.perReply(MAX_TOOL_CALLS_PER_REPLY);
    return { refused: { ok: false, problem: "guard", text: `not run: at most ${MAX_TOOL_CALLS_PER_REPLY} tool calls per reply`, stop } };
  }
  const tool = findTool(call.name, scope.chatEnabled);
  if (tool === undefined) {
    return {
      refused: {
        ok: false,
        problem: "invalid",
        text: `unknown tool "${call.name}"; your tools are: ${scope.allowedTools.join(", ") || "none"}`,
        note: unknownToolNote(scope.name, call.name, scope.allowedTools),
      },
    };
  }
  if (!scope.allowedTools.includes(tool.name)) {
    const allowedAgents = (scope.squad ?? []).filter((a) => a.sessionKey !== scope.sessionKey && a.allowedTools.includes(tool.name)).map((a) => a.name);
    return {
      refused: { ok: false, problem: "denied", text: `permission denied: ${scope.name} may not call ${tool.name}`, note: deniedNote(scope.name, tool.name, allowedAgents) },
    };
  }
  if (call.error !== undefined || call.args === undefined) {
    return { refused: { ok: false, problem: "invalid", text: `${tool.name}: ${call.error ?? "no arguments"}. Expected arguments: ${tool.usage}` } };
  }
  const parsed = tool.args.safeParse(call.args);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`).join("; ");
    return { refused: { ok: false, problem: "invalid", text: `${tool.name}: invalid arguments (${problems}). Expected arguments: ${tool.usage}` } };
  }
  if (tool.delegates === true && scope.isSquadLead === true && scope.leadMode === "plan") {
    return { refused: { ok: false, problem: "invalid", text: `${tool.name}: ${PLAN_MODE_REFUSAL}` } };
  }
  const signature = `call ${tool.name} ${canonicalJson(parsed.data)}`;
  if (seen.has(signature)) {
    return { refused: { ...refused(tool.name, guards.repeated()), text: `${tool.name}: refused, you already made this exact call in this run` } };
  }
  if (tool.delegates === true && scope.delegations >= config.maxDelegationsPerRun) {
    return { refused: refused(tool.name, guards.perRun(config.maxDelegationsPerRun)) };
  }
  return { tool, args: parsed.data, signature };
}

/** What the thread is told about a result, if anything. */
export function noteFor(agent: string, tool: string, result: ToolResult): string | undefined {
  if (result.ok) return result.note;
  return result.problem === "guard" ? guardNote(agent, tool, result.stop) : result.note;
}

/**
 * The priority a call is judged by: what will happen, not what the call
 * claims. The higher of its task's priority and the `priority` argument it
 * names (delegate_task), so a call on a high-priority task cannot talk its
 * way past a `high_priority` approval by saying "low".
 */
export function callPriority(args: Record<string, unknown>, taskPriority: Priority | undefined): Priority {
  const named = args.priority;
  const claimed = typeof named === "string" && (PRIORITIES as readonly string[]).includes(named) ? (named as Priority) : undefined;
  const task = taskPriority ?? "medium";
  return claimed !== undefined && PRIORITIES.indexOf(claimed) > PRIORITIES.indexOf(task) ? claimed : task;
}

type Scope = Infer<typeof vDispatchScope>;

/** One call's outcome: its observation, or what it waits for (the run pauses). */
export type Dispatched = Reported | { pause: PauseRequest };

/** What the dispatcher reads of the run's agent before a call (brain/context agentForDispatch). */
export type DispatchScopeRead = Scope;

/** Runs a checked tool with the call's cause-derived idempotency key; a throw becomes a failed result. */
async function runTool(ctx: ActionCtx, runId: Id<"runs">, scope: Scope, tool: ToolDefinition, args: Record<string, unknown>): Promise<ToolResult> {
  const key = idempotencyKey(scope.cause, tool.name, args);
  try {
    return await tool.execute(ctx, toolScope(runId, scope, key), args);
  } catch (error) {
    return { ok: false, problem: "failed", text: `${tool.name} failed: ${errorMessage(error)}` };
  }
}

/** What an executor is told about the call: the run's agent and task, never the model's words. */
function toolScope(runId: Id<"runs">, scope: Scope, key: string): ToolScope {
  return { runId, agentName: scope.name, sessionKey: scope.sessionKey, departmentId: scope.departmentId, taskId: scope.taskId, triggerKind: scope.cause.trigger.kind, key };
}

/** A call's record on the run, written with its `tool_result` by writes.endToolCall (one write, not two). */
export interface CallRecord {
  record: ToolCallRecord;
  delegated: boolean;
  guard?: string;
}

/** A call's observation and the record that goes with it. */
export interface Reported {
  observation: Observation;
  recorded: CallRecord;
}

function callRecord(call: { name: string; args: string }, result: ToolResult): CallRecord {
  return {
    record: { name: call.name, args: call.args, outcome: result.ok ? "ok" : OUTCOME[result.problem], observation: result.text, at: Date.now() },
    delegated: result.ok && result.delegated === true,
    ...(!result.ok && result.problem === "guard" ? { guard: result.stop.reason } : {}),
  };
}

/**
 * Says a result's note in the thread (each note once per run); returns the
 * observation and the record the caller writes with the call's result.
 */
async function report(ctx: ActionCtx, runId: Id<"runs">, scope: Scope, call: { name: string; args: string }, result: ToolResult, seen: Set<string>): Promise<Reported> {
  const note = noteFor(scope.name, call.name, result);
  if (note !== undefined && !seen.has(`note ${note}`)) {
    seen.add(`note ${note}`);
    await ctx.runMutation(internal.tools.thread.postNote, { runId, content: note });
  }
  // A long result is cut so that it stays readable: valid JSON, or whole lines, saying how much was left out.
  const cut: ToolResult = { ...result, text: cutObservation(result.text, MAX_OBSERVATION_CHARS) };
  return { observation: { tool: call.name, text: cut.text }, recorded: callRecord(call, cut) };
}

/** Records a result on the run at once (a plan's steps: the next step's check reads the run's delegations). */
async function reportNow(ctx: ActionCtx, runId: Id<"runs">, scope: Scope, call: { name: string; args: string }, result: ToolResult, seen: Set<string>): Promise<Observation> {
  const { observation, recorded } = await report(ctx, runId, scope, call, result, seen);
  await ctx.runMutation(internal.brain.writes.recordToolCall, { runId, ...recorded });
  return observation;
}

/**
 * Runs one tool call of the run. `seen` lives as long as the run: the
 * signatures of the calls it made (an identical repeat is refused) and the
 * notes it posted (each said once). A call whose approval policy needs a
 * person, and a tool that asks a person (a question, a plan), come back as
 * a pause instead of an observation: nothing has run yet.
 */
export async function dispatchCall(
  ctx: ActionCtx,
  runId: Id<"runs">,
  call: ParsedToolCall,
  config: BrainConfig,
  seen: Set<string>,
  log: (line: string) => void,
  /** The scope as the write announcing this call read it (writes.beginToolCall), else read here. */
  read?: Scope,
): Promise<Dispatched> {
  const scope = read ?? (await ctx.runQuery(internal.brain.context.agentForDispatch, { runId }));
  log(`[TOOL: ${call.name}]`);
  const recorded = { name: call.name, args: JSON.stringify(call.args ?? null) };
  let checked = checkCall(call, 0, scope, seen, config);
  if ("refused" in checked && !checked.refused.ok && checked.refused.problem === "denied") {
    // Who may call the tool instead is read for a denial's note only, not the whole squad before every call.
    const squad = await ctx.runQuery(internal.brain.context.dispatchSquad, { runId });
    checked = checkCall(call, 0, { ...scope, squad }, seen, config);
  }
  if ("refused" in checked) return await report(ctx, runId, scope, recorded, checked.refused, seen);
  const { tool, args, signature } = checked;
  seen.add(signature);
  if (needsApproval(approvalPolicy(scope, tool.name), callPriority(args, scope.taskPriority))) {
    // A retried or resumed run repeating a call that already acted for this cause is not asked about again:
    // the tool only returns what it did then.
    const acted = await ctx.runQuery(internal.brain.context.alreadyActed, { key: idempotencyKey(scope.cause, tool.name, args) });
    if (!acted) {
      log(`approval needed: ${tool.name}`);
      return { pause: { kind: "approval", tool: tool.name, args: canonicalJson(args) } };
    }
    log(`approval not asked again: ${tool.name} already acted for this cause`);
  }
  const result = await runTool(ctx, runId, scope, tool, args);
  if (result.ok && result.pause !== undefined) return { pause: result.pause };
  return await report(ctx, runId, scope, recorded, result, seen);
}

/**
 * Whether `calls` open with calls that may run together (tools/registry
 * `executeTogether`): two or more of one such tool. A cheap look before
 * dispatchTogether reads anything.
 */
export function opensWithCallsTogether(calls: readonly ParsedToolCall[]): boolean {
  const tool = calls.length >= 2 ? findTool(calls[0].name, true) : undefined;
  return tool?.executeTogether !== undefined && calls[1].name === tool.name;
}

/**
 * Runs the calls `calls` opens with that may run together, in one
 * transaction: consecutive calls of one tool with `executeTogether`, each
 * passing every check dispatchCall makes (the run's delegation limit
 * counting the ones before it) and needing no approval. The first call
 * that does not stops the group; it and the calls after it are dispatched
 * one at a time. Returns the group's reports in order (each note said in
 * the thread, as dispatchCall does), or none when fewer than two qualify
 * (then nothing ran and nothing was marked seen).
 */
export async function dispatchTogether(
  ctx: ActionCtx,
  runId: Id<"runs">,
  calls: readonly ParsedToolCall[],
  config: BrainConfig,
  seen: Set<string>,
  log: (line: string) => void,
  /** The scope as the write announcing the first call read it (writes.beginToolCall), else read here. */
  read?: Scope,
): Promise<Reported[]> {
  const scope = read ?? (await ctx.runQuery(internal.brain.context.agentForDispatch, { runId }));
  const group: Array<{ call: ParsedToolCall; tool: ToolDefinition; args: Record<string, unknown>; signature: string }> = [];
  for (const call of calls) {
    const checked = checkCall(call, 0, { ...scope, delegations: scope.delegations + group.length }, seen, config);
    if ("refused" in checked) break;
    const { tool, args, signature } = checked;
    if (tool.executeTogether === undefined || (group.length > 0 && tool !== group[0].tool)) break;
    // An identical repeat within the group is refused as a repeat, one at a time.
    if (group.some((g) => g.signature === signature)) break;
    if (needsApproval(approvalPolicy(scope, tool.name), callPriority(args, scope.taskPriority))) break;
    group.push({ call, tool, args, signature });
  }
  if (group.length < 2) return [];
  const tool = group[0].tool;
  for (const { call, signature } of group) {
    seen.add(signature);
    log(`[TOOL: ${call.name}]`);
  }
  let results: ToolResult[];
  try {
    results = await tool.executeTogether!(
      ctx,
      group.map(({ args }) => ({ scope: toolScope(runId, scope, idempotencyKey(scope.cause, tool.name, args)), args })),
    );
  } catch (error) {
    results = group.map(() => ({ ok: false, problem: "failed", text: `${tool.name} failed: ${errorMessage(error)}` }));
  }
  const reports: Reported[] = [];
  for (const [i, { call }] of group.entries()) {
    reports.push(await report(ctx, runId, scope, { name: call.name, args: JSON.stringify(call.args ?? null) }, results[i], seen));
  }
  return reports;
}

/**
 * A resumed run's paused call, settled by what the person decided: the
 * approved call run exactly as stored (its policy already satisfied, its
 * permission checked again), a plan's steps delegated through delegate_task's
 * own executor, or the decision itself (a denial, an answer, feedback) as the
 * result. Returns the call's observation and its record (written with its result).
 */
export async function settlePause(
  ctx: ActionCtx,
  runId: Id<"runs">,
  paused: RunPause,
  resolution: Resolution,
  config: BrainConfig,
  seen: Set<string>,
  log: (line: string) => void,
): Promise<Reported> {
  const scope = await ctx.runQuery(internal.brain.context.agentForDispatch, { runId });
  log(`resume ${paused.call.name}: ${resolution.kind}`);
  switch (resolution.kind) {
    case "result": {
      const outcome = resolution.outcome;
      const problem = outcome === "denied" ? "denied" : outcome === "error" ? "failed" : "invalid";
      const result: ToolResult = outcome === "ok" ? { ok: true, text: resolution.text } : { ok: false, problem, text: resolution.text };
      return await report(ctx, runId, scope, paused.call, result, seen);
    }
    case "execute": {
      const tool = findTool(resolution.tool, scope.chatEnabled);
      const parsed = tool?.args.safeParse(JSON.parse(resolution.args));
      let result: ToolResult;
      if (tool === undefined || !scope.allowedTools.includes(tool.name)) {
        result = { ok: false, problem: "denied", text: `permission denied: ${scope.name} may no longer call ${resolution.tool}` };
      } else if (parsed === undefined || !parsed.success) {
        result = { ok: false, problem: "invalid", text: `${resolution.tool}: the approved arguments no longer fit the tool` };
      } else {
        result = await runTool(ctx, runId, scope, tool, parsed.data);
      }
      return await report(ctx, runId, scope, paused.call, result, seen);
    }
    case "delegate_plan": {
      const lines: string[] = [];
      for (const step of resolution.steps) {
        const { tool, args } = planStepCall(step);
        const current = await ctx.runQuery(internal.brain.context.agentForDispatch, { runId });
        const result: ToolResult =
          current.delegations >= config.maxDelegationsPerRun
            ? { ok: false, problem: "guard", text: `${tool.name}: refused, ${guards.perRun(config.maxDelegationsPerRun).reason}`, stop: guards.perRun(config.maxDelegationsPerRun) }
            : await runTool(ctx, runId, current, tool, args);
        lines.push((await reportNow(ctx, runId, current, { name: tool.name, args: canonicalJson(args) }, result, seen)).text);
      }
      const text = `the plan was approved by ${resolution.decidedBy}; its steps:\n${lines.join("\n")}\nThe plan is delegated: do not delegate these steps again.`;
      return await report(ctx, runId, scope, paused.call, { ok: true, text }, seen);
    }
  }
}
