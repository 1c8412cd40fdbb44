/**
 * Files attached to channel messages, thread replies and DMs: the record of
 * an upload added to a conversation (name, type and size from storage,
 * never from the client; the grant behind it is records/uploadGrants),
 * whether a post may carry it, and what a sweep of never-posted uploads
 * finds (a task's too: records/taskFiles).
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "../lib/errors";
import { FILE_LIMITS, nameMatchesFirst } from "../lib/files";
import type { FileArtifact } from "../validators";
import { mayRead } from "./channels";
import { deleteTaskFilesBefore, deleteUnattachedTaskFiles, taskFileByStorage } from "./taskFiles";
import { checkStoredUpload, deleteOldGrants, type CheckedUpload } from "./uploadGrants";

/** Rows and blobs one sweep pass handles; a fuller backlog schedules the next pass at once. */
export const SWEEP_BATCH = 100;

/**
 * Whether this stored upload may be added to `channel`: a file added
 * already or gone is an error; one storage refuses (size, type) comes back
 * as `ok: false`, so the caller can delete the blob.
 */
export async function checkUpload(ctx: QueryCtx, channel: Doc<"channels">, storageId: Id<"_storage">, rawName: string): Promise<CheckedUpload> {
  if ((await fileByStorage(ctx, storageId)) !== null) throw new MaestroError("CONFLICT", "That file was added already.");
  return await checkStoredUpload(ctx, channel.departmentId, storageId, rawName);
}

export async function fileByStorage(ctx: QueryCtx, storageId: Id<"_storage">): Promise<Doc<"channelFiles"> | null> {
  return await ctx.db
    .query("channelFiles")
    .withIndex("by_storage", (q) => q.eq("storageId", storageId))
    .unique();
}

/** Records a checked upload for its conversation, not posted yet; returns it as an artifact. */
export async function insertFile(
  ctx: MutationCtx,
  channel: Doc<"channels">,
  uploaderKey: string,
  storageId: Id<"_storage">,
  file: { name: string; contentType: string; size: number },
  text?: string,
): Promise<FileArtifact> {
  await ctx.db.insert("channelFiles", { departmentId: channel.departmentId, channelId: channel._id, storageId, uploaderKey, ...file, text: text ?? "" });
  return { kind: "file", storageId, ...file };
}

/** A department's files whose name, then whose text, matches `query`: at most `limit`, name matches first, each once. */
export async function searchDepartmentFiles(ctx: QueryCtx, departmentId: Id<"departments">, query: string, limit: number): Promise<Array<Doc<"channelFiles">>> {
  const byName = await ctx.db
    .query("channelFiles")
    .withSearchIndex("search_name", (q) => q.search("name", query).eq("departmentId", departmentId))
    .take(limit);
  const byText = await ctx.db
    .query("channelFiles")
    .withSearchIndex("search_text", (q) => q.search("text", query).eq("departmentId", departmentId))
    .take(limit);
  return nameMatchesFirst(byName, byText, limit);
}

/**
 * The file artifact a post may carry: a file added to this conversation by
 * the sender and not posted yet, or one already posted in a conversation the
 * sender can read (forwarding). Name, type and size come from the record,
 * never from the client. Returns the artifact and, for a new file, its row to
 * mark as posted.
 */
export async function resolveFileArtifact(
  ctx: QueryCtx,
  channel: Doc<"channels">,
  senderKey: string,
  storageId: Id<"_storage">,
): Promise<{ artifact: FileArtifact; attach: Id<"channelFiles"> | null }> {
  const file = await fileByStorage(ctx, storageId);
  if (file === null || file.departmentId !== channel.departmentId) throw new MaestroError("NOT_FOUND", "An attached file is not in this department.");
  const artifact: FileArtifact = { kind: "file", storageId, name: file.name, contentType: file.contentType, size: file.size };
  if (file.messageId === undefined) {
    if (file.uploaderKey !== senderKey || file.channelId !== channel._id) throw new MaestroError("FORBIDDEN", "Only its uploader can post that file, where it was uploaded.");
    return { artifact, attach: file._id };
  }
  if (file.channelId !== channel._id) {
    const source = await ctx.db.get("channels", file.channelId);
    if (source === null || !(await mayRead(ctx, source, senderKey))) {
      throw new MaestroError("FORBIDDEN", "That file is in a conversation you cannot read.");
    }
  }
  return { artifact, attach: null };
}

