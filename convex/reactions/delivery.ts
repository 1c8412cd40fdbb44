/**
 * A message is posted in a channel, a thread or a DM, and delivered. Every
 * check happens before the first write, so a refused post changes nothing:
 * who may post, the rate limit, size and secrets, the artifacts and the
 * message's task. Then the message reaches its recipients' inboxes, the
 * event log says so, and the agents it is addressed to (a DM, an
 * @mention) hear of it (messaging spec, "Blocking vs Non-blocking"): an idle
 * one starts a run whatever the message's importance; a busy one's run opens
 * its next model call with a blocking message, and sees any other when it
 * ends (one asking again in the same conversation before its run started is
 * folded into that run, and answered with it). Only people's messages start
 * runs, so two agents cannot keep each other running.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { feedMayQuote, isMemberKey, postRefusal, recipientsOf, type Recipient } from "../lib/channels";
import { MaestroError } from "../lib/errors";
import { LIMITS } from "../lib/limits";
import { cleanText } from "../lib/validate";
import type { Actor, Artifact, Importance } from "../validators";
import { CHANNEL_PREVIEW_CHARS, recordActivity } from "../records/activities";
import { agentBySessionKey } from "../records/agents";
import { markPosted } from "../records/channelFiles";
import { checkArtifacts, countReply, insertChannelMessage, threadParticipants } from "../records/channelMessages";
import { channelMembers, touchChannel } from "../records/channels";
import { emitEvent } from "../records/events";
import { deliverToInboxes } from "../records/inbox";
import { mentionsIn, mentionsNamed } from "../records/messages";
import { limitOrThrow } from "../records/rateLimits";
import { runInProgressOf, runsOfAgent } from "../records/runs";
import { redactForDepartment } from "../records/settings";
import { holdInboxTask, inboxTaskKey, insertTask, taskByDelegationKey } from "../records/tasks";
import { enqueueRun, foldIntoRun } from "./runQueue";

/** Runs of one agent scanned for its current task. */
const RUN_SCAN = 20;

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
  /** People and agents the sender names besides those @named in the body (the spec's `mentions[]`; unknown names refused). */
  mentions?: readonly string[];
}

/** Posts a message (top-level, thread reply or DM) and delivers it; returns its id. */
export async function postChannelMessage(ctx: MutationCtx, input: PostInput): Promise<Id<"channelMessages">> {
  const { channel } = input;
  const members = await channelMembers(ctx, channel._id);
  const refusal = postRefusal(channel, members.some((m) => m.key === input.senderKey));
  if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
  await limitOrThrow(ctx, "messagePost", input.senderKey);
  // A message may be just files (or links): then its text may be empty.
  const allowEmpty = (input.artifacts ?? []).length > 0;
  const body = await redactForDepartment(ctx, channel.departmentId, "message", cleanText("A message", input.body, LIMITS.messageChars, { allowEmpty }));
  const { artifacts, attach } = await checkArtifacts(ctx, channel, input.senderKey, input.artifacts ?? []);
  for (const id of [input.context?.taskId, input.context?.batchId]) {
    if (id === undefined) continue;
    const task = await ctx.db.get("tasks", id);
    if (task === null || task.departmentId !== channel.departmentId) throw new MaestroError("NOT_FOUND", "The message's task is not in this department.");
  }
  const named = await mentionsNamed(ctx, channel.departmentId, input.mentions ?? []);
  const inBody = await mentionsIn(ctx, channel.departmentId, body);
  // The body's @mentions in their order, then the ones named only in `mentions`.
  const mentions = [...inBody, ...named.filter((m) => !inBody.some((b) => b.key === m.key))];
  const root = input.threadRoot;
  const type = channel.kind === "dm" ? "dm" : root !== undefined ? "thread" : "channel";
  const recipients = recipientsOf({
    sender: input.senderKey,
    kind: channel.kind,
    visibility: channel.visibility,
    members,
    mentioned: mentions.map((m) => m.key),
    threadParticipants: root === undefined ? undefined : await threadParticipants(ctx, root),
  });
  const importance = input.importance ?? "normal";
  const blocking = input.blocking ?? false;
  const now = Date.now();
  const messageId = await insertChannelMessage(ctx, {
    departmentId: channel.departmentId,
    channelId: channel._id,
    type,
    threadRootId: root?._id,
    from: input.from,
    to: channel.kind === "dm" ? members.map((m) => m.key).filter((k) => k !== input.senderKey) : undefined,
    body,
    mentions,
    artifacts,
    importance,
    blocking,
    correlationId: input.correlationId,
    context: input.context ?? {},
    replyCount: 0,
  });
  if (root !== undefined && (await countReply(ctx, root, now))) {
    await emitEvent(ctx, { departmentId: channel.departmentId, type: "messaging.thread_created", actor: input.from, channelId: channel._id, messageId: root._id });
  }
  if (channel.lastMessageAt === undefined) {
    // The conversation's message list is created by its first message (the spec's `messaging.created`); every post is `messaging.posted`.
    await emitEvent(ctx, { departmentId: channel.departmentId, type: "messaging.created", actor: input.from, channelId: channel._id, messageId, correlationId: input.correlationId, data: { type } });
  }
  await markPosted(ctx, attach, messageId);
  await touchChannel(ctx, channel._id, now);
  await deliverToInboxes(ctx, { departmentId: channel.departmentId, channelId: channel._id, messageId, importance, blocking }, recipients);
  await deliverToAddressed(ctx, messageId, recipients);
  await emitEvent(ctx, {
    departmentId: channel.departmentId,
    type: "messaging.posted",
    actor: input.from,
    channelId: channel._id,
    messageId,
    correlationId: input.correlationId,
    data: { type, importance, blocking, chars: body.length, recipients: recipients.length },
  });
  return messageId;
}

