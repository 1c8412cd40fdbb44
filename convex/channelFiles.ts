/**
 * Files attached to channel messages, thread replies and DMs. A person asks
 * `channelMessages.generateUploadUrl`, uploads the file to storage, then
 * `channelFiles.add` checks what storage recorded (size limit, content-type
 * allowlist, a text file's content through the secret scanner) and records
 * it for the channel; a refused file's blob is deleted at once. `post` then
 * carries it as a file artifact, and `urls` hands download URLs only to
 * those who can read the message. What is uploaded but never posted within
 * FILE_LIMITS.unpostedTtlMs is deleted by a cron (`sweepUnposted`).
 */
import { v } from "convex/values";
import { internal } from "./_generated/api";
import type { Doc, Id } from "./_generated/dataModel";
import { internalMutation, internalQuery, type MutationCtx, type QueryCtx } from "./_generated/server";
import { channelMembers } from "./channels";
import { channelQuery, requireChannel, userAction } from "./functions";
import { memberKey } from "./lib/actors";
import { canRead, postRefusal } from "./lib/channels";
import { chatSettings } from "./lib/config";
import { MaestroError } from "./lib/errors";
import { baseContentType, cleanFileName, FILE_LIMITS, fileRefusal, isTextType } from "./lib/files";
import { scanUserText } from "./lib/secrets/userText";
import { redactForDepartment } from "./lib/userText";
import { rateLimiter } from "./rateLimits";
import { vFileArtifact, type FileArtifact } from "./validators";

/** Characters scanned at once (the scanner refuses texts past its hard cap); windows overlap so no secret is cut in two. */
const SCAN_WINDOW_CHARS = 200_000;
const SCAN_OVERLAP_CHARS = 4_096;

type Checked =
  | { ok: true; channel: Doc<"channels">; senderKey: string; name: string; contentType: string; size: number }
  | { ok: false; message: string };

/**
 * Whether the caller may add this stored file to this channel: auth errors
 * are thrown (the blob is none of the caller's business); a file storage
 * refuses is returned as `ok: false`, so the caller can delete the blob.
 */
async function checkUpload(ctx: QueryCtx, channelId: Id<"channels">, storageId: Id<"_storage">, rawName: string): Promise<Checked> {
  const { viewer, channel, membership } = await requireChannel(ctx, channelId, "member");
  const refusal = postRefusal(channel, membership !== null);
  if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
  const name = await redactForDepartment(ctx, channel.departmentId, "file name", cleanFileName(rawName));
  const known = await ctx.db
    .query("channelFiles")
    .withIndex("by_storage", (q) => q.eq("storageId", storageId))
    .unique();
  if (known !== null) throw new MaestroError("CONFLICT", "That file was added already.");
  const stored = await ctx.db.system.get("_storage", storageId);
  if (stored === null) throw new MaestroError("NOT_FOUND", "That upload is gone; upload the file again.");
  const message = fileRefusal(stored);
  if (message !== null) return { ok: false, message };
  return { ok: true, channel, senderKey: memberKey(viewer.user._id), name, contentType: baseContentType(stored.contentType), size: stored.size };
}

/** What `add` needs before it reads the blob: the refusal, or the name and whether (and how) to scan the content. */
export const prepareAdd = internalQuery({
  args: { channelId: v.id("channels"), storageId: v.id("_storage"), name: v.string() },
  returns: v.union(
    v.object({ ok: v.literal(false), message: v.string() }),
    v.object({ ok: v.literal(true), scan: v.union(v.null(), v.object({ timeoutMs: v.number() })) }),
  ),
  handler: async (ctx, { channelId, storageId, name }) => {
    const checked = await checkUpload(ctx, channelId, storageId, name);
    if (!checked.ok) return checked;
    const settings = await chatSettings(ctx, checked.channel.departmentId);
    const scan = settings.scannerEnabled && isTextType(checked.contentType) ? { timeoutMs: settings.scannerTimeoutMs } : null;
    return { ok: true as const, scan };
  },
});

