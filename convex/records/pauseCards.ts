/**
 * Pause cards: the approvals, questions and plans a run waits on. The three
 * tables share their common fields (schema.ts `pauseCardFields`) and one set of
 * helpers parameterised by table: list a task's cards, find a pending one a
 * person may decide, find an earlier card of the same cause, expire overdue
 * ones, close one whose run stopped. What a decision sets off (the run
 * resumes, a question unblocks its task) is reactions/pauses.ts.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "../lib/errors";
import { MAX_CARDS_PER_TASK } from "../lib/limits";
import { EXPIRE_BATCH, MAX_REASON_CHARS } from "../lib/pauses";
import { cleanText } from "../lib/validate";
import type { PauseKind } from "../validators";
import { agentNamesById } from "./agents";
import { redactForDepartment } from "./settings";

export type CardTable = "approvals" | "questions" | "plans";
export type Card<T extends CardTable = CardTable> = Doc<T>;

/** The table each pause kind's card lives in. */
export const CARD_TABLE: Record<PauseKind, CardTable> = { approval: "approvals", question: "questions", plan: "plans" };

const NOUN: Record<CardTable, string> = { approvals: "Approval", questions: "Question", plans: "Plan" };

/** Earlier question or plan cards one key is looked up in (a key's cards are few: one, plus those of stopped runs). */
const MAX_CARDS_PER_KEY = 20;

/** Why a card past its expiry takes no decision, per table. */
const EXPIRED: Record<CardTable, string> = {
  approvals: "This approval has expired: the call counts as denied.",
  questions: "This question has expired: nobody answered in time, and the agent went on without an answer.",
  plans: "This plan has expired: nobody decided in time, so nothing was delegated.",
};

/** Why a card that is no longer pending takes no decision. */
function closedText(table: CardTable, card: Card): string {
  if (card.status === "cancelled") return `This ${NOUN[table].toLowerCase()} was withdrawn: its run was stopped.`;
  if (card.status === "expired" && table !== "approvals") return EXPIRED[table];
  const by = "decidedBy" in card ? card.decidedBy : "answeredBy" in card ? (card.answeredBy ?? "someone") : undefined;
  return `This ${NOUN[table].toLowerCase()} was already ${card.status}${by ? ` by ${by}` : ""}.`;
}

/** A task's cards of one kind, newest first, with each card's agent name. */
export async function cardsOfTask<T extends CardTable>(ctx: QueryCtx, table: T, taskId: Id<"tasks">): Promise<Array<Doc<T> & { agentName: string }>> {
  const rows = (await ctx.db
    .query(table as "approvals")
    .withIndex("by_task", (q) => q.eq("taskId", taskId))
    .order("desc")
    .take(MAX_CARDS_PER_TASK)) as unknown as Array<Doc<T>>;
  const names = await agentNamesById(
    ctx,
    rows.map((row) => row.agentId),
    "an agent",
  );
  return rows.map((row) => ({ ...row, agentName: names.get(row.agentId)! }));
}

/** A department's pending cards of one kind, oldest first, at most `limit` (one more tells there are others). */
export async function pendingCardsOfDepartment<T extends CardTable>(ctx: QueryCtx, table: T, departmentId: Id<"departments">, limit: number): Promise<Array<Doc<T>>> {
  return (await ctx.db
    .query(table as "approvals")
    .withIndex("by_department_and_status", (q) => q.eq("departmentId", departmentId).eq("status", "pending"))
    .take(limit)) as unknown as Array<Doc<T>>;
}

/**
 * The pending card `id` of this task, which a person may still decide:
 * NOT_FOUND when it is not this task's, CONFLICT (saying why) when it was
 * decided, withdrawn or has expired.
 */
export async function pendingCardX<T extends CardTable>(ctx: QueryCtx, table: T, id: Id<T>, taskId: Id<"tasks">): Promise<Doc<T>> {
  const card = (await ctx.db.get(table as "approvals", id as unknown as Id<"approvals">)) as unknown as Card | null;
  if (card === null || card.taskId !== taskId) throw new MaestroError("NOT_FOUND", `${NOUN[table]} not found.`);
  if (card.status !== "pending") throw new MaestroError("CONFLICT", closedText(table, card));
  if (card.expiresAt !== undefined && card.expiresAt <= Date.now()) throw new MaestroError("CONFLICT", EXPIRED[table]);
  return card as unknown as Doc<T>;
}

/**
 * The card an earlier call with the same idempotency key made, unless it was
 * withdrawn (its run was stopped: asking again is then a new question).
 */
export async function earlierCard<T extends "questions" | "plans">(ctx: QueryCtx, table: T, key: string | undefined): Promise<Doc<T> | null> {
  if (key === undefined) return null;
  const rows = (await ctx.db
    .query(table as "questions")
    .withIndex("by_key", (q) => q.eq("key", key))
    .order("desc")
    .take(MAX_CARDS_PER_KEY)) as unknown as Array<Doc<T>>;
  return rows.find((row) => row.status !== "cancelled") ?? null;
}

