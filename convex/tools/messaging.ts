/**
 * The messaging tools an agent calls during a run (messaging spec,
 * "Messaging Tools/APIs"): create a channel, post, reply in a thread, DM a
 * person, subscribe, read history, list DMs, read its inbox and mark read.
 * The agent and its department come from the run, never from the model's
 * arguments; channels are named as people write them (`#launch`).
 */
import { v, type Infer } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import { internalMutation, internalQuery, type MutationCtx, type QueryCtx } from "../_generated/server";
import { channelMembers, createChannel } from "../channels";
import { MAX_THREAD_REPLIES, postChannelMessage, publicMessage, vChannelMessage } from "../channelMessages";
import { agentForKeyHash } from "../agentApiKeys";
import { oncePerKey } from "./effects";
import { inboxRowsFor, markRowsRead } from "../inbox";
import { agentActor } from "../lib/actors";
import { canRead, dmKey, normalizeChannelName } from "../lib/channels";
import { MaestroError } from "../lib/errors";
import type { InjectionMessage } from "../lib/injection";
import { mentionCandidates } from "../messages";
import { vChannelKind, vChannelVisibility, vImportance, type Artifact } from "../validators";

/** Most messages one history or inbox read returns to a model. */
export const MAX_TOOL_MESSAGES = 50;

/**
 * Who calls a messaging operation: a running run's agent (the brain's tools)
 * or an agent outside Maestro by its API key's hash (the HTTP API and MCP
 * server, convex/http.ts). Exactly one of the two is given.
 */
const vCaller = { runId: v.optional(v.id("runs")), keyHash: v.optional(v.string()) };

/** A brain tool call's idempotency key (tools/idempotency): the same call from the same cause acts once (tools/effects). */
const vKey = { key: v.optional(v.string()) };

interface Caller {
  agent: Doc<"agents">;
  /** What the agent works on, which becomes its messages' context; none for a key. */
  taskId: Id<"tasks"> | null;
}

const KEY_REFUSAL_CODES: Record<number, "UNAUTHENTICATED" | "FORBIDDEN"> = { 401: "UNAUTHENTICATED", 403: "FORBIDDEN" };

async function callerOf(ctx: QueryCtx, { runId, keyHash }: { runId?: Id<"runs">; keyHash?: string }): Promise<Caller> {
  if ((runId === undefined) === (keyHash === undefined)) throw new MaestroError("INVALID_ARGUMENT", "Name either a run or an API key.");
  if (keyHash !== undefined) {
    const resolved = await agentForKeyHash(ctx, keyHash);
    if (resolved.kind === "error") throw new MaestroError(KEY_REFUSAL_CODES[resolved.status] ?? "FORBIDDEN", resolved.message);
    return { agent: resolved.agent, taskId: null };
  }
  const run = await ctx.db.get("runs", runId!);
  if (run === null || run.status !== "running") throw new MaestroError("INVALID_ARGUMENT", "This run is not running.");
  const agent = await ctx.db.get("agents", run.agentId);
  if (agent === null) throw new MaestroError("NOT_FOUND", "The agent no longer exists.");
  return { agent, taskId: run.taskId };
}

