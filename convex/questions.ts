/**
 * Question cards: an agent's `ask_question` pauses its run on a card in the
 * task's thread. A member answers on the card or simply replies in the
 * thread; either way the same code unblocks the task and resumes the run
 * with the answer as the tool's result.
 */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import type { MutationCtx } from "./_generated/server";
import { agentNames, MAX_CARDS_PER_TASK } from "./approvals";
import { taskMutation, taskQuery } from "./functions";
import { actorName, memberActor } from "./lib/actors";
import { boundedText } from "./lib/runEvents";
import { MaestroError } from "./lib/errors";
import { postMessage } from "./messages";
import { resumeRun } from "./pauses";
import schema from "./schema";
import { moveTask } from "./tasks";
import type { Actor } from "./validators";

const vQuestionCard = schema.tables.questions.validator
  .pick("runId", "taskId", "question", "status", "answer", "answeredBy", "answeredAt")
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
    return rows.map(({ _id, _creationTime, runId, taskId, question, status, answer, answeredBy, answeredAt, agentId }) => ({
      _id,
      _creationTime,
      runId,
      taskId,
      question,
      status,
      ...(answer === undefined ? {} : { answer }),
      ...(answeredBy === undefined ? {} : { answeredBy }),
      ...(answeredAt === undefined ? {} : { answeredAt }),
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
  const run = await ctx.db.get("runs", question.runId);
  if (run?.status === "waiting" && run.paused?.id === question._id) {
    await resumeRun(ctx, run, { type: "tool_output_submitted", tool: "ask_question", content: boundedText(`${name}: ${answer}`) });
  }
}

/** The spec's `question.respond`: a member answers an agent's question on its card; the answer is posted in the thread too. */
export const respond = taskMutation({
  args: { questionId: v.id("questions"), answer: v.string() },
  returns: v.null(),
  handler: async (ctx, { questionId, answer }) => {
    const question = await ctx.db.get("questions", questionId);
    if (question === null || question.taskId !== ctx.task._id) throw new MaestroError("NOT_FOUND", "Question not found.");
    if (question.status !== "pending") {
      throw new MaestroError("CONFLICT", question.status === "answered" ? `This question was already answered by ${question.answeredBy ?? "someone"}.` : "This question was withdrawn: its run was stopped.");
    }
    const by = memberActor(ctx.member);
    const messageId = await postMessage(ctx, by, ctx.task, answer);
    const posted = (await ctx.db.get("messages", messageId))!;
    await answerQuestion(ctx, question, ctx.task, by, posted.content);
    return null;
  },
});
