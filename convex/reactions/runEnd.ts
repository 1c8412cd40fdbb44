/**
 * A run ends: completed, failed, stopped by a person, or recovered by the
 * sweeper. Ending writes `agent_end` once, closes a pause it waited on, says
 * the reply (where a blocking message or a #maestro mention asked, else in the task's thread) or
 * the error, then decides what comes next: a follow-up run for triggers
 * folded in meanwhile, a run for a blocking message the agent never saw, an
 * end-of-run nudge about unread arrivals, or back to idle.
 */
import { internal } from "../_generated/api";
import type { Doc, Id } from "../_generated/dataModel";
import { env, type MutationCtx } from "../_generated/server";
import { actorName, agentActor, memberActor } from "../lib/actors";
import { agentChatAuthor } from "../lib/chat";
import { errorData } from "../lib/errors";
import { nudgeNote } from "../lib/nudges";
import { boundedText, type AgentEndReason } from "../lib/runEvents";
import { INTERRUPTED_REASON, queuedLimitMs, recoveryFor } from "../lib/runLease";
import { cutForThread } from "../lib/toolCalls";
import { idleIfUnoccupied } from "../records/agents";
import { chatDepartment, chatMessageById, postChatMessage, postedInChatSince } from "../records/chat";
import { postedSince, threadRootOf } from "../records/channelMessages";
import { MAX_URGENT_CANDIDATES, markNudged, unreadBlockingRows, unreadRows, unreadRowsOfImportance, whereOf } from "../records/inbox";
import { appendRunEvent } from "../records/runEvents";
import { foldTrigger, getRunX, lapsedRuns, markEnded, markQueued, markReplied, queuedRuns, rerunTriggersOf, runInProgressOf } from "../records/runs";
import { postChannelMessage, startFor } from "./delivery";
import { closePause } from "./pauses";
import { enqueueRun, type Enqueued } from "./runQueue";
import { postToThread } from "./threadPost";
import type { Actor, RunStatus } from "../validators";

/** Unread rows weighed when a run ends. */
const UNREAD_SCAN = 150;

const END_REASON: Record<"completed" | "error" | "aborted", AgentEndReason> = { completed: "complete", error: "error", aborted: "aborted" };

/**
 * Ends a run once (later calls change nothing): `agent_end`, the reply or
 * the error said, the agent back to idle, and a follow-up run for triggers
 * folded in meanwhile, unless a person stopped it.
 */
export async function endRun(ctx: MutationCtx, run: Doc<"runs">, status: "completed" | "error" | "aborted", reason: string, reply?: string): Promise<void> {
  if (run.status === "completed" || run.status === "error" || run.status === "aborted") return;
  if (run.status === "waiting") await closePause(ctx, run, reason);
  await markEnded(ctx, run._id, status, reason);
  await appendRunEvent(ctx, run._id, { type: "agent_end", reason: END_REASON[status], detail: boundedText(reason) });
  const agent = await ctx.db.get("agents", run.agentId);
  const task = await ctx.db.get("tasks", run.taskId);
  if (agent === null || task === null) return;
  if (status !== "aborted" && reply !== undefined) await sayReply(ctx, run, agent, task, reply, { last: true });
  if (status === "error") await postToThread(ctx, { kind: "system" }, task, `${agent.name} could not finish: ${reason}`);
  const answerFolded = run.rerunRequested && (status === "completed" || reason === INTERRUPTED_REASON);
  const rerun = answerFolded ? await answerFoldedInRerun(ctx, run, agent, task) : null;
  if (rerun !== null && rerun.runId !== null) return;
  // What arrived while it worked and it never saw: a blocking message, or the end-of-run nudge.
  const woke = status !== "aborted" && (await wakeAfterRun(ctx, run, agent));
  if (!woke) await idleIfUnoccupied(ctx, agent);
}

/**
 * The follow-up run for what was folded into `run` while it ran: started
 * for the first request, the others folded into it before it starts, so its
 * why names each of them (not only one).
 */
async function answerFoldedInRerun(ctx: MutationCtx, run: Doc<"runs">, agent: Doc<"agents">, task: Doc<"tasks">): Promise<Enqueued> {
  const [first, ...rest] = rerunTriggersOf(run);
  const rerun = await enqueueRun(ctx, agent, task._id, first);
  if (rerun.runId === null) return rerun;
  for (const trigger of rest) await foldTrigger(ctx, await getRunX(ctx, rerun.runId), trigger, { answer: true });
  return rerun;
}

/**
 * Says a run's reply text where the run answers: where a blocking message or
 * a #maestro mention asked (answerWhereAsked), else in the task's thread;
 * nothing for text that is only blanks. Said for each reply of the run that
 * has text: the words of a reply that also calls tools as it ends (before its
 * calls act where it can), and the final reply as the run ends (`last`). The
 * post's time is kept on the run (but for the last), so the agent's own
 * replies never count as it having answered there by itself (which sends the
 * closing words to the task).
 */
