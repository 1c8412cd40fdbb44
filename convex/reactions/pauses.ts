/**
 * A run pauses for a person — an approval of a tool call, an answer to a
 * question, a review of a plan — or for a tool run outside Maestro, and
 * resumes where it stopped once they respond (the tool's output arrives) or
 * the card expires. Pausing writes the card and its harness event
 * and sets the run `waiting`; responding writes a submit event and queues the
 * run again; the next attempt takes its resume point (the conversation so far
 * and what the person decided) and goes on from the paused call. A run that
 * ends while waiting (Stop) closes its card.
 */
import { internal } from "../_generated/api";
import { env, type MutationCtx } from "../_generated/server";
import type { Doc, Id } from "../_generated/dataModel";
import { actorName, memberActor } from "../lib/actors";
import { MaestroError } from "../lib/errors";
import { externalCallTimeoutMs } from "../lib/limits";
import {
  approvalResolution,
  externalCallTimeoutText,
  MAX_TOOL_OUTPUT_CHARS,
  pauseTtlMs,
  planResolution,
  questionResolution,
  toolCallId,
  toolOutputEventKey,
  toolOutputResolution,
  type PauseRequest,
  type Resolution,
  type ResumePoint,
} from "../lib/pauses";
import { boundedText, MAX_EVENT_TEXT_CHARS } from "../lib/runEvents";
import { cutObservation } from "../lib/toolCalls";
import { cleanText } from "../lib/validate";
import { sha256Hex } from "../lib/sha256";
import { UNTRUSTED_DATA_PREFIX_CHARS } from "../lib/untrusted";
import { idleIfUnoccupied } from "../records/agents";
import {
  CARD_TABLE,
  closeCard,
  decideApproval,
  decidePlan,
  decisionText,
  earlierCard,
  expireOverdueCards,
  insertApproval,
  insertPlan,
  insertQuestion,
  pausedCard,
  pendingCardX,
  rebindCard,
  type CardTable,
} from "../records/pauseCards";
import { appendRunEvent, eventWithClientMessageId, liveRun } from "../records/runEvents";
import { clearPause, markWaiting, recordPauseOutput } from "../records/runs";
import { redactForDepartment } from "../records/settings";
import type { RunPause, RunPauseKind, ToolOutput } from "../validators";
import { askInThread, releaseQuestion } from "./questions";
import { resumeIfPausedOn, resumeRun } from "./runQueue";

/** The paused call's place in the run: its conversation, index and the results around it. */
export type PauseState = Omit<RunPause, "kind" | "id" | "output">;

/**
 * The run's action reached a call that needs a person: writes the card and
 * its event and sets the run `waiting`. A question or plan that an earlier
 * call from the same cause already made (a retried run, a duplicate trigger)
 * is not asked again: the run waits on that card, and resumes at once with
 * its outcome when it was already settled. "aborted" when the run is no
 * longer this attempt's (then nothing is written).
 */
export async function pauseRun(ctx: MutationCtx, runId: Id<"runs">, attempt: number, request: PauseRequest, state: PauseState): Promise<"ok" | "aborted"> {
  const run = await liveRun(ctx, runId, attempt);
  if (run === null) return "aborted";
  const base = { departmentId: run.departmentId, runId, taskId: run.taskId, agentId: run.agentId, expiresAt: Date.now() + pauseTtlMs(env) };
  let id: string;
  /** Set when the run waits on an earlier card that is already settled: it resumes at once. */
  let settled: string | null = null;
  /** Set when the run waits for an outside executor: when the call times out. */
  let expiresAt: number | undefined;
  switch (request.kind) {
    case "approval": {
      const approvalId = await insertApproval(ctx, base, { toolCallId: toolCallId(runId, state.index), tool: request.tool, args: request.args, argsHash: sha256Hex(request.args) });
      await appendRunEvent(ctx, runId, { type: "approval_requested", approvalId, tool: request.tool, args: boundedText(request.args) });
      id = approvalId;
      break;
    }
    case "question":
    case "plan": {
      const table = CARD_TABLE[request.kind] as "questions" | "plans";
      const earlier = await earlierCard(ctx, table, request.key);
      if (earlier !== null) {
        id = earlier._id;
        if (earlier.status === "pending") await rebindCard(ctx, table, earlier._id, runId);
        else settled = `this ${request.kind === "question" ? "question was already asked" : "plan was already proposed"} for the same request (${earlier.status})`;
        break;
      }
      id = request.kind === "question" ? await askQuestion(ctx, run, base, request) : await proposePlan(ctx, runId, base, request);
      break;
    }
    case "tool_output": {
      // No card: the call's own `tool_call` event stands for it, and its id is what the output names.
      id = toolCallId(runId, state.index);
      // Bounded: nobody answering must not hold the run (and its agent's place on the task) for ever.
      const timeoutMs = externalCallTimeoutMs(env);
      expiresAt = Date.now() + timeoutMs;
      await ctx.scheduler.runAfter(timeoutMs, internal.sweeps.expiredExternalCall, { runId, toolCallId: id });
      break;
    }
  }
  await markWaiting(ctx, runId, { ...state, kind: request.kind, id }, expiresAt);
  if (settled !== null) {
    await resumeRun(ctx, run, { type: "control_submitted", action: "resume", by: "Maestro", note: settled });
    return "ok";
  }
  const agent = await ctx.db.get("agents", run.agentId);
  if (agent !== null) await idleIfUnoccupied(ctx, agent);
  return "ok";
}

