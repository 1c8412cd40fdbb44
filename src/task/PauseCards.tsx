import { useMutation, useQuery } from "convex/react";
import type { FunctionArgs, FunctionReference, FunctionReturnType } from "convex/server";
import { useState, type ReactNode } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Badge, BADGE_TONES } from "../components/ui/Badge";
import { Button } from "../components/ui/Button";
import { userMessage } from "../lib/errors";
import { canWrite, useRole } from "../shell/role";
import { formatRelativeTime } from "../lib/relativeTime";
import { onSubmitted } from "../components/ui/Field";
import { argumentLines, callAsk } from "../../convex/lib/toolCallWords";

export type ApprovalCardView = FunctionReturnType<typeof api.approvals.listForTask>[number];
export type QuestionCardView = FunctionReturnType<typeof api.questions.listForTask>[number];
export type PlanCardView = FunctionReturnType<typeof api.plans.listForTask>[number];

/** How a card's state reads. `className` colours the badge. */
const STATE: Record<string, { label: string; className: string }> = {
  pending: { label: "Waiting for you", className: BADGE_TONES.attention },
  approved: { label: "Approved", className: BADGE_TONES.success },
  answered: { label: "Answered", className: BADGE_TONES.success },
  denied: { label: "Denied", className: BADGE_TONES.failure },
  rejected: { label: "Rejected", className: BADGE_TONES.failure },
  expired: { label: "Expired", className: BADGE_TONES.ended },
  cancelled: { label: "Withdrawn", className: BADGE_TONES.ended },
};

/** A pending card as a viewer, who cannot decide it, reads it. */
const VIEWER_PENDING = { label: "Waiting for a member", className: BADGE_TONES.attention };

/**
 * A call's arguments as people read them: one "key: value" line each, the
 * tool's telling ones first (lib/toolCallWords), wrapped within the card;
 * arguments that are not a JSON object show as they are.
 */