export async function sayReply(ctx: MutationCtx, run: Doc<"runs">, agent: Doc<"agents">, task: Doc<"tasks">, reply: string, { last = false } = {}): Promise<void> {
  if (reply.trim() === "") return;
  const since = Math.max(run._creationTime, run.repliedAt ?? 0);
  const at = (await answerWhereAsked(ctx, run, agent, reply, since)) ?? (await postToThread(ctx, agentActor(agent), task, cutForThread(reply)))._creationTime;
  // The run's last reply (it ends) has no later reply to keep the time for.
  if (!last) await markReplied(ctx, run._id, at);
}

/** Says a reply's text for `run` (sayReply), reading its agent and task. */
export async function sayRunReply(ctx: MutationCtx, run: Doc<"runs">, reply: string): Promise<void> {
  if (reply.trim() === "") return;
  const agent = await ctx.db.get("agents", run.agentId);
  const task = await ctx.db.get("tasks", run.taskId);
  if (agent === null || task === null) return;
  await sayReply(ctx, run, agent, task, reply);
}

/** The brain's last write of an attempt; a stale attempt (the run was retried or stopped meanwhile) changes nothing. */
export async function finishAttempt(ctx: MutationCtx, runId: Id<"runs">, attempt: number | undefined, status: "completed" | "error" | "aborted", reason: string, reply?: string): Promise<void> {
  const run = await getRunX(ctx, runId);
  if (attempt !== undefined && (run.attempt ?? 1) !== attempt) return;
  await endRun(ctx, run, status, reason, reply);
}

/** What Stop and /stop stop: a run queued, running, or waiting for a person (an approval, a question, a plan). */
export const STOPPABLE: readonly RunStatus[] = ["queued", "running", "waiting"];

/**
 * Stops `run` if it is queued, running or waiting for a person (Stop and
 * /stop): `control_submitted` (stop) then `agent_end` (aborted). The run's
 * action notices at its next write and cancels its model call; nothing is
 * posted and no tool runs after this. False when it had already ended.
 */
export async function stopRun(ctx: MutationCtx, run: Doc<"runs">, member: Doc<"members">): Promise<boolean> {
  return await stopRunAs(ctx, run, memberActor(member));
}

/** As stopRun, for whoever stops it: a person, or the agent whose key cancelled an A2A task (reactions/a2aServer). */
export async function stopRunAs(ctx: MutationCtx, run: Doc<"runs">, actor: Actor): Promise<boolean> {
  if (!STOPPABLE.includes(run.status)) return false;
  const by = actorName(actor);
  await appendRunEvent(ctx, run._id, { type: "control_submitted", action: "stop", by });
  await endRun(ctx, run, "aborted", `stopped by ${by}`);
  return true;
}

/**
 * A run ended (completed or failed; a person's Stop wakes nothing) and no
 * rerun follows: wake the agent for what it did not see. Returns whether a
 * run was started. Only rows that arrived after the run was created count,
 * so a message whose own run failed does not start another. Blocking and
 * critical rows are found by index whatever their age: a flood of newer
 * messages does not hide them.
 */
async function wakeAfterRun(ctx: MutationCtx, run: Doc<"runs">, agent: Doc<"agents">): Promise<boolean> {
  if ((await runInProgressOf(ctx, agent)) !== null) return false; // that run's next call shows them
  const since = { after: run._creationTime };
  // The oldest unseen blocking message from a person starts the next run (it opens with all of them).
  for (const row of await unreadBlockingRows(ctx, agent.sessionKey, agent.departmentId, MAX_URGENT_CANDIDATES, { ...since, order: "asc" })) {
    if (!row.direct || row.handledAt !== undefined) continue;
    const message = await ctx.db.get("channelMessages", row.messageId);
    if (message?.from.kind === "member") return (await startFor(ctx, agent, message)) !== null;
  }
  if (run.trigger.kind === "nudge") return false;
  const rows = new Map<Id<"inbox">, Doc<"inbox">>();
  for (const row of [
    ...(await unreadRows(ctx, agent.sessionKey, agent.departmentId, UNREAD_SCAN, since)),
    ...(await unreadRowsOfImportance(ctx, agent.sessionKey, agent.departmentId, "critical", MAX_URGENT_CANDIDATES, since)),
  ]) {
    if (row.nudgedAt === undefined) rows.set(row._id, row);
  }
  // Oldest first, as they arrived.
  const fresh = [];
  for (const row of [...rows.values()].sort((a, b) => a._creationTime - b._creationTime)) {
    const message = await ctx.db.get("channelMessages", row.messageId);
    if (message !== null) fresh.push({ row, message });
  }
  if (fresh.length === 0) return false;
  await markNudged(ctx, fresh.map(({ row }) => row));
  const arrivals = [];
  for (const { row, message } of fresh) {
    const channel = await ctx.db.get("channels", row.channelId);
    arrivals.push({ from: actorName(message.from), where: channel === null ? "a conversation" : whereOf(channel, message, "a thread in") });
  }
  const result = await enqueueRun(ctx, agent, run.taskId, { kind: "nudge", note: nudgeNote(arrivals) });
  return result.runId !== null;
}

