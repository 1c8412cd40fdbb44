/**
 * Files attached to channel messages, thread replies and DMs. A person asks
 * `channelMessages.generateUploadUrl` (an upload grant for them and this
 * conversation), uploads the file through it (convex/uploadApi.ts), then
 * `channelFiles.add` checks the upload is theirs for this conversation and
 * what storage recorded (size limit, content-type allowlist, a text file's
 * content through the secret scanner) and records it for the channel; a
 * refused file's blob is deleted at once. `post` then carries it as a file
 * artifact, and `urls` hands download URLs only to those who can read the
 * message. What is uploaded but never posted is
 * deleted by a sweeper (convex/sweeps.ts).
 */
import { v } from "convex/values";
import { internal } from "./_generated/api";
import type { Id } from "./_generated/dataModel";
import { internalMutation, internalQuery, type QueryCtx } from "./_generated/server";
import { channelQuery, departmentQuery, requireChannel, userAction } from "./functions";
import { memberKey } from "./lib/actors";
import { postRefusal } from "./lib/channels";
import { MaestroError } from "./lib/errors";
import { addUpload, SEARCHED_TEXT_CHARS } from "./lib/uploads";
import { checkUpload, fileUrls, insertFile, searchDepartmentFiles } from "./records/channelFiles";
import { searchAttachedTaskFiles } from "./records/taskFiles";
import { mayRead } from "./records/channels";
import { limitOrThrow } from "./records/rateLimits";
import { claimUploadGrant, openUploadGrant, requireOwnUpload, uploadScanPlan, type CheckedUpload } from "./records/uploadGrants";
import { vFileArtifact, vPreparedUpload, vRecordedUpload, type FileArtifact } from "./validators";

/** Whether the caller may add this stored file to this channel (auth errors are thrown: the blob is none of their business). */
async function checkCallerUpload(ctx: QueryCtx, channelId: Id<"channels">, storageId: Id<"_storage">, name: string) {
  const { viewer, channel, membership } = await requireChannel(ctx, channelId, "member");
  const refusal = postRefusal(channel, membership !== null);
  if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
  await requireOwnUpload(ctx, storageId, viewer.user._id, { departmentId: channel.departmentId, channelId: channel._id });
  const checked: CheckedUpload = await checkUpload(ctx, channel, storageId, name);
  return { channel, senderKey: memberKey(viewer.user._id), checked };
}

/** Whether an upload URL's token may still take a file, for a channel or a task (the upload route asks before it stores anything). */
export const uploadGrantOpen = internalQuery({
  // The route's clock, passed in: a query may not read it (the claim checks again with its own).
  args: { token: v.string(), now: v.number() },
  returns: v.boolean(),
  handler: async (ctx, { token, now }) => (await openUploadGrant(ctx, token, now)) !== null,
});

/** Binds a stored upload to the grant whose URL took it; false when that grant was used or expired meanwhile. */
export const claimUpload = internalMutation({
  args: { token: v.string(), storageId: v.id("_storage") },
  returns: v.boolean(),
  handler: async (ctx, { token, storageId }) => await claimUploadGrant(ctx, token, storageId),
});

/** What `add` needs before it reads the blob: the refusal, or whether (and how) to scan the content. */
export const prepareAdd = internalQuery({
  args: { channelId: v.id("channels"), storageId: v.id("_storage"), name: v.string() },
  returns: vPreparedUpload,
  handler: async (ctx, { channelId, storageId, name }) => {
    const { channel, checked } = await checkCallerUpload(ctx, channelId, storageId, name);
    if (!checked.ok) return checked;
    return await uploadScanPlan(ctx, channel.departmentId, checked.contentType);
  },
});

