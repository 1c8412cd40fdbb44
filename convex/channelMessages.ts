/**
 * Messages in channels, threads and DMs, with the spec's contract: from,
 * to (DMs), type, body (markdown, size-limited, secret-scanned), mentions,
 * artifacts, importance, blocking, correlation id and context. Posting
 * delivers to inboxes (lib/channels recipientsOf) and logs events.
 */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import type { MutationCtx } from "./_generated/server";
import { resolveFileArtifact } from "./channelFiles";
import { channelMembers } from "./channels";
import { channelMutation, channelQuery } from "./functions";
import { memberActor, memberKey } from "./lib/actors";
import { CHANNEL_LIMITS, cleanUrl, postRefusal, recipientsOf } from "./lib/channels";
import { MaestroError } from "./lib/errors";
import { emitEvent } from "./lib/events";
import { LIMITS } from "./lib/limits";
import { redactForDepartment } from "./lib/userText";
import { checkPageSize, cleanText } from "./lib/validate";
import { mentionsIn } from "./messages";
import { rateLimiter } from "./rateLimits";
import { deliverBlocking } from "./wakeups";
import { vActor, vArtifact, vImportance, vMention, vMessageContext, vMessageType, type Actor, type Artifact, type Importance } from "./validators";

/** Replies a thread view shows, oldest first. */
export const MAX_THREAD_REPLIES = 200;

export const vChannelMessage = v.object({
  _id: v.id("channelMessages"),
  _creationTime: v.number(),
  channelId: v.id("channels"),
  type: vMessageType,
  threadRootId: v.optional(v.id("channelMessages")),
  from: vActor,
  to: v.optional(v.array(v.string())),
  body: v.string(),
  mentions: v.array(vMention),
  artifacts: v.array(vArtifact),
  importance: vImportance,
  blocking: v.boolean(),
  correlationId: v.optional(v.string()),
  context: vMessageContext,
  replyCount: v.number(),
  lastReplyAt: v.optional(v.number()),
});

export function publicMessage(m: Doc<"channelMessages">) {
  const { departmentId: _department, ...rest } = m;
  return rest;
}

export interface PostInput {
  channel: Doc<"channels">;
  from: Actor;
  /** The sender's key (agent sessionKey or member:<userId>). */
  senderKey: string;
  body: string;
  threadRoot?: Doc<"channelMessages">;
  artifacts?: Artifact[];
  importance?: Importance;
  blocking?: boolean;
  correlationId?: string;
  context?: { taskId?: Id<"tasks">; batchId?: Id<"tasks"> };
}

