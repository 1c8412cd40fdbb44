/**
 * Channels and DMs (specs/messaging-project-graph.md): create, list with
 * unread counts, topic, archive, members, subscribe. `#maestro` stays the
 * chat table's special channel. Messages live in channelMessages.ts, unread
 * state in inbox.ts.
 */
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import type { MutationCtx, QueryCtx } from "./_generated/server";
import { channelMutation, channelQuery, departmentMutation, departmentQuery } from "./functions";
import { memberActor, memberKey } from "./lib/actors";
import { hasRole } from "./lib/auth";
import { canRead, CHANNEL_LIMITS, dmKey, normalizeChannelName } from "./lib/channels";
import { MaestroError } from "./lib/errors";
import { emitEvent } from "./lib/events";
import { redactForDepartment } from "./lib/userText";
import { cleanText } from "./lib/validate";
import { mentionCandidates } from "./messages";
import { vChannelKind, vChannelVisibility, type Actor } from "./validators";

/** Unread counts are shown up to this many ("99+"). */
export const MAX_UNREAD_COUNTED = 99;

const vChannelSummary = v.object({
  _id: v.id("channels"),
  kind: vChannelKind,
  name: v.string(),
  /** For a DM: the other participants' names. */
  title: v.string(),
  topic: v.optional(v.string()),
  visibility: vChannelVisibility,
  archived: v.boolean(),
  joined: v.boolean(),
  subscribed: v.boolean(),
  unread: v.number(),
  lastMessageAt: v.optional(v.number()),
});

const vMember = v.object({ key: v.string(), name: v.string(), kind: v.union(v.literal("agent"), v.literal("member")), subscribed: v.boolean() });

export async function channelMembers(ctx: QueryCtx, channelId: Id<"channels">): Promise<Array<Doc<"channelMembers">>> {
  return await ctx.db
    .query("channelMembers")
    .withIndex("by_channel_and_key", (q) => q.eq("channelId", channelId))
    .take(CHANNEL_LIMITS.membersPerChannel);
}

async function unreadIn(ctx: QueryCtx, recipientKey: string, channelId: Id<"channels">): Promise<number> {
  const rows = await ctx.db
    .query("inbox")
    .withIndex("by_recipient_and_channel_and_readAt", (q) => q.eq("recipientKey", recipientKey).eq("channelId", channelId).eq("readAt", undefined))
    .take(MAX_UNREAD_COUNTED + 1);
  return rows.length;
}

/** Adds (or updates) a channel member; the key must name an agent or member of the department. */
async function join(
  ctx: MutationCtx,
  channel: Doc<"channels">,
  who: { key: string; name: string },
  subscribed: boolean,
): Promise<void> {
  const existing = await ctx.db
    .query("channelMembers")
    .withIndex("by_channel_and_key", (q) => q.eq("channelId", channel._id).eq("key", who.key))
    .unique();
  if (existing !== null) {
    if (existing.subscribed !== subscribed) await ctx.db.patch("channelMembers", existing._id, { subscribed });
    return;
  }
  const count = (await channelMembers(ctx, channel._id)).length;
  if (count >= CHANNEL_LIMITS.membersPerChannel) {
    throw new MaestroError("INVALID_ARGUMENT", `A channel has at most ${CHANNEL_LIMITS.membersPerChannel} members.`);
  }
  await ctx.db.insert("channelMembers", { channelId: channel._id, departmentId: channel.departmentId, key: who.key, name: who.name, subscribed });
}

/** The agent or member of this department a key names (clear error otherwise). */
async function resolveKey(ctx: QueryCtx, departmentId: Id<"departments">, key: string) {
  const found = (await mentionCandidates(ctx, departmentId)).find((c) => c.key === key);
  if (found === undefined) throw new MaestroError("NOT_FOUND", `No agent or member ${JSON.stringify(key)} in this department.`);
  return found;
}

export async function createChannel(
  ctx: MutationCtx,
  input: { departmentId: Id<"departments">; creator: Actor & { key: string }; name: string; topic?: string; visibility: "project" | "private" },
): Promise<Id<"channels">> {
  const name = normalizeChannelName(input.name);
  const taken = await ctx.db
    .query("channels")
    .withIndex("by_department_and_kind_and_name", (q) => q.eq("departmentId", input.departmentId).eq("kind", "channel").eq("name", name))
    .unique();
  if (taken !== null) throw new MaestroError("CONFLICT", `#${name} already exists.`);
  const topic = input.topic === undefined ? undefined : await redactForDepartment(ctx, input.departmentId, "channel topic", cleanText("A topic", input.topic, CHANNEL_LIMITS.topicChars, { allowEmpty: true }));
  const { key, ...creator } = input.creator;
  const channelId = await ctx.db.insert("channels", {
    departmentId: input.departmentId,
    kind: "channel",
    name,
    topic: topic === "" ? undefined : topic,
    visibility: input.visibility,
    createdBy: creator,
  });
  const channel = (await ctx.db.get("channels", channelId))!;
  await join(ctx, channel, { key, name: creator.kind === "system" ? "Maestro" : creator.name }, true);
  await emitEvent(ctx, { departmentId: input.departmentId, type: "channels.created", actor: creator, channelId, data: { name, visibility: input.visibility } });
  return channelId;
}

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
    const channels = await ctx.db
      .query("channels")
      .withIndex("by_department_and_kind_and_name", (q) => q.eq("departmentId", departmentId).eq("kind", "channel"))
      .take(CHANNEL_LIMITS.channelsPerDepartment);
    const mine = await ctx.db
      .query("channelMembers")
      .withIndex("by_key_and_department", (q) => q.eq("key", me).eq("departmentId", departmentId))
      .take(CHANNEL_LIMITS.channelsPerDepartment * 2);
    const membership = new Map(mine.map((m) => [m.channelId as string, m]));
    const dms = (await Promise.all(mine.map((m) => ctx.db.get("channels", m.channelId)))).filter(
      (c): c is Doc<"channels"> => c !== null && c.kind === "dm",
    );
    const out = [];
    for (const channel of [...channels, ...dms]) {
      const row = membership.get(channel._id);
      if (!canRead(channel, row !== undefined)) continue;
      let title = channel.name;
      if (channel.kind === "dm") {
        const others = (await channelMembers(ctx, channel._id)).filter((m) => m.key !== me).map((m) => m.name);
        title = others.join(", ");
      }
      out.push({
        _id: channel._id,
        kind: channel.kind,
        name: channel.name,
        title,
        topic: channel.topic,
        visibility: channel.visibility,
        archived: channel.archivedAt !== undefined,
        joined: row !== undefined,
        subscribed: row?.subscribed ?? false,
        unread: await unreadIn(ctx, me, channel._id),
        lastMessageAt: channel.lastMessageAt,
      });
    }
    return out;
  },
});