/**
 * A message was delivered: each agent it is addressed to (a DM, or an
 * @mention) that is idle is woken by a person's message, whatever its
 * importance; a busy one is interrupted at its next model call only by a
 * blocking message (the spec's "Blocking"), and otherwise sees the message
 * when its run ends (reactions/runEnd wakes it for what it did not see),
 * unless its run has not started yet and the message asks again where that
 * run will answer: then the run takes it up too (askedAgainBeforeStart).
 * Followers of a channel get a blocking message in their next call but are
 * not woken for it.
 */
async function deliverToAddressed(ctx: MutationCtx, messageId: Id<"channelMessages">, recipients: readonly Recipient[]): Promise<void> {
  const message = await ctx.db.get("channelMessages", messageId);
  if (message === null) return;
  for (const { key, direct } of recipients) {
    if (!direct || isMemberKey(key)) continue;
    const agent = await agentBySessionKey(ctx, key);
    if (agent === null || agent.departmentId !== message.departmentId) continue;
    const busy = await runInProgressOf(ctx, agent, message.context.taskId);
    if (busy !== null && !message.blocking && message.from.kind === "member" && (await askedAgainBeforeStart(ctx, busy, message))) {
      // Its why names this one too (brain/context), and its one reply answers in that conversation.
      const folded = await enqueueRun(ctx, agent, busy.taskId, { kind: "message", channelMessageId: message._id });
      if (folded.runId !== null) await recordOnTimeline(ctx, agent, busy.taskId, message);
    } else if (busy !== null) {
      if (!message.blocking) continue;
      // Folded without a rerun: the next model call opens with it, and a run that ends first wakes again (reactions/runEnd).
      await foldIntoRun(ctx, busy, { kind: "message", channelMessageId: message._id });
      await recordOnTimeline(ctx, agent, busy.taskId, message);
    } else if (message.from.kind === "member") {
      await startFor(ctx, agent, message);
    }
  }
}

/**
 * Whether `message` asks the agent again, before its run `busy` started, in
 * the conversation that run was started for and will answer in (the same
 * DM, or the same thread of a channel): then it is folded into the run
 * rather than left to the messages for it, so it gets an answer of its own.
 * A message elsewhere is not: the run's one reply would answer it in the
 * wrong place (a DM's words in a channel).
 */