export function ArgumentList({ tool, args }: { tool: string; args: string }) {
  const lines = argumentLines(tool, args);
  const frame = "max-h-48 overflow-y-auto rounded-lg bg-white p-2 text-xs text-slate-700 ring-1 ring-slate-200 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-700";
  if (lines === null || lines.length === 0) {
    return (
      <p tabIndex={0} aria-label="Arguments" data-testid="approval-args" className={`${frame} font-mono break-words whitespace-pre-wrap`}>
        {lines === null ? args : "(no arguments)"}
      </p>
    );
  }
  return (
    <dl tabIndex={0} aria-label="Arguments" data-testid="approval-args" className={`${frame} flex flex-col gap-1`}>
      {lines.map(({ key, value }) => (
        <div key={key} data-testid="approval-arg" className="min-w-0 break-words [overflow-wrap:anywhere] whitespace-pre-wrap">
          <dt className="inline font-medium text-slate-500 dark:text-slate-400">{key}: </dt>
          <dd className="inline">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** "expires in 23 h", "expired": a card's deadline in words. */
export function expiryText(expiresAt: number, now: number): string {
  const left = expiresAt - now;
  if (left <= 0) return "expired";
  const minutes = Math.ceil(left / 60_000);
  return minutes < 60 ? `expires in ${minutes} min` : `expires in ${Math.round(minutes / 60)} h`;
}

/**
 * The state a card shows: a pending card past its expiry already reads
 * "Expired" (and takes no response), before the server's sweeper marks it.
 */
export function shownState(card: { status: string; expiresAt?: number }, now: number): string {
  return card.status === "pending" && card.expiresAt !== undefined && card.expiresAt <= now ? "expired" : card.status;
}

/** A card's response (its `respond` mutation), with its pending state and a readable error; `send`'s `then` runs once it went through. */
function useResponse<Mutation extends FunctionReference<"mutation">>(mutation: Mutation) {
  // Typed by the caller's mutation: its arguments are exactly what `send` takes.
  const respond = useMutation(mutation) as (args: FunctionArgs<Mutation>) => Promise<unknown>;
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = (args: FunctionArgs<Mutation>, then?: () => void) => {
    setPending(true);
    setError(null);
    respond(args)
      .then(then, (e: unknown) => setError(userMessage(e)))
      .finally(() => setPending(false));
  };
  return { pending, error, send };
}

type CardProps = { label: string; title: ReactNode; state: string; testId: string; children: ReactNode; error: string | null };

/** A card's frame: its title and state badge, what the card shows, then its last response's failure. */
function Card({ label, title, state, children, testId, error }: CardProps) {
  // A viewer cannot decide: the card waits for the members, not for her.
  const writable = canWrite(useRole());
  const badge = state === "pending" && !writable ? VIEWER_PENDING : (STATE[state] ?? STATE.pending);
  return (
    <li aria-label={label} data-testid={testId} data-state={state} className="flex flex-col gap-2 rounded-xl border border-amber-200 bg-amber-50/40 p-3 dark:border-amber-700/50 dark:bg-slate-800">
      <div className="flex flex-wrap items-center gap-2">
        <p className="min-w-0 flex-1 text-sm font-medium text-slate-800 dark:text-slate-100">{title}</p>
        <Badge className={badge.className}>{badge.label}</Badge>
      </div>
      {children}
      {error !== null && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-300">
          {error}
        </p>
      )}
    </li>
  );
}

/** Who decided and when, on a decided card. */
function Decided({ by, at, words, now }: { by?: string; at?: number; words?: string; now: number }) {
  if (by === undefined && words === undefined) return null;
  return (
    <p className="text-xs text-slate-600 dark:text-slate-300">
      {by !== undefined && <>by {by}</>}
      {at !== undefined && <> · {formatRelativeTime(at, now)}</>}
      {words !== undefined && <> — “{words}”</>}
    </p>
  );
}

/** The words of a card's decision: the optional note's label (also its placeholder), the approve and the reject button. */
type DecisionWords = { note: string; approve: string; reject: string };

const APPROVAL_WORDS: DecisionWords = { note: "Reason (optional)", approve: "Approve", reject: "Deny" };
const PLAN_WORDS: DecisionWords = { note: "Feedback (for a rejection)", approve: "Approve plan", reject: "Reject" };

type DecisionProps = { words: DecisionWords; note: string; onNote: (note: string) => void; onDecide: (approve: boolean) => void; pending: boolean };

/** A card's decision: an optional note and the approve and reject buttons. */
function DecisionRow({ words, note, onNote, onDecide, pending }: DecisionProps) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <input
        aria-label={words.note}
        placeholder={words.note}
        value={note}
        onChange={(e) => onNote(e.target.value)}
        className="min-w-0 flex-1 rounded-lg border border-slate-300 px-2 py-1 text-xs dark:border-slate-600 dark:bg-slate-900"
      />
      <Button onClick={() => onDecide(true)} disabled={pending} className="px-2 py-1 text-xs">
        {words.approve}
      </Button>
      <Button variant="secondary" onClick={() => onDecide(false)} disabled={pending} className="px-2 py-1 text-xs">
        {words.reject}
      </Button>
    </div>
  );
}

/** An agent's tool call waiting for a person: agent, tool, arguments, expiry; Approve, or Deny with an optional reason. */
export function ApprovalCard({ card, writable, now }: { card: ApprovalCardView; writable: boolean; now: number }) {
  const response = useResponse(api.approvals.respond);
  const [reason, setReason] = useState("");
  const state = shownState(card, now);
  const open = state === "pending";
  const decide = (decision: "approve" | "deny") => response.send({ taskId: card.taskId, approvalId: card._id, decision, ...(reason.trim() === "" ? {} : { reason }) });
  return (
    <Card
      label={`Approval: ${card.agentName} wants to call ${card.tool}`}
      testId="approval-card"
      state={state}
      error={response.error}
      title={
        <>
          <span className="block break-words [overflow-wrap:anywhere]">
            {card.agentName} asks to {callAsk(card.tool, card.args)}
          </span>
          <span className="block text-xs font-normal text-slate-500 dark:text-slate-400">
            Tool: <code className="font-mono">{card.tool}</code>
          </span>
        </>
      }
    >
      <ArgumentList tool={card.tool} args={card.args} />
      {open ? (
        <>
          <p className="text-xs text-slate-500 dark:text-slate-400">{expiryText(card.expiresAt, now)}</p>
          {writable && <DecisionRow words={APPROVAL_WORDS} note={reason} onNote={setReason} onDecide={(approve) => decide(approve ? "approve" : "deny")} pending={response.pending} />}
        </>
      ) : (
        <Decided by={card.decidedBy} at={card.decidedAt} words={card.reason} now={now} />
      )}
    </Card>
  );
}

/** An agent's question: answer it here (or reply in the thread). */
export function QuestionCard({ card, writable, now }: { card: QuestionCardView; writable: boolean; now: number }) {
  const response = useResponse(api.questions.respond);
  const [answer, setAnswer] = useState("");
  const onSubmit = () => {
    if (answer.trim() === "") return;
    response.send({ taskId: card.taskId, questionId: card._id, answer }, () => setAnswer(""));
  };
  const state = shownState(card, now);
  return (
    <Card label={`Question from ${card.agentName}`} testId="question-card" state={state} title={`${card.agentName} asks: ${card.question}`} error={response.error}>
      {state === "pending" ? (
        <>
          {card.expiresAt !== undefined && <p className="text-xs text-slate-500 dark:text-slate-400">{expiryText(card.expiresAt, now)}</p>}
          {writable && (
            <form onSubmit={onSubmitted(onSubmit)} className="flex items-center gap-2">
              <input
                aria-label="Your answer"
                placeholder="Your answer (or reply in the thread)"
                value={answer}
                onChange={(e) => setAnswer(e.target.value)}
                className="min-w-0 flex-1 rounded-lg border border-slate-300 px-2 py-1 text-xs dark:border-slate-600 dark:bg-slate-900"
              />
              <Button type="submit" disabled={response.pending || answer.trim() === ""} className="px-2 py-1 text-xs">
                Answer
              </Button>
            </form>
          )}
        </>
      ) : state === "expired" ? (
        <p className="text-xs text-slate-600 dark:text-slate-300">expired: nobody answered in time, so {card.agentName} went on without an answer</p>
      ) : (
        <Decided by={card.answeredBy} at={card.answeredAt} words={card.answer} now={now} />
      )}
    </Card>
  );
}

/** A lead's plan: its steps with assignees; Approve (the steps are delegated as shown), or Reject with feedback. */
export function PlanCard({ card, writable, now }: { card: PlanCardView; writable: boolean; now: number }) {
  const response = useResponse(api.plans.respond);
  const [feedback, setFeedback] = useState("");
  const decide = (choice: "approve" | "reject") => response.send({ taskId: card.taskId, planId: card._id, action: choice, ...(feedback.trim() === "" ? {} : { feedback }) });
  const state = shownState(card, now);
  return (
    <Card label={`Plan from ${card.agentName}`} testId="plan-card" state={state} title={`${card.agentName}'s plan: ${card.summary}`} error={response.error}>
      <ol className="flex list-decimal flex-col gap-1 pl-5 text-xs text-slate-700 dark:text-slate-200">
        {card.steps.map((step, i) => (
          <li key={i}>
            <span className="font-medium">{step.title}</span> → {step.assignee}
            {step.priority !== undefined && step.priority !== "medium" && <span className="text-slate-500 dark:text-slate-400"> ({step.priority})</span>}
            {step.description !== undefined && step.description !== "" && <p className="text-slate-500 dark:text-slate-400">{step.description}</p>}
          </li>
        ))}
      </ol>
      {state === "pending" ? (
        <>
          {card.expiresAt !== undefined && <p className="text-xs text-slate-500 dark:text-slate-400">{expiryText(card.expiresAt, now)}</p>}
          {writable && <DecisionRow words={PLAN_WORDS} note={feedback} onNote={setFeedback} onDecide={(approve) => decide(approve ? "approve" : "reject")} pending={response.pending} />}
        </>
      ) : state === "expired" ? (
        <p className="text-xs text-slate-600 dark:text-slate-300">expired: nobody decided in time, so nothing was delegated</p>
      ) : (
        <Decided by={card.decidedBy} at={card.decidedAt} words={card.feedback} now={now} />
      )}
    </Card>
  );
}

type AnyCard = { kind: "approval"; card: ApprovalCardView } | { kind: "question"; card: QuestionCardView } | { kind: "plan"; card: PlanCardView };

/** All cards, oldest first; only `runId`'s when given (the run view). */
export function mergeCards(approvals: ApprovalCardView[], questions: QuestionCardView[], plans: PlanCardView[], runId?: Id<"runs">): AnyCard[] {
  const all: AnyCard[] = [
    ...approvals.map((card) => ({ kind: "approval" as const, card })),
    ...questions.map((card) => ({ kind: "question" as const, card })),
    ...plans.map((card) => ({ kind: "plan" as const, card })),
  ];
  return all.filter(({ card }) => runId === undefined || card.runId === runId).sort((a, b) => a.card._creationTime - b.card._creationTime);
}

/**
 * A task's approval, question and plan cards, live; in the run view only
 * that run's. Viewers see them read-only. The drawer splits them: `pending`
 * (what waits for a person, pinned beside the composer) and `decided` (the
 * rest, folded away under a summary); without `show`, all in order.
 */
export function PauseCards({ taskId, runId, now, show }: { taskId: Id<"tasks">; runId?: Id<"runs">; now: number; show?: "pending" | "decided" }) {
  const approvals = useQuery(api.approvals.listForTask, { taskId });
  const questions = useQuery(api.questions.listForTask, { taskId });
  const plans = useQuery(api.plans.listForTask, { taskId });
  const writable = canWrite(useRole());
  if (approvals === undefined || questions === undefined || plans === undefined) return null;
  const all = mergeCards(approvals, questions, plans, runId);
  const cards = show === undefined ? all : all.filter(({ card }) => (shownState(card, now) === "pending") === (show === "pending"));
  if (cards.length === 0) return null;
  const list = (
    <ol aria-label={show === "decided" ? "Decided" : "Waiting for people"} className="flex flex-col gap-2">
      {cards.map((item) =>
        item.kind === "approval" ? (
          <ApprovalCard key={item.card._id} card={item.card} writable={writable} now={now} />
        ) : item.kind === "question" ? (
          <QuestionCard key={item.card._id} card={item.card} writable={writable} now={now} />
        ) : (
          <PlanCard key={item.card._id} card={item.card} writable={writable} now={now} />
        ),
      )}
    </ol>
  );
  if (show !== "decided") return list;
  return (
    <details data-testid="decided-cards" className="rounded-lg text-sm">
      <summary className="cursor-pointer py-1 text-xs font-medium text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-slate-100">
        {cards.length} decided {cards.length === 1 ? "request" : "requests"} (approvals, questions, plans)
      </summary>
      <div className="pt-2">{list}</div>
    </details>
  );
}
