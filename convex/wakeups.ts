/**
 * What wakes an agent from its inbox (messaging spec, "Blocking vs
 * Non-blocking"). A blocking message to an idle agent starts its run; to a
 * busy agent it is folded into the run it is in, whose next model call opens
 * with it (tools/messaging inboxForRun). Either way the run's stream records
 * it (`user_message_submitted`, blocking) and the task timeline says who
 * sent it. It is handled once a model call has opened with it
 * (tools/messaging afterInjection).
 *
 * When a run ends and the agent has nothing else running: a blocking message
 * that arrived during the run but was never shown starts the next run; else
 * what arrived unread during the run gets one end-of-run nudge, a short
 * follow-up run. A message nudges at most once, and a nudge run never nudges.
 *
 * Only people's blocking messages start runs: an agent's interrupts a run
 * already going but never wakes an idle agent (as with @mentions), so two
 * agents cannot keep each other running.
 *
 * A run a blocking message started answers where it was asked (answerWhereAsked).
 */
import type { Doc, Id } from "./_generated/dataModel";
import type { MutationCtx } from "./_generated/server";
import { cutForThread } from "./brain/toolCalls";
import { postChannelMessage } from "./channelMessages";
import { actorName, agentActor } from "./lib/actors";
import { recordActivity } from "./lib/activity";
import { isMemberKey } from "./lib/channels";
import { MaestroError } from "./lib/errors";
import { agentBySessionKey, enqueueRun, submitTrigger } from "./runs";
import { createTask } from "./tasks";

/** Runs of one agent scanned for the one it is in, or its current task. */
const RUN_SCAN = 20;
/** Unread rows weighed when a run ends. */
const UNREAD_SCAN = 150;
/** Senders a nudge names before "and others". */
const NUDGE_NAMES = 3;
/** The per-agent task that holds runs for blocking messages about no task. */
export const inboxTaskKey = (sessionKey: string) => `inbox:${sessionKey}`;

function whereOf(channel: Doc<"channels"> | null, message: Doc<"channelMessages">): string {
  if (channel === null) return "a conversation";
  if (channel.kind === "dm") return "a DM";
  return message.threadRootId !== undefined ? `a thread in #${channel.name}` : `#${channel.name}`;
}

/** The agent's run in progress (running before queued), preferring one on `taskId`; null when it is idle. */
export async function activeRunOf(ctx: MutationCtx, agent: Doc<"agents">, taskId?: Id<"tasks">): Promise<Doc<"runs"> | null> {
  const active: Array<Doc<"runs">> = [];
  for (const status of ["running", "queued"] as const) {
    active.push(
      ...(await ctx.db
        .query("runs")
        .withIndex("by_agent_and_status", (q) => q.eq("agentSessionKey", agent.sessionKey).eq("status", status))
        .take(RUN_SCAN)),
    );
  }
  return active.find((run) => run.taskId === taskId) ?? active[0] ?? null;
}

/**
 * The task a blocking message's run works on: the message's task, else its
 * batch, else the agent's current task (its latest run's task while still in
 * progress), else the agent's own inbox task, created once.
 */
export async function taskForMessage(ctx: MutationCtx, agent: Doc<"agents">, message: Doc<"channelMessages">): Promise<Id<"tasks">> {
  for (const id of [message.context.taskId, message.context.batchId]) {
    if (id === undefined) continue;
    const task = await ctx.db.get("tasks", id);
    if (task !== null && task.departmentId === agent.departmentId) return task._id;
  }
  const recent = await ctx.db
    .query("runs")
    .withIndex("by_agentId", (q) => q.eq("agentId", agent._id))
    .order("desc")
    .take(RUN_SCAN);
  for (const run of recent) {
    const task = await ctx.db.get("tasks", run.taskId);
    if (task !== null && task.status === "in_progress" && task.assigneeSessionKeys.includes(agent.sessionKey)) return task._id;
  }
  const key = inboxTaskKey(agent.sessionKey);
  const existing = await ctx.db
    .query("tasks")
    .withIndex("by_delegationKey", (q) => q.eq("delegationKey", key))
    .first();
  if (existing !== null) return existing._id;
  // Created unassigned (no assignment run), then given to the agent quietly.
  const taskId = await createTask(ctx, { kind: "system" }, {
    departmentId: agent.departmentId,
    title: `Inbox: ${agent.name}`,
    description: `Blocking messages to ${agent.name} that name no task: its runs for them, and what it replied.`,
    tags: ["inbox"],
  });
  await ctx.db.patch("tasks", taskId, { delegationKey: key, assigneeSessionKeys: [agent.sessionKey] });
  return taskId;
}

