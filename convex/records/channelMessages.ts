/**
 * Messages in channels, threads and DMs, with the spec's contract: from,
 * to (DMs), type, body, mentions, artifacts, importance, blocking,
 * correlation id and context. The rows and their reads; posting one (checks,
 * then delivery to inboxes and wake-ups) is reactions/delivery.ts.
 */
import type { PaginationOptions } from "convex/server";
import { v } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { actorKey } from "../lib/actors";
import { cleanUrl, CHANNEL_LIMITS } from "../lib/channels";
import { MaestroError } from "../lib/errors";
import { LIMITS, MAX_THREAD_REPLIES } from "../lib/limits";
import { cleanText } from "../lib/validate";
import schema from "../schema";
import type { Artifact } from "../validators";
import { resolveFileArtifact } from "./channelFiles";
import { mayRead } from "./channels";
import { mentionsIn } from "./messages";
import { redactForDepartment } from "./settings";
import { forgetInboxRows } from "./inbox";

type ReadCtx = QueryCtx | MutationCtx;

/** Own posts of an agent looked at, newest first, to tell whether it already answered during a run. */
const OWN_POST_SCAN = 20;

/** A message as clients and agents read it: the stored message without its department. */
export const vChannelMessage = schema.tables.channelMessages.validator
  .omit("departmentId")
  .extend({ _id: v.id("channelMessages"), _creationTime: v.number() });

export function publicMessage(m: Doc<"channelMessages">) {
  const { departmentId: _department, ...rest } = m;
  return rest;
}

/**
 * A post's artifacts checked against the conversation and the sender: tasks
 * of the department, files the sender may attach (records/channelFiles), and
 * http(s) links. Returns them as stored, with the new files to mark posted.
 */
export async function checkArtifacts(
  ctx: MutationCtx,
  channel: Doc<"channels">,
  senderKey: string,
  artifacts: readonly Artifact[],
): Promise<{ artifacts: Artifact[]; attach: Array<Id<"channelFiles">> }> {
  if (artifacts.length > CHANNEL_LIMITS.artifactsPerMessage) {
    throw new MaestroError("INVALID_ARGUMENT", `A message carries at most ${CHANNEL_LIMITS.artifactsPerMessage} artifacts.`);
  }
  const out: Artifact[] = [];
  const attach: Array<Id<"channelFiles">> = [];
  const files = new Set<string>();
  for (const artifact of artifacts) {
    if (artifact.kind === "task") {
      const task = await ctx.db.get("tasks", artifact.taskId);
      if (task === null || task.departmentId !== channel.departmentId) throw new MaestroError("NOT_FOUND", "A linked task is not in this department.");
      out.push(artifact);
    } else if (artifact.kind === "file") {
      if (files.has(artifact.storageId)) continue;
      files.add(artifact.storageId);
      const resolved = await resolveFileArtifact(ctx, channel, senderKey, artifact.storageId);
      out.push(resolved.artifact);
      if (resolved.attach !== null) attach.push(resolved.attach);
    } else {
      const title = artifact.title === undefined ? undefined : cleanText("A link title", artifact.title, 200, { allowEmpty: true });
      out.push({ kind: "link", url: cleanUrl(artifact.url), ...(title ? { title } : {}) });
    }
  }
  return { artifacts: out, attach };
}

/** Inserts a message row as checked by the poster. */
export async function insertChannelMessage(ctx: MutationCtx, row: Omit<Doc<"channelMessages">, "_id" | "_creationTime">): Promise<Id<"channelMessages">> {
  return await ctx.db.insert("channelMessages", row);
}

/** Edits a message's body (checked and scanned as when posted, mentions resolved again). */
export async function editChannelMessage(ctx: MutationCtx, message: Doc<"channelMessages">, rawBody: string): Promise<void> {
  const body = await redactForDepartment(ctx, message.departmentId, "message", cleanText("A message", rawBody, LIMITS.messageChars));
  const mentions = await mentionsIn(ctx, message.departmentId, body);
  await ctx.db.patch("channelMessages", message._id, { body, mentions, editedAt: Date.now() });
}