type CardBase = Parameters<typeof insertQuestion>[1];

async function askQuestion(ctx: MutationCtx, run: Doc<"runs">, base: CardBase, request: Extract<PauseRequest, { kind: "question" }>): Promise<Id<"questions">> {
  const question = request.question.trim();
  const questionId = await insertQuestion(ctx, base, question, request.key);
  const agent = (await ctx.db.get("agents", run.agentId))!;
  const task = await ctx.db.get("tasks", run.taskId);
  if (task === null) throw new MaestroError("NOT_FOUND", "The task no longer exists.");
  await askInThread(ctx, agent, task, request.question, questionId);
  await appendRunEvent(ctx, run._id, { type: "question_asked", questionId, question: boundedText(question) });
  return questionId;
}

async function proposePlan(ctx: MutationCtx, runId: Id<"runs">, base: CardBase, request: Extract<PauseRequest, { kind: "plan" }>): Promise<Id<"plans">> {
  const planId = await insertPlan(ctx, base, { summary: request.summary, steps: request.steps }, request.key);
  await appendRunEvent(ctx, runId, { type: "plan_proposed", planId, steps: request.steps.map(({ title, assignee }) => ({ title, assignee })) });
  return planId;
}

/** The run, when it waits for exactly this card; a response changes nothing otherwise. */
async function waitingRunX(ctx: MutationCtx, runId: Id<"runs">, kind: RunPauseKind, id: string): Promise<Doc<"runs">> {
  const run = await ctx.db.get("runs", runId);
  if (run === null || run.status !== "waiting" || run.paused?.kind !== kind || run.paused.id !== id) {
    throw new MaestroError("CONFLICT", "The run no longer waits for this: it was stopped or has moved on.");
  }
  return run;
}

/**
 * A person's decision on a pending card of this task: the card (refused when
 * decided, withdrawn or expired), the run waiting on it, who decides, and
 * their words (cleaned, bounded, scanned). Nothing is written yet.
 */
async function decision<T extends "approvals" | "plans">(ctx: MutationCtx, member: Doc<"members">, task: Doc<"tasks">, table: T, id: Id<T>, field: string, words: string | undefined) {
  const card = await pendingCardX(ctx, table, id, task._id);
  const run = await waitingRunX(ctx, card.runId, table === "approvals" ? "approval" : "plan", id);
  return { card, run, by: actorName(memberActor(member)), said: await decisionText(ctx, task.departmentId, field, words) };
}

/**
 * The spec's `approval.respond`: a member approves or denies a pending
 * approval of this task; the run resumes. An approval already decided or past
 * its expiry is refused, and nothing changes.
 */
export async function respondToApproval(ctx: MutationCtx, member: Doc<"members">, task: Doc<"tasks">, approvalId: Id<"approvals">, approve: boolean, reason: string | undefined): Promise<void> {
  const { card, run, by, said } = await decision(ctx, member, task, "approvals", approvalId, "A reason", reason);
  await decideApproval(ctx, approvalId, approve, by, said);
  const note = `${approve ? "approved" : "denied"} ${card.tool}${said === undefined ? "" : `: ${said}`}`;
  await resumeRun(ctx, run, { type: "control_submitted", action: "resume", by, note });
}