/** Records a checked file for its channel (checked again: the world may have moved since `prepareAdd`). */
export const recordFile = internalMutation({
  args: { channelId: v.id("channels"), storageId: v.id("_storage"), name: v.string() },
  returns: v.union(v.object({ ok: v.literal(false), message: v.string() }), v.object({ ok: v.literal(true), artifact: vFileArtifact })),
  handler: async (ctx, { channelId, storageId, name }) => {
    const checked = await checkUpload(ctx, channelId, storageId, name);
    if (!checked.ok) return checked;
    const limit = await rateLimiter.limit(ctx, "fileUpload", { key: checked.senderKey });
    if (!limit.ok) throw new MaestroError("RATE_LIMITED", `Too many files: try again in ${Math.max(1, Math.ceil(limit.retryAfter / 1000))} s.`);
    const { channel, senderKey, contentType, size } = checked;
    await ctx.db.insert("channelFiles", {
      departmentId: channel.departmentId,
      channelId,
      storageId,
      uploaderKey: senderKey,
      name: checked.name,
      contentType,
      size,
    });
    return { ok: true as const, artifact: { kind: "file" as const, storageId, name: checked.name, contentType, size } };
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
  handler: async (ctx, args): Promise<FileArtifact> => {
    const refuse = async (message: string): Promise<never> => {
      await ctx.storage.delete(args.storageId);
      throw new MaestroError("INVALID_ARGUMENT", message);
    };
    const prepared = await ctx.runQuery(internal.channelFiles.prepareAdd, args);
    if (!prepared.ok) return await refuse(prepared.message);
    if (prepared.scan !== null) {
      const blob = await ctx.storage.get(args.storageId);
      if (blob === null) throw new MaestroError("NOT_FOUND", "That upload is gone; upload the file again.");
      if (blob.size <= FILE_LIMITS.scanTextBytes && holdsSecret(await blob.text(), prepared.scan.timeoutMs)) {
        return await refuse("The file looks like it holds a secret (a key, token or password): remove it and upload the file again.");
      }
    }
    const recorded = await ctx.runMutation(internal.channelFiles.recordFile, args);
    if (!recorded.ok) return await refuse(recorded.message);
    return recorded.artifact;
  },
});

/** True when the secret scanner finds anything in `text` (scanned in overlapping windows). */
export function holdsSecret(text: string, timeoutMs: number): boolean {
  for (let start = 0; start < text.length; start += SCAN_WINDOW_CHARS) {
    const window = text.slice(start, start + SCAN_WINDOW_CHARS + SCAN_OVERLAP_CHARS);
    if (scanUserText(window, { maxChars: window.length, enabled: true, timeoutMs, source: "file" }).redacted) return true;
  }
  return false;
}

/**
 * The file artifact a post may carry: a file added to this conversation by
 * the sender and not posted yet, or one already posted in a conversation the
 * sender can read (forwarding). Name, type and size come from the record,
 * never from the client. Returns the artifact and, for a new file, its row to
 * mark as posted.
 */
export async function resolveFileArtifact(
  ctx: MutationCtx,
  channel: Doc<"channels">,
  senderKey: string,
  storageId: Id<"_storage">,
): Promise<{ artifact: FileArtifact; attach: Id<"channelFiles"> | null }> {
  const file = await ctx.db
    .query("channelFiles")
    .withIndex("by_storage", (q) => q.eq("storageId", storageId))
    .unique();
  if (file === null || file.departmentId !== channel.departmentId) throw new MaestroError("NOT_FOUND", "An attached file is not in this department.");
  const artifact: FileArtifact = { kind: "file", storageId, name: file.name, contentType: file.contentType, size: file.size };
  if (file.messageId === undefined) {
    if (file.uploaderKey !== senderKey || file.channelId !== channel._id) throw new MaestroError("FORBIDDEN", "Only its uploader can post that file, where it was uploaded.");
    return { artifact, attach: file._id };
  }
  if (file.channelId !== channel._id) {
    const source = await ctx.db.get("channels", file.channelId);
    const members = source === null ? [] : await channelMembers(ctx, source._id);
    if (source === null || !canRead(source, members.some((m) => m.key === senderKey))) {
      throw new MaestroError("FORBIDDEN", "That file is in a conversation you cannot read.");
    }
  }
  return { artifact, attach: null };
}

/** Download URLs of a message's files, for those who can read the message. */
export const urls = channelQuery({
  args: { messageId: v.id("channelMessages") },
  returns: v.array(v.object({ storageId: v.id("_storage"), url: v.union(v.string(), v.null()) })),
  handler: async (ctx, { messageId }) => {
    const message = await ctx.db.get("channelMessages", messageId);
    if (message === null || message.channelId !== ctx.channel._id) throw new MaestroError("NOT_FOUND", "That message is not in this channel.");
    const out: Array<{ storageId: Id<"_storage">; url: string | null }> = [];
    for (const artifact of message.artifacts) {
      if (artifact.kind !== "file") continue;
      out.push({ storageId: artifact.storageId, url: await ctx.storage.getUrl(artifact.storageId) });
    }
    return out;
  },
});

/** Rows and blobs one sweep pass handles; a fuller backlog schedules the next pass at once. */
export const SWEEP_BATCH = 100;

/**
 * Deletes what was uploaded but never posted within FILE_LIMITS.unpostedTtlMs
 * (convex/crons.ts): files added to a conversation whose message was never
 * sent (row and blob), and uploads never added at all (the blob; every blob
 * in storage belongs to a channel file, so one without a row is abandoned).
 * Uploads are walked by upload time from where the last pass stopped, so a
 * pass reads only what aged past the window since.
 */
export const sweepUnposted = internalMutation({
  args: {},
  returns: v.object({ files: v.number(), uploads: v.number() }),
  handler: async (ctx) => {
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
      const file = await ctx.db
        .query("channelFiles")
        .withIndex("by_storage", (q) => q.eq("storageId", blob._id))
        .unique();
      if (file !== null) continue;
      await ctx.storage.delete(blob._id);
      uploads += 1;
    }
    const last = blobs.at(-1);
    if (last !== undefined) {
      if (state === null) await ctx.db.insert("fileSweeps", { sweptUntil: last._creationTime });
      else await ctx.db.patch("fileSweeps", state._id, { sweptUntil: last._creationTime });
    }
    if (stale.length === SWEEP_BATCH || blobs.length === SWEEP_BATCH) await ctx.scheduler.runAfter(0, internal.channelFiles.sweepUnposted, {});
    return { files: stale.length, uploads };
  },
});