async function checkArtifacts(
  ctx: MutationCtx,
  channel: Doc<"channels">,
  senderKey: string,
  artifacts: Artifact[],
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

/**
 * Posts a message (top-level, thread reply or DM) and delivers it: every
 * check happens before the first write, so a refused post changes nothing.
 */
export async function postChannelMessage(ctx: MutationCtx, input: PostInput): Promise<Id<"channelMessages">> {
  const { channel } = input;
  const members = await channelMembers(ctx, channel._id);
  const refusal = postRefusal(channel, members.some((m) => m.key === input.senderKey));
  if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
  const limit = await rateLimiter.limit(ctx, "messagePost", { key: input.senderKey });
  if (!limit.ok) {
    throw new MaestroError("RATE_LIMITED", `Too many messages: try again in ${Math.max(1, Math.ceil(limit.retryAfter / 1000))} s.`);
  }
  const body = await redactForDepartment(ctx, channel.departmentId, "message", cleanText("A message", input.body, LIMITS.messageChars));
  const { artifacts, attach } = await checkArtifacts(ctx, channel, input.senderKey, input.artifacts ?? []);
  for (const id of [input.context?.taskId, input.context?.batchId]) {
    if (id === undefined) continue;
    const task = await ctx.db.get("tasks", id);
    if (task === null || task.departmentId !== channel.departmentId) throw new MaestroError("NOT_FOUND", "The message's task is not in this department.");
  }
  const mentions = await mentionsIn(ctx, channel.departmentId, body);

  const root = input.threadRoot;
  const type = channel.kind === "dm" ? "dm" : root !== undefined ? "thread" : "channel";
  let threadParticipants: string[] | undefined;
  if (root !== undefined) {
    const replies = await ctx.db
      .query("channelMessages")
      .withIndex("by_thread", (q) => q.eq("threadRootId", root._id))
      .take(MAX_THREAD_REPLIES);
    threadParticipants = [...new Set([root, ...replies].map((m) => senderKeyOf(m.from)).filter((k): k is string => k !== null))];
  }
  const recipients = recipientsOf({
    sender: input.senderKey,
    kind: channel.kind,
    visibility: channel.visibility,
    members,
    mentioned: mentions.map((m) => m.key),
    threadParticipants,
  });
  const now = Date.now();
  const messageId = await ctx.db.insert("channelMessages", {
    departmentId: channel.departmentId,
    channelId: channel._id,
    type,
    threadRootId: root?._id,
    from: input.from,
    to: channel.kind === "dm" ? members.map((m) => m.key).filter((k) => k !== input.senderKey) : undefined,
    body,
    mentions,
    artifacts,
    importance: input.importance ?? "normal",
    blocking: input.blocking ?? false,
    correlationId: input.correlationId,
    context: input.context ?? {},
    replyCount: 0,
  });
  if (root !== undefined) {
    await ctx.db.patch("channelMessages", root._id, { replyCount: root.replyCount + 1, lastReplyAt: now });
    if (root.replyCount === 0) {
      await emitEvent(ctx, { departmentId: channel.departmentId, type: "messaging.thread_created", actor: input.from, channelId: channel._id, messageId: root._id });
    }
  }
  for (const fileId of attach) await ctx.db.patch("channelFiles", fileId, { messageId });
  await ctx.db.patch("channels", channel._id, { lastMessageAt: now });
  for (const r of recipients) {
    await ctx.db.insert("inbox", {
      departmentId: channel.departmentId,
      recipientKey: r.key,
      channelId: channel._id,
      messageId,
      importance: input.importance ?? "normal",
      blocking: input.blocking ?? false,
      direct: r.direct,
    });
  }
  // A blocking message wakes the agents it is addressed to, or reaches their next model call (wakeups.ts).
  if (input.blocking === true) await deliverBlocking(ctx, messageId, recipients);
  await emitEvent(ctx, {
    departmentId: channel.departmentId,
    type: "messaging.posted",
    actor: input.from,
    channelId: channel._id,
    messageId,
    correlationId: input.correlationId,
    data: { type, importance: input.importance ?? "normal", blocking: input.blocking ?? false, chars: body.length, recipients: recipients.length },
  });
  return messageId;
}

/** The inbox/membership key of whoever sent a message (system messages have none). */
export function senderKeyOf(from: Actor): string | null {
  if (from.kind === "member") return memberKey(from.userId);
  if (from.kind === "agent") return from.sessionKey;
  return null;
}

const vPostArgs = {
  body: v.string(),
  artifacts: v.optional(v.array(vArtifact)),
  importance: v.optional(vImportance),
  blocking: v.optional(v.boolean()),
  taskId: v.optional(v.id("tasks")),
};

/** Posts in a channel or DM as the signed-in member. */
export const post = channelMutation({
  args: vPostArgs,
  returns: v.id("channelMessages"),
  handler: async (ctx, { body, artifacts, importance, blocking, taskId }) => {
    return await postChannelMessage(ctx, {
      channel: ctx.channel,
      from: memberActor(ctx.member),
      senderKey: memberKey(ctx.member.userId),
      body,
      artifacts,
      importance,
      blocking,
      context: taskId === undefined ? undefined : { taskId },
    });
  },
});

/** Replies in the thread of a channel message (a reply to a reply joins the same thread). */
export const reply = channelMutation({
  args: { ...vPostArgs, messageId: v.id("channelMessages") },
  returns: v.id("channelMessages"),
  handler: async (ctx, { messageId, body, artifacts, importance, blocking, taskId }) => {
    const target = await ctx.db.get("channelMessages", messageId);
    if (target === null || target.channelId !== ctx.channel._id) throw new MaestroError("NOT_FOUND", "That message is not in this channel.");
    const root = target.threadRootId === undefined ? target : await ctx.db.get("channelMessages", target.threadRootId);
    if (root === null) throw new MaestroError("NOT_FOUND", "The thread's first message is gone.");
    return await postChannelMessage(ctx, {
      channel: ctx.channel,
      from: memberActor(ctx.member),
      senderKey: memberKey(ctx.member.userId),
      body,
      threadRoot: root,
      artifacts,
      importance,
      blocking,
      context: taskId === undefined ? undefined : { taskId },
    });
  },
});

/**
 * An upload URL for a file to attach here (then `channelFiles.add`): for
 * those who may post in the conversation, rate limited per person.
 */
export const generateUploadUrl = channelMutation({
  args: {},
  returns: v.string(),
  handler: async (ctx) => {
    const refusal = postRefusal(ctx.channel, ctx.membership !== null);
    if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
    const limit = await rateLimiter.limit(ctx, "fileUpload", { key: memberKey(ctx.member.userId) });
    if (!limit.ok) throw new MaestroError("RATE_LIMITED", `Too many uploads: try again in ${Math.max(1, Math.ceil(limit.retryAfter / 1000))} s.`);
    return await ctx.storage.generateUploadUrl();
  },
});

/** A channel's top-level messages (or a DM's), newest first, a page at a time. */
export const history = channelQuery({
  args: { paginationOpts: paginationOptsValidator },
  returns: paginationResultValidator(vChannelMessage),
  handler: async (ctx, { channelId, paginationOpts }) => {
    checkPageSize(paginationOpts.numItems);
    const page = await ctx.db
      .query("channelMessages")
      .withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId).eq("threadRootId", undefined))
      .order("desc")
      .paginate(paginationOpts);
    return { ...page, page: page.page.map(publicMessage) };
  },
});

/** One thread: its first message and the replies, oldest first. */
export const thread = channelQuery({
  args: { messageId: v.id("channelMessages") },
  returns: v.object({ root: vChannelMessage, replies: v.array(vChannelMessage), more: v.boolean() }),
  handler: async (ctx, { messageId }) => {
    const root = await ctx.db.get("channelMessages", messageId);
    if (root === null || root.channelId !== ctx.channel._id || root.threadRootId !== undefined) {
      throw new MaestroError("NOT_FOUND", "No such thread in this channel.");
    }
    const replies = await ctx.db
      .query("channelMessages")
      .withIndex("by_thread", (q) => q.eq("threadRootId", root._id))
      .take(MAX_THREAD_REPLIES + 1);
    return { root: publicMessage(root), replies: replies.slice(0, MAX_THREAD_REPLIES).map(publicMessage), more: replies.length > MAX_THREAD_REPLIES };
  },
});