/** A conversation of the agent's department, by name (`#launch`) or id, which the agent may read. */
async function channelNamed(ctx: QueryCtx, agent: Doc<"agents">, raw: string): Promise<Doc<"channels">> {
  const id = ctx.db.normalizeId("channels", raw.trim());
  let channel: Doc<"channels"> | null;
  let label: string;
  if (id !== null) {
    channel = await ctx.db.get("channels", id);
    if (channel?.departmentId !== agent.departmentId) channel = null;
    label = `conversation ${raw.trim()}`;
  } else {
    const name = raw.trim().replace(/^#/, "").toLowerCase();
    channel = await ctx.db
      .query("channels")
      .withIndex("by_department_and_kind_and_name", (q) => q.eq("departmentId", agent.departmentId).eq("kind", "channel").eq("name", name))
      .unique();
    label = `channel #${name}`;
  }
  if (channel === null) throw new MaestroError("NOT_FOUND", `No ${label} in this department.`);
  const member = (await channelMembers(ctx, channel._id)).some((m) => m.key === agent.sessionKey);
  if (!canRead(channel, member)) throw new MaestroError("FORBIDDEN", `${channel.kind === "dm" ? "That DM" : `#${channel.name}`} is private and you are not a member.`);
  return channel;
}

/** A message of the agent's department in a conversation the agent may read. */
async function readableMessage(ctx: QueryCtx, agent: Doc<"agents">, messageId: string): Promise<Doc<"channelMessages">> {
  const id = ctx.db.normalizeId("channelMessages", messageId.trim());
  const message = id === null ? null : await ctx.db.get("channelMessages", id);
  if (message === null || message.departmentId !== agent.departmentId) throw new MaestroError("NOT_FOUND", `No message ${messageId}.`);
  const channel = (await ctx.db.get("channels", message.channelId))!;
  const member = (await channelMembers(ctx, channel._id)).some((m) => m.key === agent.sessionKey);
  if (!canRead(channel, member)) throw new MaestroError("FORBIDDEN", "You cannot read that conversation.");
  return message;
}

/** People and agents named in a tool call, resolved to keys of the department (names as in @mentions). */
async function keysNamed(ctx: QueryCtx, departmentId: Id<"departments">, names: string[]): Promise<string[]> {
  const candidates = await mentionCandidates(ctx, departmentId);
  return names.map((raw) => {
    const name = raw.trim().replace(/^@/, "").toLowerCase();
    const found = candidates.find((c) => c.name.toLowerCase() === name || c.key === raw);
    if (found === undefined) throw new MaestroError("NOT_FOUND", `Nobody called ${JSON.stringify(raw)} in this department.`);
    return found.key;
  });
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
};

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

async function post(
  ctx: MutationCtx,
  agent: Doc<"agents">,
  taskId: Id<"tasks"> | null,
  channel: Doc<"channels">,
  { artifacts, ...fields }: { body: string; importance?: "normal" | "high" | "critical"; blocking?: boolean; correlationId?: string; artifacts?: Array<{ taskId: string } | { fileId: string }> },
  threadRoot?: Doc<"channelMessages">,
) {
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
  handler: async (ctx, { runId, keyHash, key, channel, ...fields }) => {
    const { agent, taskId } = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key, tool: "post_message", runId }, async () => await post(ctx, agent, taskId, await channelNamed(ctx, agent, channel), fields));
  },
});

export const replyThreadTool = internalMutation({
  args: { ...vCaller, ...vKey, messageId: v.string(), ...vPost },
  returns: v.id("channelMessages"),
  handler: async (ctx, { runId, keyHash, key, messageId, ...fields }) => {
    const { agent, taskId } = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key, tool: "reply_thread", runId }, async () => {
      const target = await readableMessage(ctx, agent, messageId);
      const channel = (await ctx.db.get("channels", target.channelId))!;
      const root = target.threadRootId === undefined ? target : (await ctx.db.get("channelMessages", target.threadRootId))!;
      return await post(ctx, agent, taskId, channel, fields, root);
    });
  },
});

/** `dm_send`: a DM from the agent to people (and agents, with a person among them). */
export const dmSendTool = internalMutation({
  args: { ...vCaller, ...vKey, to: v.array(v.string()), ...vPost },
  returns: v.object({ channelId: v.id("channels"), messageId: v.id("channelMessages") }),
  handler: async (ctx, { runId, keyHash, key: callKey, to, ...fields }) => {
    const { agent, taskId } = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key: callKey, tool: "dm_send", runId }, async () => await sendDm(ctx, agent, taskId, to, fields));
  },
});

/** A DM from `agent` to the people and agents named in `to`, in the conversation of exactly them (made on first use). */
async function sendDm(ctx: MutationCtx, agent: Doc<"agents">, taskId: Id<"tasks"> | null, to: string[], fields: Parameters<typeof post>[4]) {
  const others = await keysNamed(ctx, agent.departmentId, to);
  const key = dmKey([agent.sessionKey, ...others]);
  let channel = await ctx.db
    .query("channels")
    .withIndex("by_department_and_dmKey", (q) => q.eq("departmentId", agent.departmentId).eq("dmKey", key))
    .unique();
  if (channel === null) {
    const channelId = await ctx.db.insert("channels", {
      departmentId: agent.departmentId,
      kind: "dm",
      name: `dm:${key}`,
      visibility: "private",
      createdBy: agentActor(agent),
      dmKey: key,
    });
    const candidates = await mentionCandidates(ctx, agent.departmentId);
    for (const k of key.split(",")) {
      const name = candidates.find((c) => c.key === k)?.name ?? k;
      await ctx.db.insert("channelMembers", { channelId, departmentId: agent.departmentId, key: k, name, subscribed: true });
    }
    channel = (await ctx.db.get("channels", channelId))!;
  }
  const messageId = await post(ctx, agent, taskId, channel, fields);
  return { channelId: channel._id, messageId };
}

