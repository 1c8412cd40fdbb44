/**
 * Messages in channels, threads and DMs for people: post, reply, ask for an
 * upload URL, read a conversation's history and one thread. Posting is
 * reactions/delivery.ts, the same path agents' messages take.
 */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import { channelMutation, channelQuery } from "./functions";
import type { Doc, Id } from "./_generated/dataModel";
import type { MutationCtx } from "./_generated/server";
import { actorName, memberActor, memberKey } from "./lib/actors";
import { deleteRefusal, editRefusal } from "./lib/messageChanges";
import { recordActivity, reviseChannelMessageEntries } from "./records/activities";
import { postRefusal } from "./lib/channels";
import { MaestroError } from "./lib/errors";
import { clientSendKey } from "./lib/idempotency";
import { checkPageSize } from "./lib/validate";
import { postChannelMessage } from "./reactions/delivery";
import { uploadUrl } from "./lib/files";
import { issueUploadGrant } from "./records/uploadGrants";
import { editChannelMessage, eraseChannelMessage, historyPage, publicMessage, threadRootOf, threadView, vChannelMessage } from "./records/channelMessages";
import { limitOrThrow } from "./records/rateLimits";
import { oncePerKey } from "./records/toolEffects";
import { vArtifact, vImportance } from "./validators";

const vPostArgs = {
  body: v.string(),
  artifacts: v.optional(v.array(vArtifact)),
  importance: v.optional(vImportance),
  blocking: v.optional(v.boolean()),
  taskId: v.optional(v.id("tasks")),
  /** The composer's own id for this message: a retried send with it posts once (lib/idempotency clientSendKey). */
  clientMessageId: v.optional(v.string()),
};

/** Posts in a channel or DM as the signed-in member. */
export const post = channelMutation({
  args: vPostArgs,
  returns: v.id("channelMessages"),
  handler: async (ctx, { taskId, clientMessageId, ...fields }) =>
    await oncePerKey(ctx, { key: clientSendKey(memberKey(ctx.member.userId), clientMessageId), tool: "channel_post" }, async () =>
      await postChannelMessage(ctx, {
        channel: ctx.channel,
        from: memberActor(ctx.member),
        senderKey: memberKey(ctx.member.userId),
        ...fields,
        context: taskId === undefined ? undefined : { taskId },
      }),
    ),
});

/** Replies in the thread of a channel message (a reply to a reply joins the same thread). */
export const reply = channelMutation({
  args: { ...vPostArgs, messageId: v.id("channelMessages") },
  returns: v.id("channelMessages"),
  handler: async (ctx, { messageId, taskId, clientMessageId, ...fields }) => {
    const once = { key: clientSendKey(memberKey(ctx.member.userId), clientMessageId), tool: "channel_reply" };
    const target = await ctx.db.get("channelMessages", messageId);
    if (target === null || target.channelId !== ctx.channel._id) throw new MaestroError("NOT_FOUND", "That message is not in this channel.");
    const root = await threadRootOf(ctx, target);
    if (root === null) throw new MaestroError("NOT_FOUND", "The thread's first message is gone.");
    return await oncePerKey(ctx, once, async () =>
      await postChannelMessage(ctx, {
        channel: ctx.channel,
        from: memberActor(ctx.member),
        senderKey: memberKey(ctx.member.userId),
        ...fields,
        threadRoot: root,
        context: taskId === undefined ? undefined : { taskId },
      }),
    );
  },
});

/**
 * An upload URL for a file to attach here (then `channelFiles.add`): for
 * those who may post in the conversation, rate limited per person. The URL
 * is the deployment's own upload route (convex/uploadApi.ts), issued for
 * this person and this conversation, single-use and expiring, so an upload
 * can only ever be added by who asked for it, where they asked.
 */
export const generateUploadUrl = channelMutation({
  args: {},
  returns: v.string(),
  handler: async (ctx) => {
    const refusal = postRefusal(ctx.channel, ctx.membership !== null);
    if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
    await limitOrThrow(ctx, "fileUpload", memberKey(ctx.member.userId));
    const token = await issueUploadGrant(ctx, { departmentId: ctx.channel.departmentId, channelId: ctx.channel._id }, ctx.member.userId);
    return uploadUrl(token);
  },
});

/** A message of this conversation, by an id a client sent. */
async function conversationMessageX(ctx: MutationCtx, channel: Doc<"channels">, messageId: Id<"channelMessages">): Promise<Doc<"channelMessages">> {
  const message = await ctx.db.get("channelMessages", messageId);
  if (message === null || message.channelId !== channel._id) throw new MaestroError("NOT_FOUND", "That message is not in this conversation.");
  return message;
}

/** Where a change happened, in the department's feed: a private conversation is not named there. */
function whereInFeed(channel: Doc<"channels">): string {
  if (channel.kind === "dm") return "a DM";
  return channel.visibility === "private" ? "a private channel" : `#${channel.name}`;
}

/** Edits one of the caller's own messages (marked edited; agents read the new text). */
export const edit = channelMutation({
  args: { messageId: v.id("channelMessages"), body: v.string() },
  returns: v.null(),
  handler: async (ctx, { messageId, body }) => {
    const { channel, member } = ctx;
    const refusal = postRefusal(channel, ctx.membership !== null);
    if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
    const message = await conversationMessageX(ctx, channel, messageId);
    const editRefused = editRefusal(message, message.from, member.userId);
    if (editRefused !== null) throw new MaestroError("FORBIDDEN", editRefused);
    await editChannelMessage(ctx, message, body);
    await reviseChannelMessageEntries(ctx, message._id);
    await recordActivity(ctx, { departmentId: channel.departmentId, type: "message_edited", actor: memberActor(member), data: { where: whereInFeed(channel) } });
    return null;
  },
});

/** Deletes a message: the caller's own, or anyone's for an owner or admin (its replies stay). */
export const remove = channelMutation({
  args: { messageId: v.id("channelMessages") },
  returns: v.null(),
  handler: async (ctx, { messageId }) => {
    const { channel, member } = ctx;
    const message = await conversationMessageX(ctx, channel, messageId);
    const refusal = deleteRefusal(message, message.from, member.userId, member.role);
    if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
    await eraseChannelMessage(ctx, message._id);
    await reviseChannelMessageEntries(ctx, message._id);
    await recordActivity(ctx, {
      departmentId: channel.departmentId,
      type: "message_deleted",
      actor: memberActor(member),
      data: { where: whereInFeed(channel), author: actorName(message.from) },
    });
    return null;
  },
});

/** A channel's top-level messages (or a DM's), newest first, a page at a time. */
export const history = channelQuery({
  args: { paginationOpts: paginationOptsValidator },
  returns: paginationResultValidator(vChannelMessage),
  handler: async (ctx, { channelId, paginationOpts }) => {
    checkPageSize(paginationOpts.numItems);
    const page = await historyPage(ctx, channelId, paginationOpts);
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
    return await threadView(ctx, root);
  },
});
