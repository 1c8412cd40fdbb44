/**
 * A run pauses for a person — an approval of a tool call, an answer to a
 * question, a review of a plan — and resumes where it stopped once they
 * respond. Pausing writes the card's row and its harness event and sets the
 * run `waiting` (no lease: the sweeper leaves it alone); responding writes a
 * submit event and queues the run again; the next attempt takes its
 * `resumePoint` (the conversation so far and what the person decided) and
 * goes on from the paused call. Approvals, questions and plans each keep
 * their own module (convex/approvals.ts, questions.ts, plans.ts).
 */
import { v, type Infer } from "convex/values";
import { internal } from "./_generated/api";
import type { Doc, Id } from "./_generated/dataModel";
import { env, internalMutation, type MutationCtx } from "./_generated/server";
import { agentActor } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import type { SubmitEvent } from "./lib/runEvents";
import { boundedText } from "./lib/runEvents";
import { sha256Hex } from "./lib/sha256";
import { vResumePoint, type Resolution, type ResumePoint } from "./lib/resumePoint";
import { appendRunEvent, liveRun } from "./runEvents";
import { idleIfUnoccupied } from "./runs";
import { moveTask } from "./tasks";
import { askInThread } from "./tools/thread";
import { vPlanStep, vRunPause, type PauseKind, type RunPause } from "./validators";

/**
 * How long a card waits for a person before it expires: an approval then
 * counts as denied, a question as unanswered, a plan as rejected, and the run
 * goes on with that as the call's result. MAESTRO_APPROVAL_TTL_MS overrides
 * it for all three.
 */
export const DEFAULT_PAUSE_TTL_MS = 24 * 60 * 60 * 1000;

