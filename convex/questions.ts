/**
 * Question cards: an agent's `ask_question` pauses its run on a card in the
 * task's thread. A member answers on the card or simply replies in the
 * thread; either way the same code unblocks the task and resumes the run
 * with the answer as the tool's result.
 */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { internalMutation, type MutationCtx } from "./_generated/server";
import { agentNames, MAX_CARDS_PER_TASK } from "./approvals";
import { taskMutation, taskQuery } from "./functions";
import { actorName, memberActor } from "./lib/actors";
import { boundedText } from "./lib/runEvents";
import { MaestroError } from "./lib/errors";
import { postMessage } from "./messages";
import { EXPIRE_BATCH, releaseQuestion, resumeIfPausedOn } from "./pauses";
import schema from "./schema";
import { moveTask } from "./tasks";
import type { Actor } from "./validators";

const vQuestionCard = schema.tables.questions.validator
  .pick("runId", "taskId", "question", "status", "answer", "answeredBy", "answeredAt", "expiresAt")
  .extend({ _id: v.id("questions"), _creationTime: v.number(), agentName: v.string() });

/** A task's question cards, newest first. */
export const listForTask = taskQuery({
  args: {},
  returns: v.array(vQuestionCard),
  handler: async (ctx, { taskId }) => {
    const rows = await ctx.db
      .query("questions")
      .withIndex("by_task", (q) => q.eq("taskId", taskId))
      .order("desc")
      .take(MAX_CARDS_PER_TASK);
    const names = await agentNames(ctx, rows);
    return rows.map(({ _id, _creationTime, runId, taskId, question, status, answer, answeredBy, answeredAt, expiresAt, agentId }) => ({
      _id,
      _creationTime,
      runId,
      taskId,
      question,
      status,
      ...(answer === undefined ? {} : { answer }),
      ...(answeredBy === undefined ? {} : { answeredBy }),
      ...(answeredAt === undefined ? {} : { answeredAt }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      agentName: names.get(agentId)!,
    }));
  },
});

/**
 * Answers a pending question (the card's and the thread reply's one path):
 * the card records who answered, the task leaves `blocked`, and the run that
 * asked resumes with the answer as `tool_output_submitted`.
 */
export async function answerQuestion(ctx: MutationCtx, question: Doc<"questions">, task: Doc<"tasks">, by: Actor, answer: string) {
  const name = actorName(by);
  await ctx.db.patch("questions", question._id, { status: "answered", answer, answeredBy: name, answeredAt: Date.now() });
  if (task.pendingQuestion?.questionId === question._id) {
    await ctx.db.patch("tasks", task._id, { pendingQuestion: undefined });
    const current = (await ctx.db.get("tasks", task._id))!;
    if (current.status === "blocked") await moveTask(ctx, by, current, task.pendingQuestion.previousStatus);
  }
  await resumeIfPausedOn(ctx, question.runId, question._id, { type: "tool_output_submitted", tool: "ask_question", content: boundedText(`${name}: ${answer}`) });
}

/** Why a question that is no longer pending takes no answer. */
const CLOSED: Record<Exclude<Doc<"questions">["status"], "pending">, (question: Doc<"questions">) => string> = {
  answered: (question) => `This question was already answered by ${question.answeredBy ?? "someone"}.`,
  cancelled: () => "This question was withdrawn: its run was stopped.",
  expired: () => "This question has expired: nobody answered in time, and the agent went on without an answer.",
};

/** The spec's `question.respond`: a member answers an agent's question on its card; the answer is posted in the thread too. */
export const respond = taskMutation({
  args: { questionId: v.id("questions"), answer: v.string() },
  returns: v.null(),
  handler: async (ctx, { questionId, answer }) => {
    const question = await ctx.db.get("questions", questionId);
    if (question === null || question.taskId !== ctx.task._id) throw new MaestroError("NOT_FOUND", "Question not found.");
    if (question.status !== "pending") throw new MaestroError("CONFLICT", CLOSED[question.status](question));
    if (question.expiresAt !== undefined && question.expiresAt <= Date.now()) throw new MaestroError("CONFLICT", CLOSED.expired(question));
    const by = memberActor(ctx.member);
    const messageId = await postMessage(ctx, by, ctx.task, answer);
    const posted = (await ctx.db.get("messages", messageId))!;
    await answerQuestion(ctx, question, ctx.task, by, posted.content);
    return null;
  },
});

/**
 * The sweeper's part (convex/crons.ts): a question nobody answered before
 * its expiry stops blocking its task, and its run resumes with "nobody
 * answered in time" as the tool's result.
 */
export const expireOverdue = internalMutation({
  args: {},
  returns: v.number(),
  handler: async (ctx) => {
    const now = Date.now();
    const overdue = await ctx.db
      .query("questions")
      // From 0: questions from before expiry existed have none and never expire.
      .withIndex("by_status_and_expiresAt", (q) => q.eq("status", "pending").gte("expiresAt", 0).lt("expiresAt", now))
      .take(EXPIRE_BATCH);
    for (const question of overdue) {
      await ctx.db.patch("questions", question._id, { status: "expired" });
      await releaseQuestion(ctx, question, question._id);
      await resumeIfPausedOn(ctx, question.runId, question._id, { type: "control_submitted", action: "resume", by: "Maestro", note: "the question expired: nobody answered in time" });
    }
    return overdue.length;
  },
});