/** The spec's `plan.respond`: a member approves a pending plan of this task, or rejects it with feedback; the lead's run resumes. */
export async function respondToPlan(ctx: MutationCtx, member: Doc<"members">, task: Doc<"tasks">, planId: Id<"plans">, approve: boolean, feedback: string | undefined): Promise<void> {
  const { card, run, by, said } = await decision(ctx, member, task, "plans", planId, "Feedback", feedback);
  await decidePlan(ctx, planId, approve, by, said);
  const steps = `${card.steps.length} step${card.steps.length === 1 ? "" : "s"}`;
  const note = approve ? `approved the plan (${steps})` : `rejected the plan${said === undefined ? "" : `: ${said}`}`;
  await resumeRun(ctx, run, { type: "control_submitted", action: "resume", by, note });
}

/**
 * The spec's `session.toolOutput`: the output (or the failure) of a call an
 * external tool ran, for the run waiting on exactly that call (`callId`,
 * lib/pauses toolCallId) of exactly that tool, once. The text is bounded,
 * secret-scanned and cut like any observation; then `tool_output_submitted`
 * and the run resumes with it as the call's result. Anything else (a run
 * that waits for something else, has moved on or already has its output; a
 * wrong call id or tool) is refused, and nothing changes.
 */
async function submitToolOutput(ctx: MutationCtx, run: Doc<"runs">, callId: string, tool: string, output: ToolOutput): Promise<void> {
  const paused = run.paused;
  const open = run.status === "waiting" && paused?.kind === "tool_output" && paused.output === undefined;
  if (!open || paused.id !== callId) await refuseIfExpired(ctx, run, callId);
  if (!open) {
    throw new MaestroError("CONFLICT", "This run is not waiting for a tool's output: it was stopped, has moved on, or the output was already submitted.");
  }
  if (paused.id !== callId) throw new MaestroError("NOT_FOUND", `This run is not waiting for call ${callId}.`);
  if (paused.call.name !== tool) throw new MaestroError("INVALID_ARGUMENT", `Call ${callId} is a call of ${paused.call.name}, not of ${tool}.`);
  const field = output.outcome === "ok" ? "The output" : "The error";
  const cleaned = cleanText(field, output.text, MAX_TOOL_OUTPUT_CHARS, { allowEmpty: output.outcome === "ok" });
  // Cut like any observation: JSON stays valid JSON, text keeps whole lines, and both say how much was left out;
  // room is left for the untrusted-data label the model reads it under (lib/untrusted).
  const text = cutObservation(await redactForDepartment(ctx, run.departmentId, field, cleaned), MAX_EVENT_TEXT_CHARS - UNTRUSTED_DATA_PREFIX_CHARS);
  await recordPauseOutput(ctx, run._id, { ...paused, output: { outcome: output.outcome, text } });
  const event = { type: "tool_output_submitted" as const, tool, toolCallId: callId, content: output.outcome === "ok" ? text : `failed: ${text}` };
  await resumeRun(ctx, run, event, toolOutputEventKey(callId));
}

/** A late output for a call that already timed out: refused, saying so (the run went on with the timeout as the call's error). */
async function refuseIfExpired(ctx: MutationCtx, run: Doc<"runs">, callId: string): Promise<void> {
  const answered = await eventWithClientMessageId(ctx, run._id, toolOutputEventKey(callId));
  if (answered?.payload.type === "tool_output_submitted" && answered.payload.expired === true) {
    const after = /timed out (after [^:]+):/.exec(answered.payload.content)?.[1];
    throw new MaestroError("CONFLICT", `Call ${callId} timed out${after === undefined ? "" : ` ${after}`} before its output arrived: the run went on with the timeout as the call's error, so a late output is refused.`);
  }
}

/**
 * The scheduled end of an external call's wait (scheduled when the run
 * paused on it): when the run still waits on exactly this call, past its
 * deadline, with no output in, the call's result is a timeout error, the
 * stream records it (`tool_output_submitted`, `expired`), and the run goes
 * on with it, its model reading the error. Anything else (answered,
 * stopped, moved on, a later deadline) is left alone. Whether it expired.
 */
export async function expireExternalCall(ctx: MutationCtx, runId: Id<"runs">, callId: string): Promise<boolean> {
  const run = await ctx.db.get("runs", runId);
  const paused = run?.paused;
  if (run === null || run.status !== "waiting" || paused?.kind !== "tool_output" || paused.id !== callId || paused.output !== undefined) return false;
  const since = run.externalCallSince;
  const deadline = run.externalCallExpiresAt;
  if (since === undefined || deadline === undefined || deadline > Date.now()) return false;
  const text = externalCallTimeoutText(deadline - since);
  await recordPauseOutput(ctx, runId, { ...paused, output: { outcome: "error", text } });
  const event = { type: "tool_output_submitted" as const, tool: paused.call.name, toolCallId: callId, content: `failed: ${text}`, expired: true };
  await resumeRun(ctx, run, event, toolOutputEventKey(callId));
  return true;
}

