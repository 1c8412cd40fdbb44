/**
 * Files attached to channel messages, thread replies and DMs: the upload
 * grants that bind an upload to the person and conversation it was asked
 * for, the record of an upload added to a conversation (name, type and size
 * from storage, never from the client), whether a post may carry it, and
 * what a sweep of never-posted uploads finds.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "../lib/errors";
import { baseContentType, cleanFileName, FILE_LIMITS, fileRefusal } from "../lib/files";
import { sha256Hex } from "../lib/sha256";
import type { FileArtifact } from "../validators";
import { mayRead } from "./channels";
import { redactForDepartment } from "./settings";

/** Rows and blobs one sweep pass handles; a fuller backlog schedules the next pass at once. */
export const SWEEP_BATCH = 100;

/** A fresh upload grant for `userId` in `channel`; returns the token its URL carries (only its hash is kept). */
export async function issueUploadGrant(ctx: MutationCtx, channel: Doc<"channels">, userId: Id<"users">): Promise<string> {
  const token = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
  await ctx.db.insert("uploadGrants", {
    departmentId: channel.departmentId,
    channelId: channel._id,
    userId,
    tokenHash: sha256Hex(token),
    expiresAt: Date.now() + FILE_LIMITS.uploadUrlTtlMs,
  });
  return token;
}

/** The grant a token names while it may still take an upload (not expired, not used), else null. */
export async function openUploadGrant(ctx: QueryCtx, token: string, now: number): Promise<Doc<"uploadGrants"> | null> {
  const grant = await ctx.db
    .query("uploadGrants")
    .withIndex("by_token", (q) => q.eq("tokenHash", sha256Hex(token)))
    .unique();
  return grant === null || grant.storageId !== undefined || grant.expiresAt <= now ? null : grant;
}

/** Binds the uploaded blob to its grant; false when the grant was used or expired meanwhile (the caller deletes the blob). */
export async function claimUploadGrant(ctx: MutationCtx, token: string, storageId: Id<"_storage">): Promise<boolean> {
  const grant = await openUploadGrant(ctx, token, Date.now());
  if (grant === null) return false;
  await ctx.db.patch("uploadGrants", grant._id, { storageId });
  return true;
}

/**
 * Refuses a storage id that the caller did not upload through their own
 * upload URL for this conversation (another person's upload, another
 * conversation's, or a blob that came any other way). Thrown, so the blob,
 * none of the caller's business, is left alone.
 */
export async function requireOwnUpload(ctx: QueryCtx, storageId: Id<"_storage">, userId: Id<"users">, channelId: Id<"channels">): Promise<void> {
  const grant = await ctx.db
    .query("uploadGrants")
    .withIndex("by_storage", (q) => q.eq("storageId", storageId))
    .unique();
  if (grant === null || grant.userId !== userId || grant.channelId !== channelId) {
    throw new MaestroError("FORBIDDEN", "That upload was not made by you for this conversation; upload the file here.");
  }
}

export type CheckedUpload = { ok: true; name: string; contentType: string; size: number } | { ok: false; message: string };

/**
 * Whether this stored file may be added to `channel`: a file added already
 * or gone is an error; one storage refuses (size, type) comes back as
 * `ok: false`, so the caller can delete the blob.
 */
export async function checkUpload(ctx: QueryCtx, channel: Doc<"channels">, storageId: Id<"_storage">, rawName: string): Promise<CheckedUpload> {
  const name = await redactForDepartment(ctx, channel.departmentId, "file name", cleanFileName(rawName));
  const known = await fileByStorage(ctx, storageId);
  if (known !== null) throw new MaestroError("CONFLICT", "That file was added already.");
  const stored = await ctx.db.system.get("_storage", storageId);
  if (stored === null) throw new MaestroError("NOT_FOUND", "That upload is gone; upload the file again.");
  const message = fileRefusal(stored);
  if (message !== null) return { ok: false, message };
  return { ok: true, name, contentType: baseContentType(stored.contentType), size: stored.size };
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

/** Characters of a text file kept for search. */
export const SEARCHED_TEXT_CHARS = 20_000;

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
  const seen = new Set<string>();
  return [...byName, ...byText].filter((f) => !seen.has(f._id) && seen.add(f._id) !== undefined).slice(0, limit);
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
 * files added to a conversation whose message was never sent (row and blob),
 * and uploads never added at all (the blob; every blob in storage belongs to
 * a channel file, so one without a row is abandoned). Uploads are walked by
 * upload time from where the last pass stopped, so a pass reads only what
 * aged past the window since. Returns the counts and whether more is left.
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
  const state = await ctx.db.query("fileSweeps").first();
  const after = state?.sweptUntil ?? 0;
  const blobs = await ctx.db.system
    .query("_storage")
    .withIndex("by_creation_time", (q) => q.gt("_creationTime", after).lt("_creationTime", cutoff))
    .take(SWEEP_BATCH);
  let uploads = 0;
  for (const blob of blobs) {
    if ((await fileByStorage(ctx, blob._id)) !== null) continue;
    await ctx.storage.delete(blob._id);
    uploads += 1;
  }
  // Grants past their URL's life and the unposted window: their upload, if any, went with the blobs above.
  const oldGrants = await ctx.db
    .query("uploadGrants")
    .withIndex("by_expiry", (q) => q.lt("expiresAt", cutoff))
    .take(SWEEP_BATCH);
  for (const grant of oldGrants) await ctx.db.delete("uploadGrants", grant._id);
  const last = blobs.at(-1);
  if (last !== undefined) {
    if (state === null) await ctx.db.insert("fileSweeps", { sweptUntil: last._creationTime });
    else await ctx.db.patch("fileSweeps", state._id, { sweptUntil: last._creationTime });
  }
  return { files: stale.length, uploads, more: stale.length === SWEEP_BATCH || blobs.length === SWEEP_BATCH || oldGrants.length === SWEEP_BATCH };
}

/** Deletes a department's files (blob and row) uploaded before `before`, at most `limit`; returns how many. */
export async function deleteFilesBefore(ctx: MutationCtx, departmentId: Id<"departments">, before: number, limit: number): Promise<number> {
  const old = await ctx.db
    .query("channelFiles")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId).lt("_creationTime", before))
    .take(limit);
  for (const file of old) {
    await ctx.storage.delete(file.storageId);
    await ctx.db.delete("channelFiles", file._id);
  }
  return old.length;
}
