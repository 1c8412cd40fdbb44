import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import type { MutationCtx, QueryCtx } from "./_generated/server";
import { taskMutation, taskQuery } from "./functions";
import { recordActivity } from "./lib/activity";
import { memberActor, memberKey } from "./lib/actors";
import { LIMITS } from "./lib/limits";
import { parseMentions, type MentionCandidate } from "./lib/mentions";
import { notifyMentions } from "./lib/notify";
import { redactForDepartment } from "./lib/userText";
import { checkPageSize, cleanText } from "./lib/validate";
import { MAX_AGENTS_PER_DEPARTMENT } from "./agents";
import { MAX_MEMBERS_PER_DEPARTMENT } from "./members";
import { agentBySessionKey, enqueueRun } from "./runs";
import { moveTask } from "./tasks";
import { answerQuestion } from "./questions";
import { vActor, vMention, type Actor, type Mention } from "./validators";

const vMessage = v.object({
  _id: v.id("messages"),
  _creationTime: v.number(),
  taskId: v.id("tasks"),
  author: vActor,
  content: v.string(),
  mentions: v.array(vMention),
});

/** Everyone a message in this department can mention: its agents and its members. */
export async function mentionCandidates(
  ctx: QueryCtx | MutationCtx,
  departmentId: Id<"departments">,
): Promise<Array<MentionCandidate & { kind: Mention["kind"] }>> {
  const agents = await ctx.db
    .query("agents")
    .withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId))
    .take(MAX_AGENTS_PER_DEPARTMENT);
  const members = await ctx.db
    .query("members")
    .withIndex("by_department_and_user", (q) => q.eq("departmentId", departmentId))
    .take(MAX_MEMBERS_PER_DEPARTMENT);
  return [
    ...agents.map((a) => ({ kind: "agent" as const, key: a.sessionKey, name: a.name })),
    ...members.map((m) => ({ kind: "member" as const, key: memberKey(m.userId), name: m.name })),
  ];
}

/** The agents and members `text` mentions, in the order first mentioned. */
export async function mentionsIn(ctx: QueryCtx | MutationCtx, departmentId: Id<"departments">, text: string): Promise<Mention[]> {
  // No "@", no mention: a post then skips reading every agent and member of the department.
  if (!text.includes("@")) return [];
  const candidates = await mentionCandidates(ctx, departmentId);
  const kindByKey = new Map(candidates.map((c) => [c.key, c.kind]));
  return parseMentions(text, candidates).map(({ key, name }) => ({ kind: kindByKey.get(key)!, key, name }));
}

/**
 * Posts a message in a task's thread: resolves its @mentions, notifies each
 * mentioned agent or member once, triggers mentioned agents, records activity.
 */
export async function postMessage(
  ctx: MutationCtx,
  author: Actor,
  task: Doc<"tasks">,
  rawContent: string,
): Promise<Id<"messages">> {
  const content = await redactForDepartment(ctx, task.departmentId, "thread message", cleanText("A message", rawContent, LIMITS.messageChars));
  const mentions = await mentionsIn(ctx, task.departmentId, content);
  const messageId = await ctx.db.insert("messages", {
    taskId: task._id,
    departmentId: task.departmentId,
    author,
    content,
    mentions,
  });
  await notifyMentions(ctx, { _id: messageId, taskId: task._id, departmentId: task.departmentId, author, mentions });
  await recordActivity(ctx, {
    departmentId: task.departmentId,
    type: "message_posted",
    actor: author,
    taskId: task._id,
    data: { title: task.title, preview: content.length > 140 ? `${content.slice(0, 139)}…` : content },
  });
  return messageId;
}

/**
 * A human's message on a task blocked by an agent's question answers it: the
 * task goes back to where it was and the agent is woken with the answer.
 */
async function answerInThread(ctx: MutationCtx, task: Doc<"tasks">, actor: Actor, messageId: Id<"messages">) {
  const question = task.pendingQuestion!;
  const card = question.questionId === undefined ? null : await ctx.db.get("questions", question.questionId);
  if (card !== null && card.status === "pending") {
    const message = (await ctx.db.get("messages", messageId))!;
    await answerQuestion(ctx, card, task, actor, message.content);
    return;
  }
  await ctx.db.patch("tasks", task._id, { pendingQuestion: undefined });
  const current = (await ctx.db.get("tasks", task._id))!;
  if (current.status === "blocked") await moveTask(ctx, actor, current, question.previousStatus);
  const agent = await agentBySessionKey(ctx, question.agentSessionKey);
  if (agent !== null) await enqueueRun(ctx, agent, task._id, { kind: "answer", messageId });
}

/** Posts in a task's thread as the signed-in member (answering an agent's open question, if there is one). */
export const create = taskMutation({
  args: { content: v.string() },
  returns: v.id("messages"),
  handler: async (ctx, { content }) => {
    const { task, member } = ctx;
    const messageId = await postMessage(ctx, memberActor(member), task, content);
    if (task.pendingQuestion !== undefined) await answerInThread(ctx, task, memberActor(member), messageId);
    return messageId;
  },
});

/** A task's thread, newest first, a page at a time. */
export const list = taskQuery({
  args: { paginationOpts: paginationOptsValidator },
  returns: paginationResultValidator(vMessage),
  handler: async (ctx, { taskId, paginationOpts }) => {
    checkPageSize(paginationOpts.numItems);
    const page = await ctx.db
      .query("messages")
      .withIndex("by_task", (q) => q.eq("taskId", taskId))
      .order("desc")
      .paginate(paginationOpts);
    return {
      ...page,
      page: page.page.map(({ _id, _creationTime, taskId, author, content, mentions }) => ({
        _id,
        _creationTime,
        taskId,
        author,
        content,
        mentions,
      })),
    };
  },
});