/** Deletes a message's text and attachments for everyone; the row stays so its thread and inbox rows stay whole. */
export async function eraseChannelMessage(ctx: MutationCtx, messageId: Id<"channelMessages">): Promise<void> {
  await ctx.db.patch("channelMessages", messageId, { body: "", mentions: [], artifacts: [], deletedAt: Date.now() });
}

/** A reply joined `root`'s thread; true when it was the thread's first reply (the thread was created). */
export async function countReply(ctx: MutationCtx, root: Doc<"channelMessages">, at: number): Promise<boolean> {
  await ctx.db.patch("channelMessages", root._id, { replyCount: root.replyCount + 1, lastReplyAt: at });
  return root.replyCount === 0;
}

/** A thread's replies, oldest first, bounded (one more than shown, to tell there are more). */
export async function threadReplies(ctx: ReadCtx, rootId: Id<"channelMessages">, limit = MAX_THREAD_REPLIES): Promise<Array<Doc<"channelMessages">>> {
  return await ctx.db
    .query("channelMessages")
    .withIndex("by_thread", (q) => q.eq("threadRootId", rootId))
    .take(limit);
}

/** A thread's first message and its replies as clients read them. */
export async function threadView(ctx: ReadCtx, root: Doc<"channelMessages">) {
  const replies = await threadReplies(ctx, root._id, MAX_THREAD_REPLIES + 1);
  return { root: publicMessage(root), replies: replies.slice(0, MAX_THREAD_REPLIES).map(publicMessage), more: replies.length > MAX_THREAD_REPLIES };
}

/** Everyone who has written in the thread of `root`, by key. */
export async function threadParticipants(ctx: ReadCtx, root: Doc<"channelMessages">): Promise<string[]> {
  const replies = await threadReplies(ctx, root._id);
  return [...new Set([root, ...replies].map((m) => actorKey(m.from)).filter((k): k is string => k !== null))];
}

/** The first message of the thread `message` is in (itself for a top-level message), or null when it is gone. */
export async function threadRootOf(ctx: ReadCtx, message: Doc<"channelMessages">): Promise<Doc<"channelMessages"> | null> {
  return message.threadRootId === undefined ? message : await ctx.db.get("channelMessages", message.threadRootId);
}

/** One page of a conversation's top-level messages, newest first. */
export async function historyPage(ctx: QueryCtx, channelId: Id<"channels">, paginationOpts: PaginationOptions) {
  return await ctx.db
    .query("channelMessages")
    .withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId).eq("threadRootId", undefined))
    .order("desc")
    .paginate(paginationOpts);
}

/** A conversation's newest top-level messages after `since`, oldest first. */
export async function recentTopLevel(ctx: ReadCtx, channelId: Id<"channels">, since: number, limit: number): Promise<Array<Doc<"channelMessages">>> {
  const rows = await ctx.db
    .query("channelMessages")
    // Every index ends with _creationTime, so `since` is a range on it, not a filter.
    .withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId).eq("threadRootId", undefined).gt("_creationTime", since))
    .order("desc")
    .take(limit);
  return rows.reverse();
}

/** Where a page of a conversation starts: after a message (exclusive, its exact `_creationTime`), or at a whole millisecond (inclusive). */
export type PageStart = { after: number } | { atOrAfter: number };

/**
 * A page of a conversation's top-level messages, oldest first: from `start`
 * on, at most `limit`, with `more` when others follow; without a start, its
 * newest `limit` (nothing follows them). Paging on from the last message of
 * each page reads every message once, however many share a millisecond.
 */
export async function topLevelPage(
  ctx: ReadCtx,
  channelId: Id<"channels">,
  start: PageStart | null,
  limit: number,
): Promise<{ messages: Array<Doc<"channelMessages">>; more: boolean }> {
  if (start === null) return { messages: await recentTopLevel(ctx, channelId, 0, limit), more: false };
  const rows = await ctx.db
    .query("channelMessages")
    .withIndex("by_channel_and_thread", (q) => {
      const top = q.eq("channelId", channelId).eq("threadRootId", undefined);
      return "after" in start ? top.gt("_creationTime", start.after) : top.gte("_creationTime", start.atOrAfter);
    })
    .take(limit + 1);
  return { messages: rows.slice(0, limit), more: rows.length > limit };
}

