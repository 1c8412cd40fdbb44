/**
 * Channels and DMs (messaging spec): the conversations, their members and
 * followers, their topic and archive state. `#maestro` stays the chat
 * table's special channel (records/chat.ts). Messages are
 * records/channelMessages.ts; unread state is records/inbox.ts.
 */
import { v, type Infer } from "convex/values";
import type { PaginationOptions } from "convex/server";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { normalizeName } from "../lib/agentNames";
import { canRead, CHANNEL_LIMITS, dmKey, normalizeChannelName } from "../lib/channels";
import { MaestroError } from "../lib/errors";
import { hasRole } from "../lib/roles";
import { cleanText } from "../lib/validate";
import schema from "../schema";
import type { Actor } from "../validators";
import { emitEvent } from "./events";
import { mentionCandidates } from "./messages";
import { redactForDepartment } from "./settings";

type ReadCtx = QueryCtx | MutationCtx;

/** Who takes part in a conversation: a key (agent sessionKey or `member:<userId>`) and the name shown. */
export interface Participant {
  key: string;
  name: string;
}

export async function channelMembers(ctx: ReadCtx, channelId: Id<"channels">): Promise<Array<Doc<"channelMembers">>> {
  return await ctx.db
    .query("channelMembers")
    .withIndex("by_channel_and_key", (q) => q.eq("channelId", channelId))
    .take(CHANNEL_LIMITS.membersPerChannel);
}

/** The `key`'s membership row of a conversation, if any. */
export async function membershipOf(ctx: ReadCtx, channelId: Id<"channels">, key: string): Promise<Doc<"channelMembers"> | null> {
  return await ctx.db
    .query("channelMembers")
    .withIndex("by_channel_and_key", (q) => q.eq("channelId", channelId).eq("key", key))
    .unique();
}

/** Whether `key` may read the conversation (a project channel: anyone of the department). */
export async function mayRead(ctx: ReadCtx, channel: Doc<"channels">, key: string): Promise<boolean> {
  return canRead(channel, (await membershipOf(ctx, channel._id, key)) !== null);
}

