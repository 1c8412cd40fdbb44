/**
 * The messaging tools' executors (messaging spec, "Messaging Tools/APIs"):
 * create a channel, post, reply in a thread, DM a person, subscribe, read
 * history, list DMs, read the inbox and mark read. The brain's tools
 * (tools/registry) and the HTTP API for agents outside Maestro
 * (convex/messagingApi.ts) call the same functions, so the ACLs, limits,
 * scanner and rate limits are the same. The agent and its department come
 * from the run or the API key, never from the model's arguments; channels
 * are named as people write them (`#launch`).
 */
import { v } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import { internalMutation, internalQuery, type MutationCtx, type QueryCtx } from "../_generated/server";
import { agentActor } from "../lib/actors";
import { normalizeChannelName } from "../lib/channels";
import { MaestroError } from "../lib/errors";
import { clientSendKey } from "../lib/idempotency";
import { postChannelMessage } from "../reactions/delivery";
import { keyAgentWithSinceX, keyAgentX } from "../records/agentApiKeys";
import { publicMessage, readableMessageX, recentTopLevel, threadRootOf, threadView, topLevelPage, vChannelMessage } from "../records/channelMessages";
import {
  channelCard,
  channelMembers,
  conversationNamed,
  createChannel,
  createDm,
  departmentChannels,
  dmOf,
  dmTitle,
  join,
  leave,
  mayRead,
  membershipsIn,
  participantsNamed,
  requireAgentManager,
  requireNotLastPerson,
  setFollowing,
  setTopic,
  vChannelCard,
} from "../records/channels";
import { emitEvent } from "../records/events";
import { keyUnreadFor, markAllRead, markMessagesRead, markReadByKey, unreadCountIn, unreadFor } from "../records/inbox";
import { oncePerKey } from "../records/toolEffects";
import { vActor, vChannelVisibility, vImportance, type Artifact, type Importance } from "../validators";

/** Most messages one history or inbox read returns to a model. */
export const MAX_TOOL_MESSAGES = 50;
/** Unread counted per DM in a DM list. */
const MAX_DM_UNREAD = 100;

/**
 * Who calls a messaging operation: a running run's agent (the brain's tools)
 * or an agent outside Maestro by its API key's hash (the HTTP API and MCP
 * server). Exactly one of the two is given.
 */
const vCaller = { runId: v.optional(v.id("runs")), keyHash: v.optional(v.string()) };

/** A brain tool call's idempotency key (lib/idempotency): the same call from the same cause acts once (records/toolEffects). */
const vKey = { key: v.optional(v.string()) };

interface Caller {
  agent: Doc<"agents">;
  /** What the agent works on, which becomes its messages' context; none for a key. */
  taskId: Id<"tasks"> | null;
}

async function callerOf(ctx: QueryCtx, { runId, keyHash }: { runId?: Id<"runs">; keyHash?: string }): Promise<Caller> {
  if ((runId === undefined) === (keyHash === undefined)) throw new MaestroError("INVALID_ARGUMENT", "Name either a run or an API key.");
  if (keyHash !== undefined) return { agent: await keyAgentX(ctx, keyHash), taskId: null };
  const run = await ctx.db.get("runs", runId!);
  if (run === null || run.status !== "running") throw new MaestroError("INVALID_ARGUMENT", "This run is not running.");
  const agent = await ctx.db.get("agents", run.agentId);
  if (agent === null) throw new MaestroError("NOT_FOUND", "The agent no longer exists.");
  return { agent, taskId: run.taskId };
}

/** A conversation of the agent's department, by name (`#launch`) or id, which the agent may read. */
async function channelNamed(ctx: QueryCtx, agent: Doc<"agents">, raw: string): Promise<Doc<"channels">> {
  return await conversationNamed(ctx, agent.departmentId, agent.sessionKey, raw);
}

/** How many messages a read returns: `limit`, bounded, 20 when not given. */
function readLimit(limit: number | undefined): number {
  return Math.max(1, Math.min(MAX_TOOL_MESSAGES, Math.floor(limit ?? 20)));
}

