/** A task's thread for people: read it a page at a time, and post in it. */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import { taskMutation, taskQuery } from "./functions";
import type { Doc, Id } from "./_generated/dataModel";
import type { MutationCtx } from "./_generated/server";
import { actorName, memberActor, memberKey } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { clientSendKey } from "./lib/idempotency";
import { deleteRefusal, editRefusal } from "./lib/messageChanges";
import { checkMessageMetadata } from "./lib/messageMetadata";
import { feedPreview, recordActivity, revisePostedEntry } from "./records/activities";
import { checkPageSize } from "./lib/validate";
import { answerFromThread } from "./reactions/questions";
import { postToThread } from "./reactions/threadPost";
import schema from "./schema";
import { attachMetadata, editMessage, eraseMessage, threadPage } from "./records/messages";
import { deleteMessageFiles, markTaskFilesAttached, resolveTaskFiles } from "./records/taskFiles";
import { oncePerKey } from "./records/toolEffects";

// A projection of the stored message, so the returns can never drift from the schema (`correlationId` links a delegation's lines to its A2A envelope).
const vMessage = schema.tables.messages.validator
  .pick("taskId", "author", "content", "mentions", "taskLinks", "metadata", "correlationId", "files", "editedAt", "deletedAt")
  .extend({ _id: v.id("messages"), _creationTime: v.number() });

/** A message of this task's thread, by an id a client sent. */
async function threadMessageX(ctx: MutationCtx, task: Doc<"tasks">, messageId: Id<"messages">): Promise<Doc<"messages">> {
  const message = await ctx.db.get("messages", messageId);
  if (message === null || message.taskId !== task._id) throw new MaestroError("NOT_FOUND", "That message is not in this task's thread.");
  return message;
}

/** Posts in a task's thread as the signed-in member (answering an agent's open question, if there is one). */
export const create = taskMutation({
  /**
   * `clientMessageId`: the composer's own id for this message; a retried send with it posts once.
   * `taskLinks`: tasks the message links with `#`, of the task's department, else refused.
   * `metadata`: the client's own small record (at most 20 keys, values of 200 characters).
   * `files`: storage ids the caller uploaded for this task (taskFiles.add), not attached yet, else refused.
   */
  args: {
    content: v.string(),
    clientMessageId: v.optional(v.string()),
    taskLinks: v.optional(v.array(v.id("tasks"))),
    metadata: v.optional(v.record(v.string(), v.string())),
    files: v.optional(v.array(v.id("_storage"))),
  },
  returns: v.id("messages"),
  handler: async (ctx, { content, clientMessageId, taskLinks, metadata, files: storageIds = [] }) => {
    const { task, member } = ctx;
    // Checked before anything is written: a refused send posts nothing.
    const checkedMetadata = metadata === undefined ? undefined : checkMessageMetadata(metadata);
    const sender = memberKey(member.userId);
    return await oncePerKey(ctx, { key: clientSendKey(sender, clientMessageId), tool: "task_message" }, async () => {
      // Checked inside: a retried send finds its files attached by the first, and gets that message back above.
      const { files, rows } = await resolveTaskFiles(ctx, task, sender, storageIds);
      const message = await postToThread(ctx, memberActor(member), task, content, { taskLinks, files });
      await markTaskFilesAttached(ctx, rows, message._id);
      if (checkedMetadata !== undefined) await attachMetadata(ctx, message, checkedMetadata);
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
      page: page.page.map(({ _id, _creationTime, taskId, author, content, mentions, taskLinks, metadata, correlationId, files, editedAt, deletedAt }) => ({
        _id,
        _creationTime,
        taskId,
        author,
        content,
        mentions,
        ...(taskLinks === undefined ? {} : { taskLinks }),
        ...(metadata === undefined ? {} : { metadata }),
        ...(correlationId === undefined ? {} : { correlationId }),
        ...(files === undefined ? {} : { files }),
        ...(editedAt === undefined ? {} : { editedAt }),
        ...(deletedAt === undefined ? {} : { deletedAt }),
      })),
    };
  },
});

/** Edits one of the caller's own messages in the thread (marked edited; agents read the new text). */
export const edit = taskMutation({
  args: { messageId: v.id("messages"), content: v.string() },
  returns: v.null(),
  handler: async (ctx, { messageId, content }) => {
    const { task, member } = ctx;
    const message = await threadMessageX(ctx, task, messageId);
    const refusal = editRefusal(message, message.author, member.userId);
    if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
    const text = await editMessage(ctx, message, content);
    await revisePostedEntry(ctx, message._id, { editedText: text });
    await recordActivity(ctx, { departmentId: task.departmentId, type: "message_edited", actor: memberActor(member), taskId: task._id, data: { title: task.title, preview: feedPreview(text) } });
    return null;
  },
});

/** Deletes a message in the thread: the caller's own, or anyone's for an owner or admin. */
export const remove = taskMutation({
  args: { messageId: v.id("messages") },
  returns: v.null(),
  handler: async (ctx, { messageId }) => {
    const { task, member } = ctx;
    const message = await threadMessageX(ctx, task, messageId);
    const refusal = deleteRefusal(message, message.author, member.userId, member.role);
    if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
    await eraseMessage(ctx, message._id);
    await deleteMessageFiles(ctx, message._id);
    await revisePostedEntry(ctx, message._id, { deleted: true });
    await recordActivity(ctx, {
      departmentId: task.departmentId,
      type: "message_deleted",
      actor: memberActor(member),
      taskId: task._id,
      data: { title: task.title, author: actorName(message.author) },
    });
    return null;
  },
});
