/**
 * Files attached to messages in a task's thread, as channel files are (the
 * same upload route, limits and secret scan): a member who may post in the
 * task asks `generateUploadUrl` (an upload grant for them and this task),
 * uploads the file through it (convex/uploadApi.ts), then `add` checks the
 * upload is theirs for this task and records it; `messages.create` then
 * carries it (`files`), and `urls` hands download URLs only to those who can
 * read the task. What is uploaded but never attached is deleted by the
 * sweeper (convex/sweeps.ts); a message's files go with it, a task's with
 * the task (reactions/taskCleanup), and retention's artifact TTL applies.
 */
import { v } from "convex/values";
import { internal } from "./_generated/api";
import type { Id } from "./_generated/dataModel";
import { internalMutation, internalQuery, type QueryCtx } from "./_generated/server";
import { requireTask, taskMutation, taskQuery, userAction } from "./functions";
import { memberKey } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { uploadUrl } from "./lib/files";
import { addUpload, SEARCHED_TEXT_CHARS } from "./lib/uploads";
import { limitOrThrow } from "./records/rateLimits";
import { deleteTaskFiles, insertTaskFile, taskFileByStorage, taskFileUrls } from "./records/taskFiles";
import { checkStoredUpload, issueUploadGrant, requireOwnUpload, uploadScanPlan } from "./records/uploadGrants";
import { vFileArtifact, vPreparedUpload, vRecordedUpload, type FileArtifact } from "./validators";

/** Files of a deleted task removed per transaction; more schedule the next pass. */
export const TASK_FILE_BATCH = 100;

/**
 * An upload URL for one file in this task's thread: a grant for this person
 * and this task, single-use and expiring, so the upload can only ever be
 * attached by who asked for it, in this task.
 */
export const generateUploadUrl = taskMutation({
  args: {},
  returns: v.string(),
  handler: async (ctx) => {
    await limitOrThrow(ctx, "fileUpload", memberKey(ctx.member.userId));
    const token = await issueUploadGrant(ctx, { departmentId: ctx.task.departmentId, taskId: ctx.task._id }, ctx.member.userId);
    return uploadUrl(token);
  },
});

/** Whether the caller may add this stored file to this task (auth errors are thrown: the blob is none of their business). */
async function checkCallerUpload(ctx: QueryCtx, taskId: Id<"tasks">, storageId: Id<"_storage">, name: string) {
  const { viewer, task } = await requireTask(ctx, taskId, "member");
  await requireOwnUpload(ctx, storageId, viewer.user._id, { departmentId: task.departmentId, taskId: task._id });
  if ((await taskFileByStorage(ctx, storageId)) !== null) throw new MaestroError("CONFLICT", "That file was added already.");
  return { task, uploaderKey: memberKey(viewer.user._id), checked: await checkStoredUpload(ctx, task.departmentId, storageId, name) };
}

/** What `add` needs before it reads the blob: the refusal, or whether (and how) to scan the content. */
export const prepareAdd = internalQuery({
  args: { taskId: v.id("tasks"), storageId: v.id("_storage"), name: v.string() },
  returns: vPreparedUpload,
  handler: async (ctx, { taskId, storageId, name }) => {
    const { task, checked } = await checkCallerUpload(ctx, taskId, storageId, name);
    if (!checked.ok) return checked;
    return await uploadScanPlan(ctx, task.departmentId, checked.contentType);
  },
});

/** Records a checked file for its task (checked again: the world may have moved since `prepareAdd`). */
export const recordFile = internalMutation({
  args: { taskId: v.id("tasks"), storageId: v.id("_storage"), name: v.string(), text: v.optional(v.string()) },
  returns: vRecordedUpload,
  handler: async (ctx, { taskId, storageId, name, text }) => {
    const { task, uploaderKey, checked } = await checkCallerUpload(ctx, taskId, storageId, name);
    if (!checked.ok) return checked;
    await limitOrThrow(ctx, "fileUpload", uploaderKey, "Too many files:");
    const { name: stored, contentType, size } = checked;
    return { ok: true as const, artifact: await insertTaskFile(ctx, task, uploaderKey, storageId, { name: stored, contentType, size }, text) };
  },
});

/**
 * Adds an uploaded file to a task, ready to attach to a thread message. A
 * file storage refuses (too big, a type not allowed, a secret in a text
 * file) is deleted and the caller gets the reason.
 */
export const add = userAction({
  args: { taskId: v.id("tasks"), storageId: v.id("_storage"), name: v.string() },
  returns: vFileArtifact,
  handler: async (ctx, args): Promise<FileArtifact> =>
    await addUpload(
      ctx.storage,
      args.storageId,
      async () => await ctx.runQuery(internal.taskFiles.prepareAdd, args),
      // A text file's first characters are kept for searchFiles.
      async (text) => await ctx.runMutation(internal.taskFiles.recordFile, { ...args, text: text?.slice(0, SEARCHED_TEXT_CHARS) }),
    ),
});

/** Download URLs of a thread message's files, for those who can read the task (viewers too). */
export const urls = taskQuery({
  args: { messageId: v.id("messages") },
  returns: v.array(v.object({ storageId: v.id("_storage"), url: v.union(v.string(), v.null()) })),
  handler: async (ctx, { messageId }) => {
    const message = await ctx.db.get("messages", messageId);
    if (message === null || message.taskId !== ctx.task._id) throw new MaestroError("NOT_FOUND", "That message is not in this task's thread.");
    // A deleted message's files are gone with it.
    if (message.deletedAt !== undefined) return [];
    return await taskFileUrls(ctx, message);
  },
});

/** Deletes a deleted task's files a batch at a time (reactions/taskCleanup starts it). */
export const deleteOfTask = internalMutation({
  args: { taskId: v.id("tasks") },
  returns: v.number(),
  handler: async (ctx, { taskId }) => {
    const deleted = await deleteTaskFiles(ctx, taskId, TASK_FILE_BATCH);
    if (deleted === TASK_FILE_BATCH) await ctx.scheduler.runAfter(0, internal.taskFiles.deleteOfTask, { taskId });
    return deleted;
  },
});