export const createChannelTool = internalMutation({
  args: { ...vCaller, ...vKey, name: v.string(), topic: v.optional(v.string()), visibility: v.optional(vChannelVisibility) },
  returns: v.object({ channelId: v.id("channels"), name: v.string() }),
  handler: async (ctx, { runId, keyHash, key, name, topic, visibility }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key, tool: "create_channel", runId }, async () => {
      const channelId = await createChannel(ctx, {
        departmentId: agent.departmentId,
        creator: { ...agentActor(agent), key: agent.sessionKey },
        name,
        topic,
        visibility: visibility ?? "project",
      });
      return { channelId, name: normalizeChannelName(name) };
    });
  },
});

/** What an agent may attach: a task of its department, or a file already posted where it can read (by its storage id, as channel_history shows it). */
export const vToolArtifact = v.union(v.object({ taskId: v.string() }), v.object({ fileId: v.string() }));

const vPost = {
  body: v.string(),
  importance: v.optional(vImportance),
  blocking: v.optional(v.boolean()),
  correlationId: v.optional(v.string()),
  artifacts: v.optional(v.array(vToolArtifact)),
  /** People and agents named besides the body's @mentions (HTTP `mentions`): each must be of the department. */
  mentions: v.optional(v.array(v.string())),
  /** A client's own id for this send (HTTP `client_message_id`): a retry with the same id posts nothing new and answers the first post. */
  clientMessageId: v.optional(v.string()),
};

/** The idempotency key of a send: the brain's (derived from its run), or the agent's own with the client's message id. */
function sendKey(agent: Doc<"agents">, key: string | undefined, clientMessageId: string | undefined): string | undefined {
  return key ?? clientSendKey(agent.sessionKey, clientMessageId);
}

type PostFields = { body: string; importance?: Importance; blocking?: boolean; correlationId?: string; artifacts?: Array<{ taskId: string } | { fileId: string }>; mentions?: string[] };

/**
 * A model's artifact references as message artifacts. Ids it made up are
 * refused here; whether the task or file may be attached (department, who
 * can read the file) is postChannelMessage's check, as for people.
 */
function toolArtifacts(ctx: QueryCtx, refs: ReadonlyArray<{ taskId: string } | { fileId: string }>): Artifact[] {
  return refs.map((ref) => {
    if ("taskId" in ref) {
      const taskId = ctx.db.normalizeId("tasks", ref.taskId);
      if (taskId === null) throw new MaestroError("NOT_FOUND", `No task ${ref.taskId}.`);
      return { kind: "task" as const, taskId };
    }
    const storageId = ctx.db.system.normalizeId("_storage", ref.fileId);
    if (storageId === null) throw new MaestroError("NOT_FOUND", `No file ${ref.fileId}.`);
    // Name, type and size are taken from the file's record by postChannelMessage.
    return { kind: "file" as const, storageId, name: "", contentType: "", size: 0 };
  });
}

async function post(ctx: MutationCtx, { agent, taskId }: Caller, channel: Doc<"channels">, { artifacts, ...fields }: PostFields, threadRoot?: Doc<"channelMessages">) {
  return await postChannelMessage(ctx, {
    channel,
    from: agentActor(agent),
    senderKey: agent.sessionKey,
    threadRoot,
    ...fields,
    artifacts: toolArtifacts(ctx, artifacts ?? []),
    // What the agent is working on is the message's context (the spec's task_id).
    context: taskId === null ? {} : { taskId },
  });
}

export const postChannelTool = internalMutation({
  args: { ...vCaller, ...vKey, channel: v.string(), ...vPost },
  returns: v.id("channelMessages"),
  handler: async (ctx, { runId, keyHash, key, channel, clientMessageId, ...fields }) => {
    const caller = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key: sendKey(caller.agent, key, clientMessageId), tool: "post_message", runId }, async () => await post(ctx, caller, await channelNamed(ctx, caller.agent, channel), fields));
  },
});