/** Pending cards of one kind past their expiry, a sweep's worth, now marked expired. */
export async function expireOverdueCards<T extends CardTable>(ctx: MutationCtx, table: T): Promise<Array<Doc<T>>> {
  const now = Date.now();
  const overdue = (await ctx.db
    .query(table as "questions")
    // From 0: questions and plans from before expiry existed have none and never expire.
    .withIndex("by_status_and_expiresAt", (q) => q.eq("status", "pending").gte("expiresAt", 0).lt("expiresAt", now))
    .take(EXPIRE_BATCH)) as unknown as Array<Doc<T>>;
  for (const card of overdue) await ctx.db.patch(table as "approvals", card._id as Id<"approvals">, expiredPatch(table, now));
  return overdue;
}

function expiredPatch(table: CardTable, now: number) {
  if (table === "approvals") return { status: "expired" as const, reason: "expired", decidedAt: now };
  if (table === "plans") return { status: "expired" as const, decidedAt: now };
  return { status: "expired" as const };
}

/** A card whose run ended without a response (a person pressed Stop): withdrawn, or for an approval expired with the reason. */
export async function closeCard(ctx: MutationCtx, table: CardTable, id: string, why: string): Promise<void> {
  const now = Date.now();
  if (table === "approvals") {
    const approval = await ctx.db.get("approvals", id as Id<"approvals">);
    if (approval?.status === "pending") await ctx.db.patch("approvals", approval._id, { status: "expired", reason: why, decidedAt: now });
  } else if (table === "questions") {
    const question = await ctx.db.get("questions", id as Id<"questions">);
    if (question?.status === "pending") await ctx.db.patch("questions", question._id, { status: "cancelled" });
  } else {
    const plan = await ctx.db.get("plans", id as Id<"plans">);
    if (plan?.status === "pending") await ctx.db.patch("plans", plan._id, { status: "cancelled", decidedAt: now });
  }
}

/** The run's card the pause names, as stored (it exists: a pause is written with its card). */
export async function pausedCard<T extends CardTable>(ctx: QueryCtx, table: T, id: string): Promise<Doc<T>> {
  return (await ctx.db.get(table as "approvals", id as Id<"approvals">)) as unknown as Doc<T>;
}

/** The fields every card of a run's pause starts with. */
type CardBase = { departmentId: Id<"departments">; runId: Id<"runs">; taskId: Id<"tasks">; agentId: Id<"agents">; expiresAt: number };

export async function insertApproval(ctx: MutationCtx, base: CardBase, call: { toolCallId: string; tool: string; args: string; argsHash: string }): Promise<Id<"approvals">> {
  return await ctx.db.insert("approvals", { ...base, ...call, status: "pending" });
}

export async function insertQuestion(ctx: MutationCtx, base: CardBase, question: string, key: string | undefined): Promise<Id<"questions">> {
  return await ctx.db.insert("questions", { ...base, question, status: "pending", ...(key === undefined ? {} : { key }) });
}

export async function insertPlan(ctx: MutationCtx, base: CardBase, plan: Pick<Doc<"plans">, "summary" | "steps">, key: string | undefined): Promise<Id<"plans">> {
  return await ctx.db.insert("plans", { ...base, ...plan, status: "pending", ...(key === undefined ? {} : { key }) });
}

/** An earlier card now waits for this run too (a retried run, a duplicate trigger). */
export async function rebindCard(ctx: MutationCtx, table: "questions" | "plans", id: Id<"questions"> | Id<"plans">, runId: Id<"runs">): Promise<void> {
  await ctx.db.patch(table as "questions", id as Id<"questions">, { runId });
}

/** A person's optional words on a decision: cleaned, bounded, secrets redacted. */
export async function decisionText(ctx: QueryCtx, departmentId: Id<"departments">, field: string, text: string | undefined): Promise<string | undefined> {
  if (text === undefined || text.trim() === "") return undefined;
  return await redactForDepartment(ctx, departmentId, field, cleanText(field, text, MAX_REASON_CHARS));
}

/** A person decided an approval. */
export async function decideApproval(ctx: MutationCtx, id: Id<"approvals">, approved: boolean, decidedBy: string, reason: string | undefined): Promise<void> {
  await ctx.db.patch("approvals", id, { status: approved ? "approved" : "denied", decidedBy, decidedAt: Date.now(), ...(reason === undefined ? {} : { reason }) });
}

/** A person decided a plan. */
export async function decidePlan(ctx: MutationCtx, id: Id<"plans">, approved: boolean, decidedBy: string, feedback: string | undefined): Promise<void> {
  await ctx.db.patch("plans", id, { status: approved ? "approved" : "rejected", decidedBy, decidedAt: Date.now(), ...(feedback === undefined ? {} : { feedback }) });
}

/** A person answered a question. */
export async function answerCard(ctx: MutationCtx, id: Id<"questions">, answer: string, answeredBy: string): Promise<void> {
  await ctx.db.patch("questions", id, { status: "answered", answer, answeredBy, answeredAt: Date.now() });
}
