/**
 * Pausing a run for a person, as plain rules: what a paused call asks
 * (`PauseRequest`), how long a card waits, and what became of the call once
 * the person responded or the card expired (`Resolution`), from the card's
 * row alone. The writes are reactions/pauses.ts.
 */
import { v, type Infer } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import { timeoutWords } from "./limits";
import { sha256Hex } from "./sha256";
import { vPlanStep, vRunPause, type RunPause, type ToolOutput } from "../validators";

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

/** Longest reason or feedback a person may give on a card. */
export const MAX_REASON_CHARS = 1000;

/** What the model reads when nobody answered its question in time. */
export const QUESTION_EXPIRED = "ask_question: nobody answered in time (the question expired). Go on without the answer, or say in the thread what you still need.";

/** What the lead reads when nobody decided on its plan in time. */
export const PLAN_EXPIRED = "propose_plan: the plan expired: nobody approved it in time, so nothing was delegated. Do not delegate its steps without an approved plan; propose it again if it is still needed.";

/** Why an approved call is not run: it is not the call that was approved. */
export const HASH_MISMATCH = "not run: the approved arguments do not match the stored call (argument hash mismatch)";

/** The id an approval gives the call it is for: its run and the call's `tool_call` index. */
export function toolCallId(runId: Id<"runs">, index: number): string {
  return `${runId}:${index}`;
}

/** What the paused call asks of a person. Approval arguments are canonical JSON (lib/idempotency). */
export const vPauseRequest = v.union(
  v.object({ kind: v.literal("approval"), tool: v.string(), args: v.string() }),
  /** `key`: the call's idempotency key; the same question from the same cause waits on the first card. */
  v.object({ kind: v.literal("question"), question: v.string(), key: v.optional(v.string()) }),
  v.object({ kind: v.literal("plan"), summary: v.string(), steps: v.array(vPlanStep), key: v.optional(v.string()) }),
  /** A tool that runs outside Maestro: the run waits for its output (runs.toolOutput). `args`: canonical JSON. */
  v.object({ kind: v.literal("tool_output"), tool: v.string(), args: v.string() }),
);
export type PauseRequest = Infer<typeof vPauseRequest>;

export const vResolution = v.union(
  /** Approved, and the stored call is intact: run exactly it. */
  v.object({ kind: v.literal("execute"), tool: v.string(), args: v.string() }),
  /** What the paused call's result is, without running anything. */
  v.object({ kind: v.literal("result"), outcome: v.union(v.literal("ok"), v.literal("error"), v.literal("denied"), v.literal("refused")), text: v.string() }),
  /** An approved plan: its steps are delegated as proposed. */
  v.object({ kind: v.literal("delegate_plan"), decidedBy: v.string(), steps: v.array(vPlanStep) }),
);
export type Resolution = Infer<typeof vResolution>;

/** Where a run that paused for a person goes on: the paused call and what the person decided. */
export const vResumePoint = v.object({ pause: vRunPause, resolution: vResolution });
export type ResumePoint = Infer<typeof vResumePoint>;

/** What became of a paused approval, from its row. */
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

/** What became of a paused question: the answer, or that nobody answered in time. */
export function questionResolution(question: Doc<"questions">): Resolution {
  return question.status === "expired"
    ? { kind: "result", outcome: "ok", text: QUESTION_EXPIRED }
    : { kind: "result", outcome: "ok", text: `${question.answeredBy ?? "A person"} answered: ${question.answer ?? ""}` };
}

/** What became of a paused plan: its steps to delegate, or why nothing is delegated. */
export function planResolution(plan: Doc<"plans">): Resolution {
  if (plan.status === "approved") return { kind: "delegate_plan", decidedBy: plan.decidedBy ?? "a person", steps: plan.steps };
  if (plan.status === "expired") return { kind: "result", outcome: "denied", text: PLAN_EXPIRED };
  return {
    kind: "result",
    outcome: "denied",
    text: `propose_plan: the plan was rejected by ${plan.decidedBy ?? "a person"}${plan.feedback ? `: ${plan.feedback}` : ""}. Revise it and propose it again with propose_plan, or say why not.`,
  };
}

/** Longest output an external tool may submit; what the run keeps of it is bounded like any observation (lib/runEvents boundedText). */
export const MAX_TOOL_OUTPUT_CHARS = 100_000;

/** What became of a call an external tool ran: the output (or the failure) it submitted. */
export function toolOutputResolution(paused: Pick<RunPause, "call" | "output">): Resolution {
  const output: ToolOutput | undefined = paused.output;
  if (output === undefined) throw new Error(`The external call ${paused.call.name} has no output yet`);
  return output.outcome === "ok" ? { kind: "result", outcome: "ok", text: output.text } : { kind: "result", outcome: "error", text: `${paused.call.name} failed: ${output.text}` };
}

/**
 * The `clientMessageId` of the one `tool_output_submitted` event an external
 * call gets (its output, its error, or its timeout), so the stream tells
 * later whether and how the call was answered.
 */
export function toolOutputEventKey(callId: string): string {
  return `tool_output:${callId}`;
}

/** What the run (and its model) reads when no outside executor handed back the call's output in time. */
export function externalCallTimeoutText(timeoutMs: number): string {
  return `timed out after ${timeoutWords(timeoutMs)}: no outside executor handed back its output. Go on without it, or say what you still need.`;
}