export const subscribeTool = internalMutation({
  args: { ...vCaller, ...vKey, channel: v.string(), subscribed: v.boolean() },
  returns: v.null(),
  handler: async (ctx, { runId, keyHash, key, channel: name, subscribed }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key, tool: "channel_subscribe", runId }, async () => await subscribe(ctx, agent, name, subscribed));
  },
});

/** The agent follows a channel it may read (its new messages reach the agent's inbox), or stops following it. */
async function subscribe(ctx: MutationCtx, agent: Doc<"agents">, name: string, subscribed: boolean) {
  const channel = await channelNamed(ctx, agent, name);
  const row = (await channelMembers(ctx, channel._id)).find((m) => m.key === agent.sessionKey);
  if (row !== undefined) await ctx.db.patch("channelMembers", row._id, { subscribed });
  else if (subscribed) await ctx.db.insert("channelMembers", { channelId: channel._id, departmentId: agent.departmentId, key: agent.sessionKey, name: agent.name, subscribed });
  return null;
}

/** `channel_history(channel, limit, since)`: top-level messages, oldest first, newer than `since` (ms) when given. */
export const channelHistoryTool = internalQuery({
  args: { ...vCaller, channel: v.string(), limit: v.optional(v.number()), since: v.optional(v.number()) },
  returns: v.array(vChannelMessage),
  handler: async (ctx, { runId, keyHash, channel: name, limit, since }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const channel = await channelNamed(ctx, agent, name);
    const n = Math.max(1, Math.min(MAX_TOOL_MESSAGES, Math.floor(limit ?? 20)));
    const rows = await ctx.db
      .query("channelMessages")
      // Every index ends with _creationTime, so `since` is a range on it, not a filter.
      .withIndex("by_channel_and_thread", (q) => q.eq("channelId", channel._id).eq("threadRootId", undefined).gt("_creationTime", since ?? 0))
      .order("desc")
      .take(n);
    return rows.reverse().map(publicMessage);
  },
});

/** `dm_list(limit)`: the agent's DMs, most recent first. */
export const dmListTool = internalQuery({
  args: { ...vCaller, limit: v.optional(v.number()) },
  returns: v.array(v.object({ channelId: v.id("channels"), with: v.array(v.string()), lastMessageAt: v.optional(v.number()), unread: v.number() })),
  handler: async (ctx, { runId, keyHash, limit }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const mine = await ctx.db
      .query("channelMembers")
      .withIndex("by_key_and_department", (q) => q.eq("key", agent.sessionKey).eq("departmentId", agent.departmentId))
      .take(500);
    const out = [];
    for (const row of mine) {
      const channel = await ctx.db.get("channels", row.channelId);
      if (channel === null || channel.kind !== "dm") continue;
      const others = (await channelMembers(ctx, channel._id)).filter((m) => m.key !== agent.sessionKey).map((m) => m.name);
      const unread = await ctx.db
        .query("inbox")
        .withIndex("by_recipient_and_channel_and_readAt", (q) => q.eq("recipientKey", agent.sessionKey).eq("channelId", channel._id).eq("readAt", undefined))
        .take(100);
      out.push({ channelId: channel._id, with: others, lastMessageAt: channel.lastMessageAt, unread: unread.length });
    }
    out.sort((a, b) => (b.lastMessageAt ?? 0) - (a.lastMessageAt ?? 0));
    return out.slice(0, Math.max(1, Math.min(MAX_TOOL_MESSAGES, Math.floor(limit ?? 20))));
  },
});

/**
 * The agent's unread messages as the injection budget takes them
 * (lib/injection), newest first; `inbox.read` shows the same to the model.
 */
