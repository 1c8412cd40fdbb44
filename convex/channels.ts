/**
 * Channels and DMs for people (specs/messaging-project-graph.md): create,
 * list with unread counts, one conversation's card, topic, archive, members,
 * following, and opening a DM. The rows are records/channels.ts.
 */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { channelMutation, channelQuery, departmentMutation, departmentQuery } from "./functions";
import { memberActor, memberKey } from "./lib/actors";
import { canRead } from "./lib/channels";
import {
  canManage,
  channelCard,
  channelMembers,
  createChannel,
  departmentChannels,
  dmTitle,
  createDm,
  dmOf,
  join,
  leave,
  membershipsIn,
  participantX,
  requireManager,
  setArchived as archive,
  setFollowing,
  setTopic as saveTopic,
  vChannelCard,
} from "./records/channels";
import { emitEvent } from "./records/events";
import { unreadCountIn } from "./records/inbox";
import { vChannelVisibility } from "./validators";

const vChannelSummary = vChannelCard.extend({
  /** For a DM: the other participants' names. */
  title: v.string(),
  joined: v.boolean(),
  subscribed: v.boolean(),
  unread: v.number(),
  lastMessageAt: v.optional(v.number()),
});

const vMember = v.object({ key: v.string(), name: v.string(), kind: v.union(v.literal("agent"), v.literal("member")), subscribed: v.boolean() });

export const create = departmentMutation({
  args: { name: v.string(), topic: v.optional(v.string()), visibility: vChannelVisibility },
  returns: v.id("channels"),
  handler: async (ctx, { departmentId, name, topic, visibility }) => {
    const actor = memberActor(ctx.member);
    return await createChannel(ctx, { departmentId, creator: { ...actor, key: memberKey(ctx.member.userId) }, name, topic, visibility });
  },
});

/** The channels and DMs the caller can read, with their unread counts; DMs only their own. */
export const list = departmentQuery({
  args: {},
  returns: v.array(vChannelSummary),
  handler: async (ctx, { departmentId }) => {
    const me = memberKey(ctx.member.userId);
    const channels = await departmentChannels(ctx, departmentId);
    const mine = await membershipsIn(ctx, departmentId, me);
    const membership = new Map(mine.map((m) => [m.channelId as string, m]));
    const dms = (await Promise.all(mine.map((m) => ctx.db.get("channels", m.channelId)))).filter((c): c is Doc<"channels"> => c !== null && c.kind === "dm");
    const out = [];
    for (const channel of [...channels, ...dms]) {
      const row = membership.get(channel._id);
      if (!canRead(channel, row !== undefined)) continue;
      out.push({
        ...channelCard(channel),
        title: channel.kind === "dm" ? (await dmTitle(ctx, channel._id, me)).join(", ") : channel.name,
        joined: row !== undefined,
        subscribed: row?.subscribed ?? false,
        unread: await unreadCountIn(ctx, me, channel._id),
        lastMessageAt: channel.lastMessageAt,
      });
    }
    return out;
  },
});

/** One conversation's card with its members, for the channel's header. */
export const get = channelQuery({
  args: {},
  returns: vChannelCard.extend({
    members: v.array(vMember),
    canManage: v.boolean(),
    /** The caller follows it: new posts reach their inbox. */
    viewerSubscribed: v.boolean(),
  }),
  handler: async (ctx) => {
    const { channel } = ctx;
    const members = await channelMembers(ctx, channel._id);
    return {
      ...channelCard(channel),
      members: members.map((m) => ({ key: m.key, name: m.name, kind: m.key.startsWith("member:") ? ("member" as const) : ("agent" as const), subscribed: m.subscribed })),
      canManage: canManage(channel, ctx.member),
      viewerSubscribed: ctx.membership?.subscribed ?? false,
    };
  },
});

export const setTopic = channelMutation({
  args: { topic: v.string() },
  returns: v.null(),
  handler: async (ctx, { channelId, topic }) => {
    requireManager(ctx.channel, ctx.member);
    const clean = await saveTopic(ctx, ctx.channel, topic);
    await emitEvent(ctx, { departmentId: ctx.channel.departmentId, type: "channels.updated", actor: memberActor(ctx.member), channelId, data: { topic: clean } });
    return null;
  },
});

export const setArchived = channelMutation({
  args: { archived: v.boolean() },
  returns: v.null(),
  handler: async (ctx, { channelId, archived }) => {
    requireManager(ctx.channel, ctx.member);
    await archive(ctx, channelId, archived);
    await emitEvent(ctx, {
      departmentId: ctx.channel.departmentId,
      type: archived ? "channels.archived" : "channels.updated",
      actor: memberActor(ctx.member),
      channelId,
      data: { archived },
    });
    return null;
  },
});

/** Adds an agent or member to a channel (private channels are only readable by their members). */
export const addMember = channelMutation({
  args: { key: v.string() },
  returns: v.null(),
  handler: async (ctx, { key }) => {
    requireManager(ctx.channel, ctx.member);
    const who = await participantX(ctx, ctx.channel.departmentId, key);
    await join(ctx, ctx.channel, who, true);
    await emitEvent(ctx, { departmentId: ctx.channel.departmentId, type: "channels.updated", actor: memberActor(ctx.member), channelId: ctx.channel._id, data: { added: who.name } });
    return null;
  },
});

export const removeMember = channelMutation({
  args: { key: v.string() },
  returns: v.null(),
  handler: async (ctx, { key }) => {
    requireManager(ctx.channel, ctx.member);
    const row = await leave(ctx, ctx.channel._id, key);
    await emitEvent(ctx, { departmentId: ctx.channel.departmentId, type: "channels.updated", actor: memberActor(ctx.member), channelId: ctx.channel._id, data: { removed: row.name } });
    return null;
  },
});

/** Follow a channel (its new messages reach your inbox) or stop following it; joining a project channel is subscribing. */
export const setSubscribed = channelMutation({
  role: "viewer",
  args: { subscribed: v.boolean() },
  returns: v.null(),
  handler: async (ctx, { subscribed }) => {
    await setFollowing(ctx, ctx.channel, { key: memberKey(ctx.member.userId), name: ctx.member.name }, subscribed);
    return null;
  },
});

/**
 * The DM between the caller and these agents or members: found when it
 * exists, created otherwise (one per set of participants).
 */
export const openDm = departmentMutation({
  args: { participantKeys: v.array(v.string()) },
  returns: v.id("channels"),
  handler: async (ctx, { departmentId, participantKeys }) => {
    const me = memberKey(ctx.member.userId);
    const existing = await dmOf(ctx, departmentId, [me, ...participantKeys]);
    if (existing !== null) return existing._id;
    const others = [];
    for (const key of new Set(participantKeys)) if (key !== me) others.push(await participantX(ctx, departmentId, key));
    return (await createDm(ctx, departmentId, memberActor(ctx.member), [{ key: me, name: ctx.member.name }, ...others]))._id;
  },
});