/** Records a checked file for its channel (checked again: the world may have moved since `prepareAdd`). */
export const recordFile = internalMutation({
  args: { channelId: v.id("channels"), storageId: v.id("_storage"), name: v.string(), text: v.optional(v.string()) },
  returns: vRecordedUpload,
  handler: async (ctx, { channelId, storageId, name, text }) => {
    const { channel, senderKey, checked } = await checkCallerUpload(ctx, channelId, storageId, name);
    if (!checked.ok) return checked;
    await limitOrThrow(ctx, "fileUpload", senderKey, "Too many files:");
    const { name: stored, contentType, size } = checked;
    return { ok: true as const, artifact: await insertFile(ctx, channel, senderKey, storageId, { name: stored, contentType, size }, text?.slice(0, SEARCHED_TEXT_CHARS)) };
  },
});

/**
 * Adds an uploaded file to a channel or DM, ready to post. A file storage
 * refuses (too big, a type not allowed, a secret in a text file) is deleted
 * and the caller gets the reason.
 */
export const add = userAction({
  args: { channelId: v.id("channels"), storageId: v.id("_storage"), name: v.string() },
  returns: vFileArtifact,
  handler: async (ctx, args): Promise<FileArtifact> =>
    await addUpload(
      ctx.storage,
      args.storageId,
      async () => await ctx.runQuery(internal.channelFiles.prepareAdd, args),
      // A text file's first characters are kept for searchFiles.
      async (text) => await ctx.runMutation(internal.channelFiles.recordFile, { ...args, text: text?.slice(0, SEARCHED_TEXT_CHARS) }),
    ),
});

/** Download URLs of a message's files, for those who can read the message. */
export const urls = channelQuery({
  args: { messageId: v.id("channelMessages") },
  returns: v.array(v.object({ storageId: v.id("_storage"), url: v.union(v.string(), v.null()) })),
  handler: async (ctx, { messageId }) => {
    const message = await ctx.db.get("channelMessages", messageId);
    if (message === null || message.channelId !== ctx.channel._id) throw new MaestroError("NOT_FOUND", "That message is not in this channel.");
    return await fileUrls(ctx, message);
  },
});

/** Most files one search returns. */
export const MAX_FILE_RESULTS = 20;

/**
 * `searchFiles`: the department's files (its artifacts) whose name or text
 * matches `query`, name matches first: files in conversations the caller may
 * read, then files attached in task threads (every member reads tasks).
 */
export const search = departmentQuery({
  role: "viewer",
  args: { query: v.string() },
  returns: v.array(
    v.object({
      fileId: v.id("_storage"),
      channelId: v.optional(v.id("channels")),
      taskId: v.optional(v.id("tasks")),
      /** Where it was posted, as a person reads it: "#launch", "a DM", or the task's title. */
      place: v.string(),
      name: v.string(),
      contentType: v.string(),
      size: v.number(),
      createdAt: v.number(),
    }),
  ),
  handler: async (ctx, { departmentId, query }) => {
    const text = query.trim().slice(0, 200);
    if (text === "") return [];
    const me = memberKey(ctx.member.userId);
    const out = [];
    for (const file of await searchDepartmentFiles(ctx, departmentId, text, MAX_FILE_RESULTS * 2)) {
      const channel = await ctx.db.get("channels", file.channelId);
      if (channel === null || !(await mayRead(ctx, channel, me))) continue;
      const place = channel.kind === "dm" ? "a DM" : `#${channel.name}`;
      out.push({ fileId: file.storageId, channelId: file.channelId, place, name: file.name, contentType: file.contentType, size: file.size, createdAt: file._creationTime });
      if (out.length === MAX_FILE_RESULTS) return out;
    }
    for (const file of await searchAttachedTaskFiles(ctx, departmentId, text, MAX_FILE_RESULTS - out.length)) {
      // A deleted task's files are on their way out (taskFiles.deleteOfTask).
      const task = await ctx.db.get("tasks", file.taskId);
      if (task === null || task.deletedAt !== undefined) continue;
      out.push({ fileId: file.storageId, taskId: file.taskId, place: task.title, name: file.name, contentType: file.contentType, size: file.size, createdAt: file._creationTime });
    }
    return out;
  },
});