export function pauseTtlMs(source: Record<string, string | undefined>): number {
  const value = Number(source.MAESTRO_APPROVAL_TTL_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_PAUSE_TTL_MS;
}

/** Overdue cards of one kind one sweep expires (the next sweep takes the rest). */
export const EXPIRE_BATCH = 50;

/** What the model reads when nobody answered its question in time. */
export const QUESTION_EXPIRED = "ask_question: nobody answered in time (the question expired). Go on without the answer, or say in the thread what you still need.";

/** What the lead reads when nobody decided on its plan in time. */
export const PLAN_EXPIRED = "propose_plan: the plan expired: nobody approved it in time, so nothing was delegated. Do not delegate its steps without an approved plan; propose it again if it is still needed.";

/** Earlier question or plan cards one key is looked up in (a key's cards are few: one, plus those of stopped runs). */
const MAX_CARDS_PER_KEY = 20;

/** The id an approval gives the call it is for: its run and the call's `tool_call` index. */
export function toolCallId(runId: Id<"runs">, index: number): string {
  return `${runId}:${index}`;
}

/** What the paused call asks of a person. Approval arguments are canonical JSON (tools/idempotency). */
export const vPauseRequest = v.union(
  v.object({ kind: v.literal("approval"), tool: v.string(), args: v.string() }),
  /** `key`: the call's idempotency key; the same question from the same cause waits on the first card. */
  v.object({ kind: v.literal("question"), question: v.string(), key: v.optional(v.string()) }),
  v.object({ kind: v.literal("plan"), summary: v.string(), steps: v.array(vPlanStep), key: v.optional(v.string()) }),
);
export type PauseRequest = Infer<typeof vPauseRequest>;

const vPauseState = vRunPause.omit("kind", "id");

/**
 * The card an earlier call with the same idempotency key made, unless it was
 * withdrawn (its run was stopped: asking again is then a new question).
 */
async function earlierCard<Table extends "questions" | "plans">(ctx: MutationCtx, table: Table, key: string | undefined): Promise<Doc<Table> | null> {
  if (key === undefined) return null;
  const rows: Array<Doc<"questions"> | Doc<"plans">> = await ctx.db
    .query(table as "questions")
    .withIndex("by_key", (q) => q.eq("key", key))
    .order("desc")
    .take(MAX_CARDS_PER_KEY);
  return (rows.find((row) => row.status !== "cancelled") as Doc<Table> | undefined) ?? null;
}

/**
 * The run action reached a call that needs a person: writes the card's row
 * and event and sets the run `waiting`. A question or plan that an earlier
 * call from the same cause already made (a retried run, a duplicate trigger)
 * is not asked again: the run waits on that card, and resumes at once with
 * its outcome when it was already settled. "aborted" when the run is no
 * longer this attempt's (then nothing is written).
 */
export const pause = internalMutation({
  args: { runId: v.id("runs"), attempt: v.number(), request: vPauseRequest, state: vPauseState },
  returns: v.union(v.literal("ok"), v.literal("aborted")),
  handler: async (ctx, { runId, attempt, request, state }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    const base = { departmentId: run.departmentId, runId, taskId: run.taskId, agentId: run.agentId };
    const expiresAt = Date.now() + pauseTtlMs(env);
    let id: string;
    /** Set when the run waits on an earlier card that is already settled: it resumes at once. */
    let settled: string | null = null;
    switch (request.kind) {
      case "approval": {
        const approvalId = await ctx.db.insert("approvals", {
          ...base,
          toolCallId: toolCallId(runId, state.index),
          tool: request.tool,
          args: request.args,
          argsHash: sha256Hex(request.args),
          status: "pending",
          expiresAt,
        });
        await appendRunEvent(ctx, runId, { type: "approval_requested", approvalId, tool: request.tool, args: boundedText(request.args) });
        id = approvalId;
        break;
      }
      case "question": {
        const earlier = await earlierCard(ctx, "questions", request.key);
        if (earlier !== null) {
          id = earlier._id;
          if (earlier.status === "pending") await ctx.db.patch("questions", earlier._id, { runId });
          else settled = `this question was already asked for the same request (${earlier.status})`;
          break;
        }
        const key = request.key === undefined ? {} : { key: request.key };
        const questionId = await ctx.db.insert("questions", { ...base, question: request.question.trim(), status: "pending", expiresAt, ...key });
        const agent = (await ctx.db.get("agents", run.agentId))!;
        const task = await ctx.db.get("tasks", run.taskId);
        if (task === null) throw new MaestroError("NOT_FOUND", "The task no longer exists.");
        await askInThread(ctx, agent, task, request.question, questionId);
        await appendRunEvent(ctx, runId, { type: "question_asked", questionId, question: boundedText(request.question.trim()) });
        id = questionId;
        break;
      }
      case "plan": {
        const earlier = await earlierCard(ctx, "plans", request.key);
        if (earlier !== null) {
          id = earlier._id;
          if (earlier.status === "pending") await ctx.db.patch("plans", earlier._id, { runId });
          else settled = `this plan was already proposed for the same request (${earlier.status})`;
          break;
        }
        const key = request.key === undefined ? {} : { key: request.key };
        const planId = await ctx.db.insert("plans", { ...base, summary: request.summary, steps: request.steps, status: "pending", expiresAt, ...key });
        await appendRunEvent(ctx, runId, {
          type: "plan_proposed",
          planId,
          steps: request.steps.map(({ title, assignee }) => ({ title, assignee })),
        });
        id = planId;
        break;
      }
    }
    const now = Date.now();
    await ctx.db.patch("runs", runId, { status: "waiting", paused: { ...state, kind: request.kind, id }, leaseExpiresAt: undefined, lastActiveAt: now });
    if (settled !== null) {
      await resumeRun(ctx, run, { type: "control_submitted", action: "resume", by: "Maestro", note: settled });
      return "ok";
    }
    const agent = await ctx.db.get("agents", run.agentId);
    if (agent !== null) await idleIfUnoccupied(ctx, agent);
    return "ok";
  },
});

/** The run, when it waits for exactly this card; a respond mutation changes nothing otherwise. */
export async function waitingRunX(ctx: MutationCtx, runId: Id<"runs">, kind: PauseKind, id: string): Promise<Doc<"runs">> {
  const run = await ctx.db.get("runs", runId);
  if (run === null || run.status !== "waiting" || run.paused?.kind !== kind || run.paused.id !== id) {
    throw new MaestroError("CONFLICT", "The run no longer waits for this: it was stopped or has moved on.");
  }
  return run;
}

/** A person responded: the submit event first, then the run is queued to go on from its pause. */
export async function resumeRun(ctx: MutationCtx, run: Doc<"runs">, event: SubmitEvent) {
  await appendRunEvent(ctx, run._id, event);
  await ctx.db.patch("runs", run._id, { status: "queued", lastActiveAt: Date.now() });
  const agent = await ctx.db.get("agents", run.agentId);
  if (agent !== null && agent.status === "idle") await ctx.db.patch("agents", agent._id, { status: "active" });
  await ctx.scheduler.runAfter(0, internal.brain.run.execute, { runId: run._id });
}

/**
 * Resumes the run with `event` if it still waits on card `cardId`; a run
 * that was stopped or has moved on is left alone (the card's own change stands).
 */
export async function resumeIfPausedOn(ctx: MutationCtx, runId: Id<"runs">, cardId: string, event: SubmitEvent) {
  const run = await ctx.db.get("runs", runId);
  if (run?.status === "waiting" && run.paused?.id === cardId) await resumeRun(ctx, run, event);
}

/**
 * A waiting run ends without a response (a person pressed Stop): its open
 * card is closed, and a question no longer blocks the task.
 */
export async function closePause(ctx: MutationCtx, run: Doc<"runs">, why: string) {
  const paused = run.paused;
  if (paused === undefined) return;
  const now = Date.now();
  switch (paused.kind) {
    case "approval": {
      const approval = await ctx.db.get("approvals", paused.id as Id<"approvals">);
      if (approval?.status === "pending") await ctx.db.patch("approvals", approval._id, { status: "expired", reason: why, decidedAt: now });
      break;
    }
    case "question": {
      const question = await ctx.db.get("questions", paused.id as Id<"questions">);
      if (question?.status === "pending") await ctx.db.patch("questions", question._id, { status: "cancelled" });
      await releaseQuestion(ctx, run, paused.id as Id<"questions">);
      break;
    }
    case "plan": {
      const plan = await ctx.db.get("plans", paused.id as Id<"plans">);
      if (plan?.status === "pending") await ctx.db.patch("plans", plan._id, { status: "cancelled", decidedAt: now });
      break;
    }
  }
  await ctx.db.patch("runs", run._id, { paused: undefined });
}

/**
 * A question that will get no answer (its run was stopped, or it expired) no
 * longer blocks its task: the task goes back to where it was, moved by the
 * agent that asked.
 */
export async function releaseQuestion(ctx: MutationCtx, run: Pick<Doc<"runs">, "taskId" | "agentId">, questionId: Id<"questions">) {
  const task = await ctx.db.get("tasks", run.taskId);
  if (task?.pendingQuestion?.questionId !== questionId) return;
  await ctx.db.patch("tasks", task._id, { pendingQuestion: undefined });
  const agent = await ctx.db.get("agents", run.agentId);
  if (task.status === "blocked" && agent !== null) await moveTask(ctx, agentActor(agent), task, task.pendingQuestion.previousStatus);
}

export type { Resolution } from "./lib/resumePoint";

/** Why an approved call is not run: it is not the call that was approved. */
export const HASH_MISMATCH = "not run: the approved arguments do not match the stored call (argument hash mismatch)";

/** What became of a paused approval, from its row. Pure. */
export function approvalResolution(runId: Id<"runs">, paused: Pick<RunPause, "index" | "call">, approval: Doc<"approvals">): Resolution {
  switch (approval.status) {
    case "approved": {
      const intact = sha256Hex(approval.args) === approval.argsHash && approval.toolCallId === toolCallId(runId, paused.index) && approval.tool === paused.call.name;
      return intact ? { kind: "execute", tool: approval.tool, args: approval.args } : { kind: "result", outcome: "refused", text: `${approval.tool}: ${HASH_MISMATCH}` };
    }
    case "denied":
      return { kind: "result", outcome: "denied", text: `${approval.tool}: denied by ${approval.decidedBy ?? "a person"}${approval.reason ? `: ${approval.reason}` : ""}` };
    case "expired":
      return { kind: "result", outcome: "denied", text: `${approval.tool}: denied: ${approval.reason ?? "expired"} (no one approved it in time)` };
    case "pending":
      throw new Error(`Approval ${approval._id} is still pending`);
  }
}

/**
 * The next attempt of a resumed run takes where it paused and what the
 * person decided (once: the pause is cleared). Null for a run that did not
 * pause, or when the run is no longer this attempt's.
 */
export const resumePoint = internalMutation({
  args: { runId: v.id("runs"), attempt: v.number() },
  returns: v.union(v.null(), vResumePoint),
  handler: async (ctx, { runId, attempt }) => await takeResumePoint(ctx, runId, attempt),
});

/** What `resumePoint` answers, for a mutation that starts the run in the same transaction. */
export async function takeResumePoint(ctx: MutationCtx, runId: Id<"runs">, attempt: number): Promise<ResumePoint | null> {
  const run = await liveRun(ctx, runId, attempt);
  if (run === null || run.paused === undefined) return null;
  const paused = run.paused;
  let resolution: Resolution;
  switch (paused.kind) {
    case "approval": {
      const approval = (await ctx.db.get("approvals", paused.id as Id<"approvals">))!;
      resolution = approvalResolution(runId, paused, approval);
      break;
    }
    case "question": {
      const question = (await ctx.db.get("questions", paused.id as Id<"questions">))!;
      resolution =
        question.status === "expired"
          ? { kind: "result", outcome: "ok", text: QUESTION_EXPIRED }
          : { kind: "result", outcome: "ok", text: `${question.answeredBy ?? "A person"} answered: ${question.answer ?? ""}` };
      break;
    }
    case "plan": {
      const plan = (await ctx.db.get("plans", paused.id as Id<"plans">))!;
      resolution =
        plan.status === "approved"
          ? { kind: "delegate_plan", decidedBy: plan.decidedBy ?? "a person", steps: plan.steps }
          : plan.status === "expired"
            ? { kind: "result", outcome: "denied", text: PLAN_EXPIRED }
            : {
                kind: "result",
                outcome: "denied",
                text: `propose_plan: the plan was rejected by ${plan.decidedBy ?? "a person"}${plan.feedback ? `: ${plan.feedback}` : ""}. Revise it and propose it again with propose_plan, or say why not.`,
              };
      break;
    }
  }
  await ctx.db.patch("runs", runId, { paused: undefined });
  return { pause: paused, resolution };
}
