/** A task's thread for people: read it a page at a time, and post in it. */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import { taskMutation, taskQuery } from "./functions";
import { memberActor, memberKey } from "./lib/actors";
import { clientSendKey } from "./lib/idempotency";
import { checkPageSize } from "./lib/validate";
import { answerFromThread } from "./reactions/questions";
import { postToThread } from "./reactions/threadPost";
import { threadPage } from "./records/messages";
import { oncePerKey } from "./records/toolEffects";
import { vActor, vMention } from "./validators";

const vMessage = v.object({
  _id: v.id("messages"),
  _creationTime: v.number(),
  taskId: v.id("tasks"),
  author: vActor,
  content: v.string(),
  mentions: v.array(vMention),
});

/** Posts in a task's thread as the signed-in member (answering an agent's open question, if there is one). */
export const create = taskMutation({
  /** `clientMessageId`: the composer's own id for this message; a retried send with it posts once. */
  args: { content: v.string(), clientMessageId: v.optional(v.string()) },
  returns: v.id("messages"),
  handler: async (ctx, { content, clientMessageId }) => {
    const { task, member } = ctx;
    return await oncePerKey(ctx, { key: clientSendKey(memberKey(member.userId), clientMessageId), tool: "task_message" }, async () => {
      const message = await postToThread(ctx, memberActor(member), task, content);
      if (task.pendingQuestion !== undefined) await answerFromThread(ctx, task, memberActor(member), message);
      return message._id;
    });
  },
});

/** A task's thread, newest first, a page at a time. */
export const list = taskQuery({
  args: { paginationOpts: paginationOptsValidator },
  returns: paginationResultValidator(vMessage),
  handler: async (ctx, { taskId, paginationOpts }) => {
    checkPageSize(paginationOpts.numItems);
    const page = await threadPage(ctx, taskId, paginationOpts);
    return {
      ...page,
      page: page.page.map(({ _id, _creationTime, taskId, author, content, mentions }) => ({ _id, _creationTime, taskId, author, content, mentions })),
    };
  },
});