/** The task timeline's line: who sent the agent a blocking message, on the task its run works on. */
async function recordOnTimeline(ctx: MutationCtx, agent: Doc<"agents">, taskId: Id<"tasks">, message: Doc<"channelMessages">) {
  const task = await ctx.db.get("tasks", taskId);
  await recordActivity(ctx, {
    departmentId: agent.departmentId,
    type: "blocking_message_received",
    actor: message.from,
    taskId,
    data: { title: task?.title ?? null, agent: agent.name, preview: message.body.slice(0, 120) },
  });
}

/** Starts a run of `agent` for a blocking message; the run id, or null when none could start (offline, no model). */
async function startFor(ctx: MutationCtx, agent: Doc<"agents">, message: Doc<"channelMessages">): Promise<Id<"runs"> | null> {
  const taskId = await taskForMessage(ctx, agent, message);
  const result = await enqueueRun(ctx, agent, taskId, { kind: "message", channelMessageId: message._id });
  if (result.runId !== null) await recordOnTimeline(ctx, agent, taskId, message);
  return result.runId;
}

/**
 * A blocking message was delivered: each agent it is addressed to (a DM, or
 * an @mention) is woken (an idle one, by a person) or interrupted at its
 * next model call. Followers of a channel get it as a blocking message in
 * their next call but are not woken for it.
 */
export async function deliverBlocking(ctx: MutationCtx, messageId: Id<"channelMessages">, recipients: ReadonlyArray<{ key: string; direct: boolean }>) {
  const message = await ctx.db.get("channelMessages", messageId);
  if (message === null || !message.blocking) return;
  for (const { key, direct } of recipients) {
    if (!direct || isMemberKey(key)) continue;
    const agent = await agentBySessionKey(ctx, key);
    if (agent === null || agent.departmentId !== message.departmentId) continue;
    const busy = await activeRunOf(ctx, agent, message.context.taskId);
    if (busy !== null) {
      // Folded like other triggers, without a rerun: the next model call opens with it, and a run that ends first wakes again below.
      await ctx.db.patch("runs", busy._id, { foldedTriggers: busy.foldedTriggers + 1 });
      await submitTrigger(ctx, busy._id, { kind: "message", channelMessageId: message._id });
      await recordOnTimeline(ctx, agent, busy.taskId, message);
    } else if (message.from.kind === "member") {
      await startFor(ctx, agent, message);
    }
  }
}

/** The nudge's words: how many arrived, from whom and where. */
export function nudgeNote(arrivals: ReadonlyArray<{ from: string; where: string }>): string {
  const senders = [...new Set(arrivals.map((a) => `${a.from} in ${a.where}`))];
  const named = senders.slice(0, NUDGE_NAMES).join("; ");
  const more = senders.length > NUDGE_NAMES ? `; and ${senders.length - NUDGE_NAMES} more` : "";
  return `While you worked, ${arrivals.length} message${arrivals.length === 1 ? "" : "s"} arrived for you (${named}${more}).`;
}

/**
 * A run ended (completed or failed; a person's Stop wakes nothing) and no
 * rerun follows: wake the agent for what it did not see. Returns whether a
 * run was started. Only rows that arrived after the run was created count,
 * so a message whose own run failed does not start another.
 */