/**
 * A run that a blocking DM or channel message started ends with a reply:
 * the reply answers where the question was asked, as the agent, through the
 * same post path as any message (scanned, size-limited, rate-limited,
 * delivered to inboxes, logged): in the DM, or in the thread of the channel
 * message (a channel's top level stays for new topics). The task thread does
 * not repeat it; the task timeline already says the message arrived.
 *
 * Returns the post's creation time, or null, and the caller posts the reply
 * in the task thread as for any run, when the run was not started by a
 * message, when the agent already answered there during the run by itself
 * (posted after `since`, the run's start or its own last reply: its closing
 * words are a wrap-up for the task), or when it may no longer post there
 * (archived, left, rate-limited): an answer is never lost.
 */
async function answerWhereAsked(ctx: MutationCtx, run: Doc<"runs">, agent: Doc<"agents">, reply: string, since: number): Promise<number | null> {
  if (run.trigger.chatId !== undefined) return await answerInChat(ctx, agent, reply, since);
  if (run.trigger.kind !== "message" || run.trigger.channelMessageId === undefined) return null;
  const asked = await ctx.db.get("channelMessages", run.trigger.channelMessageId);
  const channel = asked === null ? null : await ctx.db.get("channels", asked.channelId);
  if (asked === null || channel === null || channel.departmentId !== agent.departmentId) return null;
  const threadRoot = channel.kind === "dm" ? undefined : await threadRootOf(ctx, asked);
  if (threadRoot === null) return null;
  if (await postedSince(ctx, agent.sessionKey, channel._id, threadRoot?._id, since)) return null;
  let posted: Id<"channelMessages">;
  try {
    posted = await postChannelMessage(ctx, {
      channel,
      from: agentActor(agent),
      senderKey: agent.sessionKey,
      body: cutForThread(reply),
      threadRoot,
      correlationId: asked.correlationId,
      context: asked.context,
    });
  } catch (error) {
    if (errorData(error) !== null) return null;
    throw error;
  }
  return (await ctx.db.get("channelMessages", posted))?._creationTime ?? null;
}

/** #maestro messages looked through for the agent's own answer during its run. */
const CHAT_ANSWER_SCAN = 50;

/**
 * A run a person's #maestro @mention started answers in #maestro, as the
 * agent (scanned and cut to the chat's limit like any chat post), unless it
 * already posted there by itself during the run (after `since`) or chat is
 * off: then, as for any run, the reply goes to its task's thread. Returns the
 * post's creation time, or null.
 */
async function answerInChat(ctx: MutationCtx, agent: Doc<"agents">, reply: string, since: number): Promise<number | null> {
  try {
    const known = await chatDepartment(ctx, agent.departmentId);
    const author = agentChatAuthor(agent);
    if (await postedInChatSince(ctx, known.department.chatSessionId, author, since, CHAT_ANSWER_SCAN)) return null;
    const text = reply.length > known.settings.maxMessageChars ? `${reply.slice(0, known.settings.maxMessageChars - 1)}…` : reply;
    const { id } = await postChatMessage(ctx, agent.departmentId, author, text, undefined, known);
    return (await chatMessageById(ctx, id))?._creationTime ?? null;
  } catch (error) {
    if (errorData(error) !== null) return null;
    throw error;
  }
}

/**
 * A running run whose lease lapsed lost its action. Without a side effect
 * yet it runs again as a new attempt; otherwise it ends `error` with the
 * reason "interrupted", said in the thread.
 */
export async function sweepLapsedRuns(ctx: MutationCtx): Promise<{ retried: number; interrupted: number }> {
  let retried = 0;
  let interrupted = 0;
  for (const run of await lapsedRuns(ctx, Date.now())) {
    if (recoveryFor(run) === "retry") {
      await markQueued(ctx, run._id);
      await appendRunEvent(ctx, run._id, { type: "control_submitted", action: "resume", by: "Maestro", note: "the run's action stopped; running it again" });
      await ctx.scheduler.runAfter(0, internal.brain.run.execute, { runId: run._id });
      retried += 1;
    } else {
      await endRun(ctx, run, "error", INTERRUPTED_REASON);
      interrupted += 1;
    }
  }
  return { retried, interrupted };
}

/**
 * A run queued for longer than the limit lost the action that should have
 * started it; it ends `error`, said in the thread, so the agent is free again.
 */
export async function sweepQueuedRuns(ctx: MutationCtx): Promise<number> {
  const limit = queuedLimitMs(env);
  const before = Date.now() - limit;
  let ended = 0;
  for (const run of await queuedRuns(ctx)) {
    if ((run.lastActiveAt ?? run._creationTime) >= before) continue;
    await endRun(ctx, run, "error", `never started: queued for more than ${Math.round(limit / 60_000)} min`);
    ended += 1;
  }
  return ended;
}