/** A `toolOutput` as any caller sends it: the run (its id as written), the call, and exactly one of output and error. */
export interface ToolOutputSubmission {
  runId: string;
  tool: string;
  toolCallId: string;
  output?: string;
  error?: string;
}

/**
 * `toolOutput` for any caller (a member in the app; an agent's API key over
 * HTTP and MCP): exactly one of output and error, a run that exists,
 * `mayAnswer` (which throws for a caller who may not answer for the run),
 * then submitToolOutput. Every refusal comes before anything is written.
 */
export async function submitToolOutputAs(ctx: MutationCtx, submission: ToolOutputSubmission, mayAnswer: (run: Doc<"runs">) => Promise<void>): Promise<void> {
  const { tool, toolCallId, output, error } = submission;
  const runId = ctx.db.normalizeId("runs", submission.runId.trim());
  const run = runId === null ? null : await ctx.db.get("runs", runId);
  if (run === null) throw new MaestroError("NOT_FOUND", "Run not found.");
  // Who may answer first: a caller with no say learns nothing from the argument checks.
  await mayAnswer(run);
  if ((output === undefined) === (error === undefined)) throw new MaestroError("INVALID_ARGUMENT", "Give the tool's output or its error, not both or neither.");
  await submitToolOutput(ctx, run, toolCallId, tool, output === undefined ? { outcome: "error", text: error ?? "" } : { outcome: "ok", text: output });
}

/** What the run reads when a card of each kind expires. */
const EXPIRED_NOTE: Record<CardTable, (card: Doc<CardTable>) => string> = {
  approvals: (card) => `the approval of ${(card as Doc<"approvals">).tool} expired`,
  questions: () => "the question expired: nobody answered in time",
  plans: () => "the plan expired: nobody decided in time",
};

/**
 * The sweeper's part: cards of one kind nobody decided before their expiry
 * expire (an approval counts as denied, a question as unanswered, a plan as
 * rejected), a question stops blocking its task, and their runs go on.
 */
export async function expireOverdue(ctx: MutationCtx, table: CardTable): Promise<number> {
  const overdue = await expireOverdueCards(ctx, table);
  for (const card of overdue) {
    if (table === "questions") await releaseQuestion(ctx, card, card._id as Id<"questions">);
    await resumeIfPausedOn(ctx, card.runId, card._id, { type: "control_submitted", action: "resume", by: "Maestro", note: EXPIRED_NOTE[table](card) });
  }
  return overdue.length;
}

/**
 * A waiting run ends without a response (a person pressed Stop): its open
 * card is closed, and a question no longer blocks the task.
 */
export async function closePause(ctx: MutationCtx, run: Doc<"runs">, why: string): Promise<void> {
  const paused = run.paused;
  if (paused === undefined) return;
  // An external tool's call has no card: the run's end is all there is to close.
  if (paused.kind !== "tool_output") await closeCard(ctx, CARD_TABLE[paused.kind], paused.id, why);
  if (paused.kind === "question") await releaseQuestion(ctx, run, paused.id as Id<"questions">);
  await clearPause(ctx, run._id);
}

/**
 * The next attempt of a resumed run takes where it paused and what the
 * person decided (once: the pause is cleared). Null for a run that did not
 * pause, or when the run is no longer this attempt's.
 */
export async function takeResumePoint(ctx: MutationCtx, runId: Id<"runs">, attempt: number): Promise<ResumePoint | null> {
  const run = await liveRun(ctx, runId, attempt);
  if (run === null || run.paused === undefined) return null;
  const paused = run.paused;
  let resolution: Resolution;
  switch (paused.kind) {
    case "approval":
      resolution = approvalResolution(runId, paused, await pausedCard(ctx, "approvals", paused.id));
      break;
    case "question":
      resolution = questionResolution(await pausedCard(ctx, "questions", paused.id));
      break;
    case "plan":
      resolution = planResolution(await pausedCard(ctx, "plans", paused.id));
      break;
    case "tool_output":
      resolution = toolOutputResolution(paused);
      break;
  }
  await clearPause(ctx, runId);
  return { pause: paused, resolution };
}