export const get = channelQuery({
  args: {},
  returns: v.object({
    _id: v.id("channels"),
    kind: vChannelKind,
    name: v.string(),
    topic: v.optional(v.string()),
    visibility: vChannelVisibility,
    archived: v.boolean(),
    members: v.array(vMember),
    canManage: v.boolean(),
    /** The caller follows it: new posts reach their inbox. */
    viewerSubscribed: v.boolean(),
  }),
  handler: async (ctx) => {
    const { channel } = ctx;
    const members = await channelMembers(ctx, channel._id);
    return {
      _id: channel._id,
      kind: channel.kind,
      name: channel.name,
      topic: channel.topic,
      visibility: channel.visibility,
      archived: channel.archivedAt !== undefined,
      members: members.map((m) => ({ key: m.key, name: m.name, kind: m.key.startsWith("member:") ? ("member" as const) : ("agent" as const), subscribed: m.subscribed })),
      canManage: canManage(ctx.channel, ctx.member),
      viewerSubscribed: ctx.membership?.subscribed ?? false,
    };
  },
});

/** The channel's creator and the department's admins manage it (topic, members, archive). */
function canManage(channel: Doc<"channels">, member: Doc<"members">): boolean {
  if (channel.kind === "dm") return false;
  const creatorIsCaller = channel.createdBy.kind === "member" && channel.createdBy.userId === member.userId;
  return creatorIsCaller || hasRole(member.role, "admin");
}

function requireManager(channel: Doc<"channels">, member: Doc<"members">): void {
  if (channel.kind === "dm") throw new MaestroError("INVALID_ARGUMENT", "A DM has no settings to change.");
  if (!canManage(channel, member)) throw new MaestroError("FORBIDDEN", `Only #${channel.name}'s creator and admins can change it.`);
}

export const setTopic = channelMutation({
  args: { topic: v.string() },
  returns: v.null(),
  handler: async (ctx, { channelId, topic }) => {
    requireManager(ctx.channel, ctx.member);
    const clean = await redactForDepartment(ctx, ctx.channel.departmentId, "channel topic", cleanText("A topic", topic, CHANNEL_LIMITS.topicChars, { allowEmpty: true }));
    await ctx.db.patch("channels", channelId, { topic: clean === "" ? undefined : clean });
    await emitEvent(ctx, { departmentId: ctx.channel.departmentId, type: "channels.updated", actor: memberActor(ctx.member), channelId, data: { topic: clean } });
    return null;
  },
});

export const setArchived = channelMutation({
  args: { archived: v.boolean() },
  returns: v.null(),
  handler: async (ctx, { channelId, archived }) => {
    requireManager(ctx.channel, ctx.member);
    await ctx.db.patch("channels", channelId, { archivedAt: archived ? Date.now() : undefined });
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
    const who = await resolveKey(ctx, ctx.channel.departmentId, key);
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
    const row = await ctx.db
      .query("channelMembers")
      .withIndex("by_channel_and_key", (q) => q.eq("channelId", ctx.channel._id).eq("key", key))
      .unique();
    if (row === null) throw new MaestroError("NOT_FOUND", "Not a member of this channel.");
    await ctx.db.delete("channelMembers", row._id);
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
    const key = memberKey(ctx.member.userId);
    if (ctx.membership !== null) {
      await ctx.db.patch("channelMembers", ctx.membership._id, { subscribed });
    } else if (subscribed) {
      await join(ctx, ctx.channel, { key, name: ctx.member.name }, true);
    }
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
    const key = dmKey([me, ...participantKeys]);
    const existing = await ctx.db
      .query("channels")
      .withIndex("by_department_and_dmKey", (q) => q.eq("departmentId", departmentId).eq("dmKey", key))
      .unique();
    if (existing !== null) return existing._id;
    const others = await Promise.all([...new Set(participantKeys)].filter((k) => k !== me).map((k) => resolveKey(ctx, departmentId, k)));
    const actor = memberActor(ctx.member);
    const channelId = await ctx.db.insert("channels", {
      departmentId,
      kind: "dm",
      name: `dm:${key}`,
      visibility: "private",
      createdBy: actor,
      dmKey: key,
    });
    const channel = (await ctx.db.get("channels", channelId))!;
    await join(ctx, channel, { key: me, name: ctx.member.name }, true);
    for (const other of others) await join(ctx, channel, other, true);
    await emitEvent(ctx, { departmentId, type: "channels.created", actor, channelId, data: { dm: true, participants: others.length + 1 } });
    return channelId;
  },
});