/** The files a post carries are posted now. */
export async function markPosted(ctx: MutationCtx, fileIds: ReadonlyArray<Id<"channelFiles">>, messageId: Id<"channelMessages">): Promise<void> {
  for (const fileId of fileIds) await ctx.db.patch("channelFiles", fileId, { messageId });
}

/** Download URLs of a message's files. */
export async function fileUrls(ctx: QueryCtx, message: Doc<"channelMessages">): Promise<Array<{ storageId: Id<"_storage">; url: string | null }>> {
  const out: Array<{ storageId: Id<"_storage">; url: string | null }> = [];
  for (const artifact of message.artifacts) {
    if (artifact.kind !== "file") continue;
    out.push({ storageId: artifact.storageId, url: await ctx.storage.getUrl(artifact.storageId) });
  }
  return out;
}

/**
 * Deletes what was uploaded but never posted within FILE_LIMITS.unpostedTtlMs:
 * files added to a conversation or a task whose message was never sent (row
 * and blob), and uploads never added at all (the blob; every blob in storage
 * belongs to a channel or task file, so one without a row is abandoned).
 * Uploads are walked by upload time from where the last pass stopped, so a
 * pass reads only what aged past the window since. Returns the counts and
 * whether more is left.
 */
export async function deleteUnposted(ctx: MutationCtx): Promise<{ files: number; uploads: number; more: boolean }> {
  const cutoff = Date.now() - FILE_LIMITS.unpostedTtlMs;
  const stale = await ctx.db
    .query("channelFiles")
    .withIndex("by_message", (q) => q.eq("messageId", undefined).lt("_creationTime", cutoff))
    .take(SWEEP_BATCH);
  for (const file of stale) {
    await ctx.storage.delete(file.storageId);
    await ctx.db.delete("channelFiles", file._id);
  }
  const staleTaskFiles = await deleteUnattachedTaskFiles(ctx, cutoff, SWEEP_BATCH);
  const state = await ctx.db.query("fileSweeps").first();
  const after = state?.sweptUntil ?? 0;
  const blobs = await ctx.db.system
    .query("_storage")
    .withIndex("by_creation_time", (q) => q.gt("_creationTime", after).lt("_creationTime", cutoff))
    .take(SWEEP_BATCH);
  let uploads = 0;
  for (const blob of blobs) {
    if ((await fileByStorage(ctx, blob._id)) !== null || (await taskFileByStorage(ctx, blob._id)) !== null) continue;
    await ctx.storage.delete(blob._id);
    uploads += 1;
  }
  // Grants past their URL's life and the unposted window: their upload, if any, went with the blobs above.
  const oldGrants = await deleteOldGrants(ctx, cutoff, SWEEP_BATCH);
  const last = blobs.at(-1);
  if (last !== undefined) {
    if (state === null) await ctx.db.insert("fileSweeps", { sweptUntil: last._creationTime });
    else await ctx.db.patch("fileSweeps", state._id, { sweptUntil: last._creationTime });
  }
  const more = stale.length === SWEEP_BATCH || staleTaskFiles === SWEEP_BATCH || blobs.length === SWEEP_BATCH || oldGrants === SWEEP_BATCH;
  return { files: stale.length + staleTaskFiles, uploads, more };
}

/** Deletes a department's files (blob and row) uploaded before `before`, a conversation's and then a task's, at most `limit`; returns how many. */
export async function deleteFilesBefore(ctx: MutationCtx, departmentId: Id<"departments">, before: number, limit: number): Promise<number> {
  const old = await ctx.db
    .query("channelFiles")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId).lt("_creationTime", before))
    .take(limit);
  for (const file of old) {
    await ctx.storage.delete(file.storageId);
    await ctx.db.delete("channelFiles", file._id);
  }
  if (old.length === limit) return old.length;
  return old.length + (await deleteTaskFilesBefore(ctx, departmentId, before, limit - old.length));
}