export async function unreadFor(ctx: QueryCtx, agent: Doc<"agents">, taskId: Id<"tasks"> | null, limit: number): Promise<InjectionMessage[]> {
  const rows = await ctx.db
    .query("inbox")
    .withIndex("by_recipient_and_department_and_readAt", (q) => q.eq("recipientKey", agent.sessionKey).eq("departmentId", agent.departmentId).eq("readAt", undefined))
    .order("desc")
    .take(limit);
  const out: InjectionMessage[] = [];
  for (const row of rows) {
    const message = await ctx.db.get("channelMessages", row.messageId);
    const channel = await ctx.db.get("channels", row.channelId);
    if (message === null || channel === null) continue;
    const where = channel.kind === "dm" ? "a DM" : message.threadRootId !== undefined ? `thread in #${channel.name}` : `#${channel.name}`;
    out.push({
      id: message._id,
      from: message.from.kind === "system" ? "Maestro" : message.from.name,
      where,
      body: message.body,
      importance: message.importance,
      direct: row.direct,
      aboutTask: taskId !== null && (message.context.taskId === taskId || message.context.batchId === taskId),
      createdAt: message._creationTime,
      threadId: message.threadRootId ?? undefined,
    });
  }
  return out;
}

export const inboxReadTool = internalQuery({
  // `agent` (id, name or "me"), when given, must be the caller: an agent reads only its own inbox.
  args: { ...vCaller, limit: v.optional(v.number()), agent: v.optional(v.string()) },
  returns: v.array(v.object({ id: v.string(), from: v.string(), where: v.string(), body: v.string(), importance: vImportance, direct: v.boolean(), createdAt: v.number() })),
  handler: async (ctx, { runId, keyHash, limit, agent: named }) => {
    const { agent, taskId } = await callerOf(ctx, { runId, keyHash });
    if (named !== undefined && named !== "me" && named !== agent._id && named.trim().replace(/^@/, "").toLowerCase() !== agent.nameKey) {
      throw new MaestroError("FORBIDDEN", "An agent reads only its own inbox.");
    }
    const unread = await unreadFor(ctx, agent, taskId, Math.max(1, Math.min(MAX_TOOL_MESSAGES, Math.floor(limit ?? 20))));
    return unread.map(({ id, from, where, body, importance, direct, createdAt }) => ({ id, from, where, body, importance, direct, createdAt }));
  },
});

/** `messages.fetch(id)`: one message in full, when the agent may read its conversation. */
export const fetchMessageTool = internalQuery({
  args: { ...vCaller, messageId: v.string() },
  returns: vChannelMessage,
  handler: async (ctx, { runId, keyHash, messageId }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    return publicMessage(await readableMessage(ctx, agent, messageId));
  },
});

/** One conversation's card: what `GET /channels/{id}` answers. */
export const channelInfoTool = internalQuery({
  args: { ...vCaller, channel: v.string() },
  returns: v.object({
    _id: v.id("channels"),
    kind: vChannelKind,
    name: v.string(),
    topic: v.optional(v.string()),
    visibility: vChannelVisibility,
    archived: v.boolean(),
    members: v.array(v.string()),
    lastMessageAt: v.optional(v.number()),
  }),
  handler: async (ctx, { runId, keyHash, channel: ref }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const channel = await channelNamed(ctx, agent, ref);
    return {
      _id: channel._id,
      kind: channel.kind,
      name: channel.name,
      topic: channel.topic,
      visibility: channel.visibility,
      archived: channel.archivedAt !== undefined,
      members: (await channelMembers(ctx, channel._id)).map((m) => m.name),
      lastMessageAt: channel.lastMessageAt,
    };
  },
});

/** A thread: its first message and the replies, oldest first. */
export const threadTool = internalQuery({
  args: { ...vCaller, messageId: v.string() },
  returns: v.object({ root: vChannelMessage, replies: v.array(vChannelMessage), more: v.boolean() }),
  handler: async (ctx, { runId, keyHash, messageId }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    const root = await readableMessage(ctx, agent, messageId);
    if (root.threadRootId !== undefined) throw new MaestroError("NOT_FOUND", `Message ${messageId} is a reply, not a thread.`);
    const replies = await ctx.db
      .query("channelMessages")
      .withIndex("by_thread", (q) => q.eq("threadRootId", root._id))
      .take(MAX_THREAD_REPLIES + 1);
    return { root: publicMessage(root), replies: replies.slice(0, MAX_THREAD_REPLIES).map(publicMessage), more: replies.length > MAX_THREAD_REPLIES };
  },
});

/** `message_mark_read`: the given messages, or everything unread when none are named. */
export const markReadTool = internalMutation({
  args: { ...vCaller, ...vKey, messageIds: v.optional(v.array(v.string())) },
  returns: v.number(),
  handler: async (ctx, { runId, keyHash, key, messageIds }) => {
    const { agent } = await callerOf(ctx, { runId, keyHash });
    return await oncePerKey(ctx, { key, tool: "message_mark_read", runId }, async () => await markRead(ctx, agent, messageIds));
  },
});

