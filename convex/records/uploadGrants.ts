/**
 * Upload grants: the single-use, expiring token an upload URL carries, for
 * one person and one place (a conversation, or a task's thread), and the
 * checks every added upload goes through whatever the place: the upload
 * was made through the caller's own grant for that place, and storage's
 * record of it (size, type) is allowed. Channel files (records/channelFiles)
 * and task files (records/taskFiles) both build on these.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "../lib/errors";
import { baseContentType, cleanFileName, FILE_LIMITS, fileRefusal, isTextType } from "../lib/files";
import { sha256Hex } from "../lib/sha256";
import { chatSettings, redactForDepartment } from "./settings";

/** Where a grant's upload may be added: one conversation, or one task's thread. */
export type UploadPlace = { departmentId: Id<"departments"> } & ({ channelId: Id<"channels">; taskId?: never } | { taskId: Id<"tasks">; channelId?: never });

/** A fresh upload grant for `userId` at `place`; returns the token its URL carries (only its hash is kept). */
export async function issueUploadGrant(ctx: MutationCtx, place: UploadPlace, userId: Id<"users">): Promise<string> {
  const token = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
  await ctx.db.insert("uploadGrants", {
    departmentId: place.departmentId,
    ...(place.channelId !== undefined ? { channelId: place.channelId } : { taskId: place.taskId }),
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
 * upload URL for this place (another person's upload, another
 * conversation's or task's, or a blob that came any other way). Thrown, so
 * the blob, none of the caller's business, is left alone.
 */
export async function requireOwnUpload(ctx: QueryCtx, storageId: Id<"_storage">, userId: Id<"users">, place: UploadPlace): Promise<void> {
  const grant = await ctx.db
    .query("uploadGrants")
    .withIndex("by_storage", (q) => q.eq("storageId", storageId))
    .unique();
  if (grant === null || grant.userId !== userId || grant.channelId !== place.channelId || grant.taskId !== place.taskId) {
    const where = place.taskId !== undefined ? "this task" : "this conversation";
    throw new MaestroError("FORBIDDEN", `That upload was not made by you for ${where}; upload the file here.`);
  }
}

export type CheckedUpload = { ok: true; name: string; contentType: string; size: number } | { ok: false; message: string };

/**
 * Whether a stored upload not added anywhere yet may be added in
 * `departmentId`: a blob that is gone is an error; one storage refuses
 * (size, type) comes back as `ok: false`, so the caller can delete the blob.
 * The name is cleaned and secret-scanned; type and size are storage's.
 */
export async function checkStoredUpload(ctx: QueryCtx, departmentId: Id<"departments">, storageId: Id<"_storage">, rawName: string): Promise<CheckedUpload> {
  const name = await redactForDepartment(ctx, departmentId, "file name", cleanFileName(rawName));
  const stored = await ctx.db.system.get("_storage", storageId);
  if (stored === null) throw new MaestroError("NOT_FOUND", "That upload is gone; upload the file again.");
  const message = fileRefusal(stored);
  if (message !== null) return { ok: false, message };
  return { ok: true, name, contentType: baseContentType(stored.contentType), size: stored.size };
}

/** Grants past their URL's life and the unposted window, at most `limit`, deleted (their upload, if any, is swept with the blobs); returns how many. */
export async function deleteOldGrants(ctx: MutationCtx, before: number, limit: number): Promise<number> {
  const old = await ctx.db
    .query("uploadGrants")
    .withIndex("by_expiry", (q) => q.lt("expiresAt", before))
    .take(limit);
  for (const grant of old) await ctx.db.delete("uploadGrants", grant._id);
  return old.length;
}

/** How `addUpload` (lib/uploads) treats a checked file: whether it is text, and whether the department scans text files for secrets. */
export async function uploadScanPlan(ctx: QueryCtx, departmentId: Id<"departments">, contentType: string): Promise<{ ok: true; text: boolean; scan: null | { timeoutMs: number } }> {
  const settings = await chatSettings(ctx, departmentId);
  const text = isTextType(contentType);
  return { ok: true, scan: settings.scannerEnabled && text ? { timeoutMs: settings.scannerTimeoutMs } : null, text };
}