export async function wakeAfterRun(ctx: MutationCtx, run: Doc<"runs">, agent: Doc<"agents">): Promise<boolean> {
  if ((await activeRunOf(ctx, agent)) !== null) return false; // that run's next call shows them
  const unread = (
    await ctx.db
      .query("inbox")
      .withIndex("by_recipient_and_department_and_readAt", (q) =>
        q.eq("recipientKey", agent.sessionKey).eq("departmentId", agent.departmentId).eq("readAt", undefined),
      )
      .order("desc")
      .take(UNREAD_SCAN)
  ).filter((row) => row._creationTime > run._creationTime);
  const messages = new Map<Id<"channelMessages">, Doc<"channelMessages">>();
  for (const row of unread) {
    const message = await ctx.db.get("channelMessages", row.messageId);
    if (message !== null) messages.set(row.messageId, message);
  }
  // The oldest unseen blocking message from a person starts the next run (it opens with all of them).
  const blocking = unread
    .filter((row) => row.blocking && row.direct && row.handledAt === undefined && messages.get(row.messageId)?.from.kind === "member")
    .at(-1);
  if (blocking !== undefined) return (await startFor(ctx, agent, messages.get(blocking.messageId)!)) !== null;
  if (run.trigger.kind === "nudge") return false;
  const fresh = unread.filter((row) => row.nudgedAt === undefined && messages.has(row.messageId));
  if (fresh.length === 0) return false;
  const now = Date.now();
  const arrivals = [];
  for (const row of fresh.reverse()) {
    await ctx.db.patch("inbox", row._id, { nudgedAt: now });
    const message = messages.get(row.messageId)!;
    arrivals.push({ from: actorName(message.from), where: whereOf(await ctx.db.get("channels", row.channelId), message) });
  }
  const result = await enqueueRun(ctx, agent, run.taskId, { kind: "nudge", note: nudgeNote(arrivals) });
  return result.runId !== null;
}

/** The agent's own posts looked at, newest first, to tell whether it already answered during the run. */
const OWN_POST_SCAN = 20;

/** Whether `agent` posted at the top of `channelId` or in `threadRootId`'s thread after `since`. */
async function postedSince(
  ctx: MutationCtx,
  agent: Doc<"agents">,
  channelId: Id<"channels">,
  threadRootId: Id<"channelMessages"> | undefined,
  since: number,
): Promise<boolean> {
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
  return recent.some((m) => m.from.kind === "agent" && m.from.sessionKey === agent.sessionKey);
}

/**
 * A run that a blocking DM or channel message started ends with a reply:
 * the reply answers where the question was asked, as the agent, through the
 * same post path as any message (scanned, size-limited, rate-limited,
 * delivered to inboxes, logged): in the DM, or in the thread of the channel
 * message (a channel's top level stays for new topics). The task thread does
 * not repeat it; the task timeline already says the message arrived.
 *
 * Returns false, and the caller posts the reply in the task thread as for
 * any run, when the run was not started by a message, when the agent already
 * answered there during the run (its closing words are a wrap-up for the
 * task), or when it may no longer post there (archived, left, rate-limited):
 * an answer is never lost.
 */
export async function answerWhereAsked(ctx: MutationCtx, run: Doc<"runs">, agent: Doc<"agents">, reply: string): Promise<boolean> {
  if (run.trigger.kind !== "message" || run.trigger.channelMessageId === undefined) return false;
  const asked = await ctx.db.get("channelMessages", run.trigger.channelMessageId);
  const channel = asked === null ? null : await ctx.db.get("channels", asked.channelId);
  if (asked === null || channel === null || channel.departmentId !== agent.departmentId) return false;
  const threadRoot =
    channel.kind === "dm" ? undefined : asked.threadRootId === undefined ? asked : await ctx.db.get("channelMessages", asked.threadRootId);
  if (threadRoot === null) return false;
  if (await postedSince(ctx, agent, channel._id, threadRoot?._id, run._creationTime)) return false;
  try {
    await postChannelMessage(ctx, {
      channel,
      from: agentActor(agent),
      senderKey: agent.sessionKey,
      body: cutForThread(reply),
      threadRoot,
      correlationId: asked.correlationId,
      context: asked.context,
    });
  } catch (error) {
    if (error instanceof MaestroError) return false;
    throw error;
  }
  return true;
}