export const replyThreadTool = internalMutation({
  args: { ...vCaller, ...vKey, messageId: v.string(), ...vPost },
  returns: v.id("channelMessages"),
  handler: async (ctx, { runId, keyHash, key, messageId, clientMessageId, ...fields }) => {
    const caller = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key: sendKey(caller.agent, key, clientMessageId), tool: "reply_thread", runId }, async () => {
      const target = await readableMessageX(ctx, caller.agent.departmentId, caller.agent.sessionKey, messageId);
      const channel = (await ctx.db.get("channels", target.channelId))!;
      return await post(ctx, caller, channel, fields, (await threadRootOf(ctx, target))!);
    });
  },
});

/** `dm_send`: a DM from the agent to people (and agents, with a person among them), in the conversation of exactly them (made on first use). */
export const dmSendTool = internalMutation({
  args: { ...vCaller, ...vKey, to: v.array(v.string()), ...vPost },
  returns: v.object({ channelId: v.id("channels"), messageId: v.id("channelMessages") }),
  handler: async (ctx, { runId, keyHash, key, to, clientMessageId, ...fields }) => {
    const caller = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key: sendKey(caller.agent, key, clientMessageId), tool: "dm_send", runId }, async () => {
      const { agent } = caller;
      const others = await participantsNamed(ctx, agent.departmentId, to);
      const me = { key: agent.sessionKey, name: agent.name };
      const channel = (await dmOf(ctx, agent.departmentId, [me.key, ...others.map((o) => o.key)])) ?? (await createDm(ctx, agent.departmentId, agentActor(agent), [me, ...others]));
      return { channelId: channel._id, messageId: await post(ctx, caller, channel, fields) };
    });
  },
});

/** `channel_subscribe`: the agent follows a channel it may read (its new messages reach the agent's inbox), or stops following it. */
export const subscribeTool = internalMutation({
  args: { ...vCaller, ...vKey, channel: v.string(), subscribed: v.boolean() },
  returns: v.null(),
  handler: async (ctx, { runId, keyHash, key, channel: name, subscribed }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key, tool: "channel_subscribe", runId }, async () => {
      await setFollowing(ctx, await channelNamed(ctx, agent, name), { key: agent.sessionKey, name: agent.name }, subscribed);
      return null;
    });
  },
});

/** `channel_history(channel, limit, since)`: top-level messages, oldest first, newer than `since` (ms) when given. */
export const channelHistoryTool = internalQuery({
  args: { ...vCaller, channel: v.string(), limit: v.optional(v.number()), since: v.optional(v.number()) },
  returns: v.array(vChannelMessage),
  handler: async (ctx, { runId, keyHash, channel: name, limit, since }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const channel = await channelNamed(ctx, agent, name);
    return (await recentTopLevel(ctx, channel._id, since ?? 0, readLimit(limit))).map(publicMessage);
  },
});

/**
 * `GET /channels/{c}/messages` and `GET /dms/{d}/messages` (the HTTP API):
 * a page of top-level messages, oldest first, after a message (`after`, a
 * cursor's exact time) or from a whole millisecond (`atOrAfter`), else the
 * newest; `more` when others follow the page.
 */
export const channelPageTool = internalQuery({
  args: { ...vCaller, channel: v.string(), limit: v.optional(v.number()), after: v.optional(v.number()), atOrAfter: v.optional(v.number()) },
  returns: v.object({ messages: v.array(vChannelMessage), more: v.boolean() }),
  handler: async (ctx, { runId, keyHash, channel: name, limit, after, atOrAfter }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const channel = await channelNamed(ctx, agent, name);
    const start = after !== undefined ? { after } : atOrAfter !== undefined ? { atOrAfter } : null;
    const page = await topLevelPage(ctx, channel._id, start, readLimit(limit));
    return { messages: page.messages.map(publicMessage), more: page.more };
  },
});

/** `dm_list(limit)`: the agent's DMs, most recent first. */
export const dmListTool = internalQuery({
  args: { ...vCaller, limit: v.optional(v.number()) },
  returns: v.array(v.object({ channelId: v.id("channels"), with: v.array(v.string()), lastMessageAt: v.optional(v.number()), unread: v.number() })),
  handler: async (ctx, { runId, keyHash, limit }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const out = [];
    for (const row of await membershipsIn(ctx, agent.departmentId, agent.sessionKey)) {
      const channel = await ctx.db.get("channels", row.channelId);
      if (channel === null || channel.kind !== "dm") continue;
      const unread = await unreadCountIn(ctx, agent.sessionKey, channel._id, MAX_DM_UNREAD);
      out.push({ channelId: channel._id, with: await dmTitle(ctx, channel._id, agent.sessionKey), lastMessageAt: channel.lastMessageAt, unread });
    }
    out.sort((a, b) => (b.lastMessageAt ?? 0) - (a.lastMessageAt ?? 0));
    return out.slice(0, readLimit(limit));
  },
});

