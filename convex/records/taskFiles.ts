/**
 * Files attached to messages in a task's thread: the record of an upload
 * added to a task (name, type and size from storage, never from the
 * client), which files a thread message may carry (the sender's own, for
 * this task, not attached yet), their download URLs, and their deletion
 * (with their message or task, past retention, or never attached).
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "../lib/errors";
import { nameMatchesFirst } from "../lib/files";
import type { FileArtifact } from "../validators";

/** Most files one thread message carries (as a channel message's artifacts). */
export const MAX_FILES_PER_MESSAGE = 10;

export async function taskFileByStorage(ctx: QueryCtx, storageId: Id<"_storage">): Promise<Doc<"taskFiles"> | null> {
  return await ctx.db
    .query("taskFiles")
    .withIndex("by_storage", (q) => q.eq("storageId", storageId))
    .unique();
}

/** Records a checked upload for its task, not attached yet; returns it as an artifact. */
export async function insertTaskFile(
  ctx: MutationCtx,
  task: Doc<"tasks">,
  uploaderKey: string,
  storageId: Id<"_storage">,
  file: { name: string; contentType: string; size: number },
  text?: string,
): Promise<FileArtifact> {
  await ctx.db.insert("taskFiles", { departmentId: task.departmentId, taskId: task._id, storageId, uploaderKey, ...file, ...(text === undefined ? {} : { text }) });
  return { kind: "file", storageId, ...file };
}

/**
 * A department's files attached to thread messages whose name, then whose
 * text, matches `query`: at most `limit`, name matches first, each once.
 * A file not attached yet is its uploader's draft, not an artifact.
 */
export async function searchAttachedTaskFiles(ctx: QueryCtx, departmentId: Id<"departments">, query: string, limit: number): Promise<Array<Doc<"taskFiles">>> {
  const byName = await ctx.db
    .query("taskFiles")
    .withSearchIndex("search_name", (q) => q.search("name", query).eq("departmentId", departmentId))
    .take(limit);
  const byText = await ctx.db
    .query("taskFiles")
    .withSearchIndex("search_text", (q) => q.search("text", query).eq("departmentId", departmentId))
    .take(limit);
  const attached = (f: Doc<"taskFiles">) => f.messageId !== undefined;
  return nameMatchesFirst(byName.filter(attached), byText.filter(attached), limit);
}

/**
 * The files a thread message may carry: each uploaded for this task by the
 * sender and attached to no message yet, at most MAX_FILES_PER_MESSAGE.
 * Name, type and size come from the record. Anything else is refused,
 * before anything is written.
 */
export async function resolveTaskFiles(
  ctx: QueryCtx,
  task: Doc<"tasks">,
  senderKey: string,
  storageIds: ReadonlyArray<Id<"_storage">>,
): Promise<{ files: FileArtifact[]; rows: Array<Id<"taskFiles">> }> {
  const unique = [...new Set(storageIds)];
  if (unique.length > MAX_FILES_PER_MESSAGE) throw new MaestroError("INVALID_ARGUMENT", `A message carries at most ${MAX_FILES_PER_MESSAGE} files.`);
  const files: FileArtifact[] = [];
  const rows: Array<Id<"taskFiles">> = [];
  for (const storageId of unique) {
    const file = await taskFileByStorage(ctx, storageId);
    if (file === null || file.departmentId !== task.departmentId) throw new MaestroError("NOT_FOUND", "An attached file was not uploaded for this task; upload it here.");
    if (file.taskId !== task._id) throw new MaestroError("FORBIDDEN", "An attached file was uploaded for another task; upload it here.");
    if (file.uploaderKey !== senderKey) throw new MaestroError("FORBIDDEN", "Only its uploader can attach that file.");
    if (file.messageId !== undefined) throw new MaestroError("CONFLICT", "That file is attached to a message already; upload it again to attach it anew.");
    files.push({ kind: "file", storageId, name: file.name, contentType: file.contentType, size: file.size });
    rows.push(file._id);
  }
  return { files, rows };
}

/** The files a message carries are attached now. */
export async function markTaskFilesAttached(ctx: MutationCtx, rows: ReadonlyArray<Id<"taskFiles">>, messageId: Id<"messages">): Promise<void> {
  for (const row of rows) await ctx.db.patch("taskFiles", row, { messageId });
}

/** Download URLs of a thread message's files (none for a file deleted since). */
export async function taskFileUrls(ctx: QueryCtx, message: Doc<"messages">): Promise<Array<{ storageId: Id<"_storage">; url: string | null }>> {
  const out: Array<{ storageId: Id<"_storage">; url: string | null }> = [];
  for (const file of message.files ?? []) out.push({ storageId: file.storageId, url: await ctx.storage.getUrl(file.storageId) });
  return out;
}

async function deleteRows(ctx: MutationCtx, rows: ReadonlyArray<Doc<"taskFiles">>): Promise<number> {
  for (const file of rows) {
    await ctx.storage.delete(file.storageId);
    await ctx.db.delete("taskFiles", file._id);
  }
  return rows.length;
}

/** Deletes the files (blob and row) a thread message carries. */
export async function deleteMessageFiles(ctx: MutationCtx, messageId: Id<"messages">): Promise<number> {
  const rows = await ctx.db
    .query("taskFiles")
    .withIndex("by_message", (q) => q.eq("messageId", messageId))
    .take(MAX_FILES_PER_MESSAGE);
  return await deleteRows(ctx, rows);
}

/** Deletes a task's files (blob and row), at most `limit`; returns how many (`limit` means there may be more). */
export async function deleteTaskFiles(ctx: MutationCtx, taskId: Id<"tasks">, limit: number): Promise<number> {
  return await deleteRows(ctx, await ctx.db.query("taskFiles").withIndex("by_task", (q) => q.eq("taskId", taskId)).take(limit));
}

/** Deletes files added to a task before `before` and never attached to a message, at most `limit`; returns how many. */
export async function deleteUnattachedTaskFiles(ctx: MutationCtx, before: number, limit: number): Promise<number> {
  const stale = await ctx.db
    .query("taskFiles")
    .withIndex("by_message", (q) => q.eq("messageId", undefined).lt("_creationTime", before))
    .take(limit);
  return await deleteRows(ctx, stale);
}

/** Deletes a department's task files (blob and row) uploaded before `before`, at most `limit`; returns how many. */
export async function deleteTaskFilesBefore(ctx: MutationCtx, departmentId: Id<"departments">, before: number, limit: number): Promise<number> {
  return await deleteRows(
    ctx,
    await ctx.db
      .query("taskFiles")
      .withIndex("by_department", (q) => q.eq("departmentId", departmentId).lt("_creationTime", before))
      .take(limit),
  );
}
