/**
 * Messages in channels, threads and DMs for people: post, reply, ask for an
 * upload URL, read a conversation's history and one thread. Posting is
 * reactions/delivery.ts, the same path agents' messages take.
 */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import { channelMutation, channelQuery } from "./functions";
import { memberActor, memberKey } from "./lib/actors";
import { postRefusal } from "./lib/channels";
import { MaestroError } from "./lib/errors";
import { checkPageSize } from "./lib/validate";
import { postChannelMessage } from "./reactions/delivery";
import { uploadUrl } from "./lib/files";
import { issueUploadGrant } from "./records/channelFiles";
import { historyPage, publicMessage, threadRootOf, threadView, vChannelMessage } from "./records/channelMessages";
import { limitOrThrow } from "./records/rateLimits";
import { vArtifact, vImportance } from "./validators";

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
  handler: async (ctx, { taskId, ...fields }) =>
    await postChannelMessage(ctx, {
      channel: ctx.channel,
      from: memberActor(ctx.member),
      senderKey: memberKey(ctx.member.userId),
      ...fields,
      context: taskId === undefined ? undefined : { taskId },
    }),
});

/** Replies in the thread of a channel message (a reply to a reply joins the same thread). */
export const reply = channelMutation({
  args: { ...vPostArgs, messageId: v.id("channelMessages") },
  returns: v.id("channelMessages"),
  handler: async (ctx, { messageId, taskId, ...fields }) => {
    const target = await ctx.db.get("channelMessages", messageId);
    if (target === null || target.channelId !== ctx.channel._id) throw new MaestroError("NOT_FOUND", "That message is not in this channel.");
    const root = await threadRootOf(ctx, target);
    if (root === null) throw new MaestroError("NOT_FOUND", "The thread's first message is gone.");
    return await postChannelMessage(ctx, {
      channel: ctx.channel,
      from: memberActor(ctx.member),
      senderKey: memberKey(ctx.member.userId),
      ...fields,
      threadRoot: root,
      context: taskId === undefined ? undefined : { taskId },
    });
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
    const token = await issueUploadGrant(ctx, ctx.channel, ctx.member.userId);
    return uploadUrl(token);
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
