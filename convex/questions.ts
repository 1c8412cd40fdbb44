/**
 * Question cards: an agent's `ask_question` pauses its run on one in the
 * task's thread. A member answers on the card or simply replies in the
 * thread (messages.create); either way the same code unblocks the task and
 * resumes the run with the answer (reactions/questions).
 */
import { v } from "convex/values";
import { taskMutation, taskQuery } from "./functions";
import { memberActor } from "./lib/actors";
import { answerQuestion } from "./reactions/questions";
import { postToThread } from "./reactions/threadPost";
import { cardsOfTask, pendingCardX } from "./records/pauseCards";
import schema from "./schema";

const vQuestionCard = schema.tables.questions.validator
  .omit("departmentId", "agentId", "key")
  .extend({ _id: v.id("questions"), _creationTime: v.number(), agentName: v.string() });

/** A task's question cards, newest first. */
export const listForTask = taskQuery({
  args: {},
  returns: v.array(vQuestionCard),
  handler: async (ctx, { taskId }) => (await cardsOfTask(ctx, "questions", taskId)).map(({ departmentId: _d, agentId: _a, key: _k, ...card }) => card),
});

/** The spec's `question.respond`: a member answers an agent's question on its card; the answer is posted in the thread too. */
export const respond = taskMutation({
  args: { questionId: v.id("questions"), answer: v.string() },
  returns: v.null(),
  handler: async (ctx, { questionId, answer }) => {
    const question = await pendingCardX(ctx, "questions", questionId, ctx.task._id);
    const by = memberActor(ctx.member);
    const posted = await postToThread(ctx, by, ctx.task, answer);
    await answerQuestion(ctx, question, ctx.task, by, posted.content);
    return null;
  },
});