/** A conversation `key` may read, by id: NOT_FOUND when it is not the department's, FORBIDDEN when it is private to others. */
export async function readableChannelX(ctx: ReadCtx, departmentId: Id<"departments">, key: string, channelId: Id<"channels">, label: string): Promise<Doc<"channels">> {
  const channel = await ctx.db.get("channels", channelId);
  if (channel === null || channel.departmentId !== departmentId) throw new MaestroError("NOT_FOUND", `No ${label} in this department.`);
  if (!(await mayRead(ctx, channel, key))) {
    throw new MaestroError("FORBIDDEN", `${channel.kind === "dm" ? "That DM" : `#${channel.name}`} is private and you are not a member.`);
  }
  return channel;
}

/** A channel of the department by its name as people write it (`#launch`), or null. */
export async function channelByName(ctx: ReadCtx, departmentId: Id<"departments">, raw: string): Promise<Doc<"channels"> | null> {
  const name = raw.trim().replace(/^#/, "").toLowerCase();
  return await ctx.db
    .query("channels")
    .withIndex("by_department_and_kind_and_name", (q) => q.eq("departmentId", departmentId).eq("kind", "channel").eq("name", name))
    .unique();
}

/** A conversation `key` may read, named as people write it (`#launch`) or by id. */
export async function conversationNamed(ctx: ReadCtx, departmentId: Id<"departments">, key: string, raw: string): Promise<Doc<"channels">> {
  const id = ctx.db.normalizeId("channels", raw.trim());
  if (id !== null) {
    // Given by id, a conversation the caller may not read is not found: the refusal names nothing the caller did not know.
    const channel = await ctx.db.get("channels", id);
    if (channel === null || channel.departmentId !== departmentId || !(await mayRead(ctx, channel, key))) {
      throw new MaestroError("NOT_FOUND", `No conversation ${raw.trim()} in this department.`);
    }
    return channel;
  }
  const channel = await channelByName(ctx, departmentId, raw);
  if (channel === null) throw new MaestroError("NOT_FOUND", `No channel #${raw.trim().replace(/^#/, "").toLowerCase()} in this department.`);
  if (!(await mayRead(ctx, channel, key))) throw new MaestroError("FORBIDDEN", `#${channel.name} is private and you are not a member.`);
  return channel;
}

/** Adds (or updates) a conversation's member; at most CHANNEL_LIMITS.membersPerChannel. */
export async function join(ctx: MutationCtx, channel: Doc<"channels">, who: Participant, subscribed: boolean): Promise<void> {
  const existing = await membershipOf(ctx, channel._id, who.key);
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

/** Follow a conversation `who` may read (its new messages reach their inbox), or stop following it. */
export async function setFollowing(ctx: MutationCtx, channel: Doc<"channels">, who: Participant, subscribed: boolean): Promise<void> {
  const row = await membershipOf(ctx, channel._id, who.key);
  if (row !== null) await ctx.db.patch("channelMembers", row._id, { subscribed });
  else if (subscribed) await join(ctx, channel, who, true);
}

/** Removes a member from a channel; returns the row removed. */
export async function leave(ctx: MutationCtx, channelId: Id<"channels">, key: string): Promise<Doc<"channelMembers">> {
  const row = await membershipOf(ctx, channelId, key);
  if (row === null) throw new MaestroError("NOT_FOUND", "Not a member of this channel.");
  await ctx.db.delete("channelMembers", row._id);
  return row;
}

/** The agent or member of this department a key names (clear error otherwise). */
export async function participantX(ctx: ReadCtx, departmentId: Id<"departments">, key: string): Promise<Participant & { kind: "agent" | "member" }> {
  const found = (await mentionCandidates(ctx, departmentId)).find((c) => c.key === key);
  if (found === undefined) throw new MaestroError("NOT_FOUND", `No agent or member ${JSON.stringify(key)} in this department.`);
  return found;
}

/** People and agents named (as in @mentions, or by key) resolved to participants of the department. */
export async function participantsNamed(ctx: ReadCtx, departmentId: Id<"departments">, names: readonly string[]): Promise<Participant[]> {
  const candidates = await mentionCandidates(ctx, departmentId);
  return names.map((raw) => {
    // The project's one name rule (lib/agentNames).
    const name = normalizeName(raw);
    const found = candidates.find((c) => (name !== "" && normalizeName(c.name) === name) || c.key === raw);
    if (found === undefined) throw new MaestroError("NOT_FOUND", `Nobody called ${JSON.stringify(raw)} in this department.`);
    return { key: found.key, name: found.name };
  });
}

/** A channel's topic as stored: cleaned, bounded, secrets redacted; undefined when empty. */
async function cleanTopic(ctx: QueryCtx, departmentId: Id<"departments">, topic: string): Promise<string | undefined> {
  const clean = await redactForDepartment(ctx, departmentId, "channel topic", cleanText("A topic", topic, CHANNEL_LIMITS.topicChars, { allowEmpty: true }));
  return clean === "" ? undefined : clean;
}

/** Creates a channel with its creator as its first member; the name must be free. */
export async function createChannel(
  ctx: MutationCtx,
  input: { departmentId: Id<"departments">; creator: Actor & { key: string }; name: string; topic?: string; visibility: "project" | "private" },
): Promise<Id<"channels">> {
  const name = normalizeChannelName(input.name);
  if ((await channelByName(ctx, input.departmentId, name)) !== null) throw new MaestroError("CONFLICT", `#${name} already exists.`);
  const topic = input.topic === undefined ? undefined : await cleanTopic(ctx, input.departmentId, input.topic);
  const { key, ...creator } = input.creator;
  const channelId = await ctx.db.insert("channels", { departmentId: input.departmentId, kind: "channel", name, topic, visibility: input.visibility, createdBy: creator });
  const channel = (await ctx.db.get("channels", channelId))!;
  await join(ctx, channel, { key, name: creator.kind === "system" ? "Maestro" : creator.name }, true);
  await emitEvent(ctx, { departmentId: input.departmentId, type: "channels.created", actor: creator, channelId, data: { name, visibility: input.visibility } });
  return channelId;
}

/** The DM of exactly these participants (order and repeats do not matter), if it exists; the key checks them (lib/channels dmKey). */
export async function dmOf(ctx: ReadCtx, departmentId: Id<"departments">, participantKeys: readonly string[]): Promise<Doc<"channels"> | null> {
  const key = dmKey(participantKeys);
  return await ctx.db
    .query("channels")
    .withIndex("by_department_and_dmKey", (q) => q.eq("departmentId", departmentId).eq("dmKey", key))
    .unique();
}

/** Creates the DM of exactly these participants, each a member of it. */
export async function createDm(ctx: MutationCtx, departmentId: Id<"departments">, creator: Actor, participants: readonly Participant[]): Promise<Doc<"channels">> {
  const everyone = new Map(participants.map((p) => [p.key, p]));
  const key = dmKey([...everyone.keys()]);
  const channelId = await ctx.db.insert("channels", { departmentId, kind: "dm", name: `dm:${key}`, visibility: "private", createdBy: creator, dmKey: key });
  const channel = (await ctx.db.get("channels", channelId))!;
  for (const participant of everyone.values()) await join(ctx, channel, participant, true);
  await emitEvent(ctx, { departmentId, type: "channels.created", actor: creator, channelId, data: { dm: true, participants: everyone.size } });
  return channel;
}

/** The channels of a department (not DMs), by name, bounded. */
export async function departmentChannels(ctx: ReadCtx, departmentId: Id<"departments">): Promise<Array<Doc<"channels">>> {
  return await ctx.db
    .query("channels")
    .withIndex("by_department_and_kind_and_name", (q) => q.eq("departmentId", departmentId).eq("kind", "channel"))
    .take(CHANNEL_LIMITS.channelsPerDepartment);
}

/** Every conversation membership `key` holds in a department, bounded. */
export async function membershipsIn(ctx: ReadCtx, departmentId: Id<"departments">, key: string): Promise<Array<Doc<"channelMembers">>> {
  return await ctx.db
    .query("channelMembers")
    .withIndex("by_key_and_department", (q) => q.eq("key", key).eq("departmentId", departmentId))
    .take(CHANNEL_LIMITS.channelsPerDepartment * 2);
}

/** A DM's title for `me`: the other participants' names. */
export async function dmTitle(ctx: ReadCtx, channelId: Id<"channels">, me: string): Promise<string[]> {
  return (await channelMembers(ctx, channelId)).filter((m) => m.key !== me).map((m) => m.name);
}

/** What every view of one conversation shows of it: the stored channel's public fields and whether it is archived. */
export const vChannelCard = schema.tables.channels.validator
  .pick("kind", "name", "topic", "visibility")
  .extend({ _id: v.id("channels"), archived: v.boolean() });

export function channelCard({ _id, kind, name, topic, visibility, archivedAt }: Doc<"channels">): Infer<typeof vChannelCard> {
  return { _id, kind, name, topic, visibility, archived: archivedAt !== undefined };
}

/** The channel's creator and the department's admins manage it (topic, members, archive). */
export function canManage(channel: Doc<"channels">, member: Doc<"members">): boolean {
  if (channel.kind === "dm") return false;
  const creatorIsCaller = channel.createdBy.kind === "member" && channel.createdBy.userId === member.userId;
  return creatorIsCaller || hasRole(member.role, "admin");
}

/**
 * An agent manages only a channel it created: its reach follows its work,
 * whatever its role (a squad lead included), so a hijacked agent cannot take
 * over a channel people made. People manage theirs, and admins every one.
 */
export function requireAgentManager(channel: Doc<"channels">, agent: Doc<"agents">): void {
  if (channel.kind === "dm") throw new MaestroError("INVALID_ARGUMENT", "A DM has no settings to change.");
  const creator = channel.createdBy.kind === "agent" && channel.createdBy.sessionKey === agent.sessionKey;
  if (!creator) throw new MaestroError("FORBIDDEN", `Only #${channel.name}'s creator and admins can change it.`);
}

/** Whether `key` names a person (a member of the department), not an agent. */
export function isPersonKey(key: string): boolean {
  return key.startsWith("member:");
}

/**
 * Refuses removing `key` from a channel when it is the channel's last
 * person: an agent never leaves a channel to agents alone.
 */
export async function requireNotLastPerson(ctx: ReadCtx, channel: Doc<"channels">, key: string, name: string): Promise<void> {
  if (!isPersonKey(key)) return;
  const people = (await channelMembers(ctx, channel._id)).filter((row) => isPersonKey(row.key));
  if (people.length <= 1 && people.some((row) => row.key === key)) {
    throw new MaestroError("FORBIDDEN", `${name} is the last person in #${channel.name}: an agent cannot remove them.`);
  }
}

export function requireManager(channel: Doc<"channels">, member: Doc<"members">): void {
  if (channel.kind === "dm") throw new MaestroError("INVALID_ARGUMENT", "A DM has no settings to change.");
  if (!canManage(channel, member)) throw new MaestroError("FORBIDDEN", `Only #${channel.name}'s creator and admins can change it.`);
}

/** Sets a channel's topic; returns it as stored ("" when cleared). */
export async function setTopic(ctx: MutationCtx, channel: Doc<"channels">, topic: string): Promise<string> {
  const clean = await cleanTopic(ctx, channel.departmentId, topic);
  await ctx.db.patch("channels", channel._id, { topic: clean });
  return clean ?? "";
}

export async function setArchived(ctx: MutationCtx, channelId: Id<"channels">, archived: boolean): Promise<void> {
  await ctx.db.patch("channels", channelId, { archivedAt: archived ? Date.now() : undefined });
}

/** A post arrived: the channel's list position follows its newest message. */
export async function touchChannel(ctx: MutationCtx, channelId: Id<"channels">, at: number): Promise<void> {
  await ctx.db.patch("channels", channelId, { lastMessageAt: at });
}

/** One page of a department's conversations (channels, then DMs), for sweeps that walk them all. */
export async function conversationsPage(ctx: QueryCtx, departmentId: Id<"departments">, paginationOpts: PaginationOptions) {
  return await ctx.db
    .query("channels")
    .withIndex("by_department_and_kind_and_name", (q) => q.eq("departmentId", departmentId))
    .paginate(paginationOpts);
}