async function askedAgainBeforeStart(ctx: MutationCtx, busy: Doc<"runs">, message: Doc<"channelMessages">): Promise<boolean> {
  if (busy.status !== "queued" || busy.trigger.kind !== "message" || busy.trigger.channelMessageId === undefined) return false;
  const asked = await ctx.db.get("channelMessages", busy.trigger.channelMessageId);
  if (asked === null || asked.channelId !== message.channelId) return false;
  return message.type === "dm" || (asked.threadRootId ?? asked._id) === (message.threadRootId ?? message._id);
}

/**
 * Starts a run of `agent` for a message addressed to it, on the task the
 * message is about; the run id, or null when none could start (offline, no model).
 */
export async function startFor(ctx: MutationCtx, agent: Doc<"agents">, message: Doc<"channelMessages">): Promise<Id<"runs"> | null> {
  const taskId = await taskForMessage(ctx, agent, message);
  const result = await enqueueRun(ctx, agent, taskId, { kind: "message", channelMessageId: message._id });
  if (result.runId !== null) await recordOnTimeline(ctx, agent, taskId, message);
  return result.runId;
}

/**
 * The task a blocking message's run works on: the message's task, else its
 * batch, else the agent's current task (its latest run's task while still in
 * progress), else the agent's own inbox task, created once.
 */
async function taskForMessage(ctx: MutationCtx, agent: Doc<"agents">, message: Doc<"channelMessages">): Promise<Id<"tasks">> {
  for (const id of [message.context.taskId, message.context.batchId]) {
    if (id === undefined) continue;
    const task = await ctx.db.get("tasks", id);
    if (task !== null && task.departmentId === agent.departmentId) return task._id;
  }
  for (const run of await runsOfAgent(ctx, agent._id, RUN_SCAN)) {
    const task = await ctx.db.get("tasks", run.taskId);
    if (task !== null && task.status === "in_progress" && task.assigneeSessionKeys.includes(agent.sessionKey)) return task._id;
  }
  return await agentInboxTask(ctx, agent);
}

/**
 * The agent's own inbox task (work that names no task: messages to it,
 * #maestro mentions), created once. It holds the runs and their approvals,
 * but is no card: the board never shows it (records/tasks `inboxOf`), and
 * those runs answer where they were asked (reactions/runEnd).
 */
export async function agentInboxTask(ctx: MutationCtx, agent: Doc<"agents">): Promise<Id<"tasks">> {
  const key = inboxTaskKey(agent.sessionKey);
  const existing = await taskByDelegationKey(ctx, key);
  if (existing !== null) {
    // One made before inbox tasks left the board leaves it now.
    if (existing.inboxOf === undefined) await holdInboxTask(ctx, existing, agent.sessionKey);
    return existing._id;
  }
  // Created unassigned (no assignment run, no line in the feed: it is no card), then given to the agent quietly.
  const { task } = await insertTask(ctx, { kind: "system" }, {
    departmentId: agent.departmentId,
    title: `Inbox: ${agent.name}`,
    description: `Messages to ${agent.name} that name no task: its runs for them, and what it replied.`,
    tags: ["inbox"],
    delegationKey: key,
  });
  await holdInboxTask(ctx, task, agent.sessionKey);
  return task._id;
}

/** The task timeline's line: who sent the agent a message (blocking or not) that started or joined its run, on the task it works on. */
async function recordOnTimeline(ctx: MutationCtx, agent: Doc<"agents">, taskId: Id<"tasks">, message: Doc<"channelMessages">): Promise<void> {
  const task = await ctx.db.get("tasks", taskId);
  const channel = await ctx.db.get("channels", message.channelId);
  // The feed is the whole department's: a DM's or private channel's words stay with its members.
  const quoted = channel !== null && feedMayQuote(channel);
  await recordActivity(ctx, {
    departmentId: agent.departmentId,
    type: "blocking_message_received",
    actor: message.from,
    taskId,
    channelMessageId: message._id,
    data: {
      title: task?.title ?? null,
      agent: agent.name,
      preview: quoted ? message.body.slice(0, CHANNEL_PREVIEW_CHARS) : null,
      ...(quoted ? {} : { where: channel?.kind === "dm" ? "a DM" : "a private channel" }),
      blocking: message.blocking,
    },
  });
}