/** Marks the agent's inbox rows of `messageIds` read (all unread ones when none are named); returns how many. */
async function markRead(ctx: MutationCtx, agent: Doc<"agents">, messageIds: string[] | undefined) {
  const rows =
    messageIds === undefined
      ? await ctx.db
          .query("inbox")
          .withIndex("by_recipient_and_department_and_readAt", (q) => q.eq("recipientKey", agent.sessionKey).eq("departmentId", agent.departmentId).eq("readAt", undefined))
          .take(500)
      : await inboxRowsFor(ctx, agent.sessionKey, messageIds.slice(0, 500));
  return rows.length === 0 ? 0 : await markRowsRead(ctx, rows, agentActor(agent));
}


/** Most blocking messages one model call opens with. */
export const MAX_BLOCKING_PER_CALL = 5;
/** Most unread messages weighed for one injection (lib/injection ranks and packs them). */
export const MAX_INJECTION_CANDIDATES = 150;

const vInjectionMessage = v.object({
  id: v.string(),
  from: v.string(),
  where: v.string(),
  body: v.string(),
  importance: vImportance,
  direct: v.boolean(),
  aboutTask: v.boolean(),
  createdAt: v.number(),
  threadId: v.optional(v.string()),
});

/**
 * What arrived for a run's agent, for the prompt: unhandled blocking
 * messages (they open the call) and everything else unread (packed into the
 * injection budget). Null when the agent is gone.
 */
/** What an agent's run is shown from its inbox: the unread messages, blocking ones apart (null when the run or agent is gone). */
export const vRunInbox = v.union(v.null(), v.object({ blocking: v.array(vInjectionMessage), unread: v.array(vInjectionMessage) }));

export async function inboxOfRun(ctx: QueryCtx, runId: Id<"runs">): Promise<Infer<typeof vRunInbox>> {
  const run = await ctx.db.get("runs", runId);
  const agent = run === null ? null : await ctx.db.get("agents", run.agentId);
  if (run === null || agent === null) return null;
  const unread = await unreadFor(ctx, agent, run.taskId, MAX_INJECTION_CANDIDATES);
  const blockingIds = new Set<string>();
  const rows = await ctx.db
    .query("inbox")
    .withIndex("by_recipient_and_department_and_readAt", (q) => q.eq("recipientKey", agent.sessionKey).eq("departmentId", agent.departmentId).eq("readAt", undefined))
    .order("desc")
    .take(MAX_INJECTION_CANDIDATES);
  for (const row of rows) if (row.blocking && row.handledAt === undefined && blockingIds.size < MAX_BLOCKING_PER_CALL) blockingIds.add(row.messageId);
  return {
    blocking: unread.filter((m) => blockingIds.has(m.id)).reverse(),
    unread: unread.filter((m) => !blockingIds.has(m.id)),
  };
}

export const inboxForRun = internalQuery({
  args: { runId: v.id("runs") },
  returns: vRunInbox,
  handler: async (ctx, { runId }) => await inboxOfRun(ctx, runId),
});

/**
 * After the model has seen an injection: what it was shown counts as read,
 * and the blocking messages it opened with as handled (the run resumed with them).
 */
export const afterInjection = internalMutation({
  args: { runId: v.id("runs"), shown: v.array(v.string()), blocking: v.array(v.string()) },
  returns: v.null(),
  handler: async (ctx, { runId, shown, blocking }) => {
    await markInjectionSeen(ctx, runId, shown, blocking);
    return null;
  },
});

/** What `afterInjection` does, for a mutation that folds it into its own transaction. */
export async function markInjectionSeen(ctx: MutationCtx, runId: Id<"runs">, shown: string[], blocking: string[]) {
  const run = await ctx.db.get("runs", runId);
  const agent = run === null ? null : await ctx.db.get("agents", run.agentId);
  if (agent === null) return;
  const now = Date.now();
  const rows = await inboxRowsFor(ctx, agent.sessionKey, [...blocking, ...shown].slice(0, MAX_INJECTION_CANDIDATES + MAX_BLOCKING_PER_CALL));
  for (const row of rows) {
    if (blocking.includes(row.messageId) && row.handledAt === undefined) await ctx.db.patch("inbox", row._id, { handledAt: now });
  }
  if (rows.length > 0) await markRowsRead(ctx, rows, agentActor(agent));
}