/** `agent` (id, name or "me"), when given, must be the caller: an agent reads only its own inbox. */
function requireOwnInbox(agent: Doc<"agents">, named: string | undefined): void {
  if (named !== undefined && named !== "me" && named !== agent._id && named.trim().replace(/^@/, "").toLowerCase() !== agent.nameKey) {
    throw new MaestroError("FORBIDDEN", "An agent reads only its own inbox.");
  }
}

/** `inbox.read(limit)`: the agent's unread messages, newest first; `agent` (id, name or "me"), when given, must be the caller. */
export const inboxReadTool = internalQuery({
  args: { ...vCaller, limit: v.optional(v.number()), agent: v.optional(v.string()) },
  returns: v.array(v.object({ id: v.string(), from: v.string(), where: v.string(), body: v.string(), importance: vImportance, direct: v.boolean(), createdAt: v.number() })),
  handler: async (ctx, { runId, keyHash, limit, agent: named }) => {
    const { agent, taskId } = await callerOf(ctx, { runId, keyHash });
    requireOwnInbox(agent, named);
    const unread = await unreadFor(ctx, agent, taskId, readLimit(limit));
    return unread.map(({ id, from, where, body, importance, direct, createdAt }) => ({ id, from, where, body, importance, direct, createdAt }));
  },
});

/** The agent's unread messages in full, newest first, with where each is and whether it names the agent: what `GET /agents/{id}/inbox` answers. */
export const inboxMessagesTool = internalQuery({
  args: { ...vCaller, limit: v.optional(v.number()), agent: v.optional(v.string()) },
  returns: v.array(v.object({ message: vChannelMessage, where: v.string(), direct: v.boolean() })),
  handler: async (ctx, { runId, keyHash, limit, agent: named }) => {
    const { agent, taskId } = await callerOf(ctx, { runId, keyHash });
    requireOwnInbox(agent, named);
    // A key reads from its own position, so an in-app run's reads take nothing from it (and the other way round).
    const rows =
      keyHash !== undefined
        ? await keyUnreadFor(ctx, agent, (await keyAgentWithSinceX(ctx, keyHash)).keySince, readLimit(limit))
        : await unreadFor(ctx, agent, taskId, readLimit(limit));
    const out = [];
    for (const row of rows) {
      const message = await ctx.db.get("channelMessages", row.id as Id<"channelMessages">);
      if (message !== null) out.push({ message: publicMessage(message), where: row.where, direct: row.direct });
    }
    return out;
  },
});

/** `messages.fetch(id)`: one message in full, when the agent may read its conversation. */
export const fetchMessageTool = internalQuery({
  args: { ...vCaller, messageId: v.string() },
  returns: vChannelMessage,
  handler: async (ctx, { runId, keyHash, messageId }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    return publicMessage(await readableMessageX(ctx, agent.departmentId, agent.sessionKey, messageId));
  },
});

const vChannelInfo = vChannelCard.extend({ createdBy: vActor, createdAt: v.number(), lastMessageAt: v.optional(v.number()) });

function channelInfo(channel: Doc<"channels">) {
  return { ...channelCard(channel), createdBy: channel.createdBy, createdAt: channel._creationTime, lastMessageAt: channel.lastMessageAt };
}

/** One conversation's card: what `GET /channels/{id}` answers. */
export const channelInfoTool = internalQuery({
  args: { ...vCaller, channel: v.string() },
  returns: vChannelInfo.extend({ members: v.array(v.string()) }),
  handler: async (ctx, { runId, keyHash, channel: ref }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const channel = await channelNamed(ctx, agent, ref);
    return { ...channelInfo(channel), members: (await channelMembers(ctx, channel._id)).map((m) => m.name) };
  },
});