/** The department's newest messages, newest first. */
export async function recentInDepartment(ctx: ReadCtx, departmentId: Id<"departments">, limit: number): Promise<Array<Doc<"channelMessages">>> {
  return await ctx.db
    .query("channelMessages")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .order("desc")
    .take(limit);
}

/** A message of the department in a conversation `key` may read, by an id a model or a client sent. */
export async function readableMessageX(ctx: ReadCtx, departmentId: Id<"departments">, key: string, messageId: string): Promise<Doc<"channelMessages">> {
  const id = ctx.db.normalizeId("channelMessages", messageId.trim());
  const message = id === null ? null : await ctx.db.get("channelMessages", id);
  if (message === null || message.departmentId !== departmentId) throw new MaestroError("NOT_FOUND", `No message ${messageId}.`);
  const channel = (await ctx.db.get("channels", message.channelId))!;
  if (!(await mayRead(ctx, channel, key))) throw new MaestroError("FORBIDDEN", "You cannot read that conversation.");
  return message;
}

/** Whether `senderKey` posted at the top of `channelId` or in `threadRootId`'s thread after `since`. */
export async function postedSince(ctx: ReadCtx, senderKey: string, channelId: Id<"channels">, threadRootId: Id<"channelMessages"> | undefined, since: number): Promise<boolean> {
  const recent = [
    ...(await ctx.db
      .query("channelMessages")
      .withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId).eq("threadRootId", undefined).gt("_creationTime", since))
      .order("desc")
      .take(OWN_POST_SCAN)),
    ...(threadRootId === undefined
      ? []
      : await ctx.db
          .query("channelMessages")
          .withIndex("by_thread", (q) => q.eq("threadRootId", threadRootId).gt("_creationTime", since))
          .order("desc")
          .take(OWN_POST_SCAN)),
  ];
  return recent.some((m) => actorKey(m.from) === senderKey);
}

/** Replies one retention step deletes with their thread; a longer thread is finished by the next pass. */
const MAX_REPLIES_DELETED = 500;

/**
 * Deletes a top-level message and its thread (the replies and everyone's
 * inbox rows for them). Returns whether the whole thread is gone; with more
 * replies than one step deletes, the root stays for the next pass.
 */
export async function deleteThread(ctx: MutationCtx, root: Doc<"channelMessages">): Promise<boolean> {
  const replies = await ctx.db
    .query("channelMessages")
    .withIndex("by_thread", (q) => q.eq("threadRootId", root._id))
    .take(MAX_REPLIES_DELETED + 1);
  for (const reply of replies.slice(0, MAX_REPLIES_DELETED)) {
    await forgetInboxRows(ctx, reply._id);
    await ctx.db.delete("channelMessages", reply._id);
  }
  if (replies.length > MAX_REPLIES_DELETED) return false;
  await forgetInboxRows(ctx, root._id);
  await ctx.db.delete("channelMessages", root._id);
  return true;
}

/** A conversation's oldest top-level messages posted before `before`, at most `limit`. */
export async function topLevelBefore(ctx: QueryCtx, channelId: Id<"channels">, before: number, limit: number): Promise<Array<Doc<"channelMessages">>> {
  return await ctx.db
    .query("channelMessages")
    .withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId).eq("threadRootId", undefined).lt("_creationTime", before))
    .take(limit);
}

/** A conversation's top-level messages beyond its newest `keep`, oldest of them first, at most `limit`. */
export async function topLevelBeyond(ctx: QueryCtx, channelId: Id<"channels">, keep: number, limit: number): Promise<Array<Doc<"channelMessages">>> {
  const newest = await ctx.db
    .query("channelMessages")
    .withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId).eq("threadRootId", undefined))
    .order("desc")
    .take(keep + limit);
  return newest.slice(keep).reverse();
}
