/**
 * An agent asks the people of its task a question, and it is answered or
 * released. Asking posts it in the thread and blocks the task; an answer (on
 * the question's card, or simply a person's reply in the thread) unblocks
 * the task and resumes the run that asked; a question that will get no
 * answer (its run stopped, or it expired) unblocks the task too.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { actorName, agentActor } from "../lib/actors";
import { boundedText } from "../lib/runEvents";
import { agentBySessionKey } from "../records/agents";
import { answerCard } from "../records/pauseCards";
import { getTaskX, setPendingQuestion } from "../records/tasks";
import type { Actor } from "../validators";
import { enqueueRun, resumeIfPausedOn } from "./runQueue";
import { moveTask } from "./taskChange";
import { postToThread } from "./threadPost";

/**
 * Posts an agent's question in its task's thread and blocks the task until a
 * member answers (there or on the question card); returns the message.
 */
export async function askInThread(ctx: MutationCtx, agent: Doc<"agents">, task: Doc<"tasks">, question: string, questionId?: Id<"questions">): Promise<Id<"messages">> {
  const message = await postToThread(ctx, agentActor(agent), task, `❓ ${question.trim()}`);
  const previousStatus = task.pendingQuestion?.previousStatus ?? (task.status === "blocked" ? "in_progress" : task.status);
  await setPendingQuestion(ctx, task._id, {
    agentSessionKey: agent.sessionKey,
    messageId: message._id,
    previousStatus,
    ...(questionId === undefined ? {} : { questionId }),
  });
  if (task.status !== "blocked") await moveTask(ctx, agentActor(agent), task, "blocked");
  return message._id;
}

/** The question no longer blocks the task: it goes back to where it was, moved by `by`. */
async function unblock(ctx: MutationCtx, task: Doc<"tasks">, by: Actor): Promise<void> {
  const pending = task.pendingQuestion;
  if (pending === undefined) return;
  await setPendingQuestion(ctx, task._id, undefined);
  const current = await getTaskX(ctx, task._id);
  if (current.status === "blocked") await moveTask(ctx, by, current, pending.previousStatus);
}

/**
 * Answers a pending question (the card's and the thread reply's one path):
 * the card records who answered, the task leaves `blocked`, and the run that
 * asked resumes with the answer as `tool_output_submitted`.
 */
export async function answerQuestion(ctx: MutationCtx, question: Doc<"questions">, task: Doc<"tasks">, by: Actor, answer: string): Promise<void> {
  const name = actorName(by);
  await answerCard(ctx, question._id, answer, name);
  if (task.pendingQuestion?.questionId === question._id) await unblock(ctx, task, by);
  await resumeIfPausedOn(ctx, question.runId, question._id, { type: "tool_output_submitted", tool: "ask_question", content: boundedText(`${name}: ${answer}`) });
}

/**
 * A person's message on a task blocked by an agent's question answers it:
 * through its card when it has a pending one, else the task goes back to
 * where it was and the agent is woken with the answer.
 */
export async function answerFromThread(ctx: MutationCtx, task: Doc<"tasks">, by: Actor, message: Doc<"messages">): Promise<void> {
  const pending = task.pendingQuestion;
  if (pending === undefined) return;
  const card = pending.questionId === undefined ? null : await ctx.db.get("questions", pending.questionId);
  if (card !== null && card.status === "pending") {
    await answerQuestion(ctx, card, task, by, message.content);
    return;
  }
  await unblock(ctx, task, by);
  const agent = await agentBySessionKey(ctx, pending.agentSessionKey);
  if (agent !== null) await enqueueRun(ctx, agent, task._id, { kind: "answer", messageId: message._id });
}

/**
 * A question that will get no answer (its run was stopped, or it expired) no
 * longer blocks its task: the task goes back to where it was, moved by the
 * agent that asked.
 */
export async function releaseQuestion(ctx: MutationCtx, run: Pick<Doc<"runs">, "taskId" | "agentId">, questionId: Id<"questions">): Promise<void> {
  const task = await ctx.db.get("tasks", run.taskId);
  if (task?.pendingQuestion?.questionId !== questionId) return;
  const agent = await ctx.db.get("agents", run.agentId);
  if (agent === null) {
    await setPendingQuestion(ctx, task._id, undefined);
    return;
  }
  await unblock(ctx, task, agentActor(agent));
}