/** The department's channels the agent may read (not DMs), by name: what `GET /projects/{id}/channels` answers. */
export const channelListTool = internalQuery({
  args: { ...vCaller },
  returns: v.array(vChannelInfo),
  handler: async (ctx, { runId, keyHash }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const out = [];
    for (const channel of await departmentChannels(ctx, agent.departmentId)) {
      if (await mayRead(ctx, channel, agent.sessionKey)) out.push(channelInfo(channel));
    }
    return out;
  },
});

/**
 * `channel_members` and `channel_topic`: a channel's creator (or the squad
 * lead) adds and removes people and agents, and sets the topic, as people
 * do from the channel's header (convex/channels.ts); each change is a
 * `channels.updated` event.
 */
export const manageChannelTool = internalMutation({
  args: {
    ...vCaller,
    ...vKey,
    channel: v.string(),
    add: v.optional(v.array(v.string())),
    remove: v.optional(v.array(v.string())),
    topic: v.optional(v.string()),
  },
  returns: v.object({ members: v.array(v.string()), topic: v.optional(v.string()) }),
  handler: async (ctx, { runId, keyHash, key, channel: ref, add = [], remove = [], topic }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    if (add.length + remove.length === 0 && topic === undefined) throw new MaestroError("INVALID_ARGUMENT", "Name people to add or remove, or a topic.");
    if (add.length + remove.length > 20) throw new MaestroError("INVALID_ARGUMENT", "Add or remove at most 20 at once.");
    return await oncePerKey(ctx, { key, tool: "channel_manage", runId }, async () => {
      const channel = await channelNamed(ctx, agent, ref);
      requireAgentManager(channel, agent);
      const actor = agentActor(agent);
      const event = { departmentId: channel.departmentId, type: "channels.updated" as const, actor, channelId: channel._id };
      for (const who of await participantsNamed(ctx, agent.departmentId, add)) {
        await join(ctx, channel, who, true);
        await emitEvent(ctx, { ...event, data: { added: who.name } });
      }
      for (const who of await participantsNamed(ctx, agent.departmentId, remove)) {
        await requireNotLastPerson(ctx, channel, who.key, who.name);
        const row = await leave(ctx, channel._id, who.key);
        await emitEvent(ctx, { ...event, data: { removed: row.name } });
      }
      let stored = channel.topic;
      if (topic !== undefined) {
        const clean = await setTopic(ctx, channel, topic);
        stored = clean === "" ? undefined : clean;
        await emitEvent(ctx, { ...event, data: { topic: clean } });
      }
      return { members: (await channelMembers(ctx, channel._id)).map((m) => m.name), topic: stored };
    });
  },
});

/** A thread: its first message and the replies, oldest first. */
export const threadTool = internalQuery({
  args: { ...vCaller, messageId: v.string() },
  returns: v.object({ root: vChannelMessage, replies: v.array(vChannelMessage), more: v.boolean() }),
  handler: async (ctx, { runId, keyHash, messageId }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const root = await readableMessageX(ctx, agent.departmentId, agent.sessionKey, messageId);
    if (root.threadRootId !== undefined) throw new MaestroError("NOT_FOUND", `Message ${messageId} is a reply, not a thread.`);
    return await threadView(ctx, root);
  },
});

/** `message_mark_read`: the given messages, or everything unread when none are named. */
export const markReadTool = internalMutation({
  args: { ...vCaller, ...vKey, messageIds: v.optional(v.array(v.string())) },
  returns: v.number(),
  handler: async (ctx, { runId, keyHash, key, messageIds }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const actor = agentActor(agent);
    if (keyHash !== undefined) {
      // The key's own read position (records/inbox markReadByKey): what it marks read stays unread for the agent's runs.
      return await markReadByKey(ctx, agent, (await keyAgentWithSinceX(ctx, keyHash)).keySince, messageIds, actor);
    }
    return await oncePerKey(ctx, { key, tool: "message_mark_read", runId }, async () =>
      messageIds === undefined ? await markAllRead(ctx, agent.sessionKey, agent.departmentId, actor) : await markMessagesRead(ctx, agent.sessionKey, messageIds, actor),
    );
  },
});
