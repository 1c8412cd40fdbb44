/**
 * A remote A2A task's answers come back onto the card (issue 45, part 2):
 * submitted or working → In progress (and Maestro looks again, backing
 * off); input-required → the agent's question in the thread, the card
 * Blocked until a person answers (or Jarvis, by @mentioning the agent), the
 * answer sent as its next message (reactions/a2aRemote); completed → its
 * artifacts posted as the deliverable and the card to Review; failed,
 * rejected, canceled, or a remote agent that cannot be reached or never
 * finishes → a thread note and the card Blocked. Every state is an
 * `a2a.status_update` event under the card's correlation id, with the
 * remote task's and context's ids, beside the squad's own. Stop cancels it.
 * Everything the remote agent wrote is posted through the thread, which
 * scans it for secrets before it is stored; prompts frame thread messages
 * as untrusted (brain/prompt).
 */
import { internal } from "../_generated/api";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { actorName, agentActor, memberActor } from "../lib/actors";
import { A2A_REMOTE_LIMITS, cutText, deliverableText, failureNote, outcomeOf, pollDelayMs, type RemoteTaskView } from "../lib/a2aRemote";
import { getRemoteTask, openRemoteTasksOfTask, patchRemoteTask } from "../records/a2aRemoteTasks";
import { agentBySessionKey } from "../records/agents";
import { getTaskX, liveTask, setPendingQuestion } from "../records/tasks";
import type { A2aRemotePhase } from "../validators";
import { recordEnvelope } from "./a2a";
import { moveTask } from "./taskChange";
import { postNote, postToThread } from "./threadPost";

/** The longest remote id kept (ids are the remote agent's to choose). */
const MAX_REMOTE_ID_CHARS = 200;

const clip = (id: string | undefined) => (id === undefined ? undefined : id.slice(0, MAX_REMOTE_ID_CHARS));

/** The event of one remote step, under the card's correlation id. */
async function recordStep(ctx: MutationCtx, row: Doc<"a2aRemoteTasks">, agent: Doc<"agents">, task: Doc<"tasks">, state: string): Promise<void> {
  await recordEnvelope(ctx, {
    intent: "status_update",
    correlationId: row.correlationId,
    from: agentActor(agent),
    to: [],
    task,
    data: { a2a_state: state, a2a_task_id: row.remoteTaskId ?? "", a2a_context_id: row.contextId ?? "" },
  });
}

/** Ends the row: no more calls, no more polls. */
async function endRow(ctx: MutationCtx, row: Doc<"a2aRemoteTasks">, phase: A2aRemotePhase): Promise<void> {
  await patchRemoteTask(ctx, row._id, { phase, endedAt: Date.now(), replyMessageId: undefined });
}

/** A note in the thread and the card Blocked; the remote task canceled when it has one (best effort). */
async function giveUp(ctx: MutationCtx, row: Doc<"a2aRemoteTasks">, agent: Doc<"agents">, task: Doc<"tasks">, note: string, cancel: boolean): Promise<void> {
  await endRow(ctx, row, "failed");
  await postNote(ctx, task, note);
  const current = await getTaskX(ctx, task._id);
  if (current.status !== "blocked") await moveTask(ctx, agentActor(agent), current, "blocked");
  if (cancel && row.remoteTaskId !== undefined) await ctx.scheduler.runAfter(0, internal.a2aRemoteCalls.cancel, { remoteId: row._id });
}

/** The row, its agent and its live card, or null when the work is over (the row ended, the card or agent gone). */
export async function openRemote(ctx: MutationCtx, remoteId: Id<"a2aRemoteTasks">) {
  const row = await getRemoteTask(ctx, remoteId);
  if (row === null || row.endedAt !== undefined) return null;
  const agent = await ctx.db.get("agents", row.agentId);
  const task = await liveTask(ctx, row.taskId);
  if (agent === null || task === null) {
    await endRow(ctx, row, "canceled");
    return null;
  }
  return { row, agent, task };
}

/** The remote agent answered a message or a poll: its state onto the card. */
export async function remoteAnswered(ctx: MutationCtx, remoteId: Id<"a2aRemoteTasks">, step: "send" | "poll", view: RemoteTaskView): Promise<void> {
  const open = await openRemote(ctx, remoteId);
  if (open === null) {
    // Stopped while its first message was out: the task the agent made for it is canceled too.
    const row = await getRemoteTask(ctx, remoteId);
    if (row?.phase === "canceled" && row.remoteTaskId === undefined && view.remoteTaskId !== undefined) {
      await patchRemoteTask(ctx, remoteId, { remoteTaskId: clip(view.remoteTaskId), contextId: clip(view.contextId) });
      await ctx.scheduler.runAfter(0, internal.a2aRemoteCalls.cancel, { remoteId });
    }
    return;
  }
  const { agent, task } = open;
  const changed = open.row.remoteState !== view.state || open.row.remoteTaskId === undefined;
  await patchRemoteTask(ctx, remoteId, {
    remoteTaskId: clip(view.remoteTaskId) ?? open.row.remoteTaskId,
    contextId: clip(view.contextId) ?? open.row.contextId,
    remoteState: view.state,
    failures: 0,
    replyMessageId: undefined,
    ...(step === "send" ? { sends: open.row.sends + 1 } : { polls: open.row.polls + 1 }),
  });
  const row = (await getRemoteTask(ctx, remoteId))!;
  if (changed) await recordStep(ctx, row, agent, task, view.state);
  // An answer just sent may be answered with the task as it stood (still input-required): follow it rather than ask again.
  const justAnswered = step === "send" && open.row.replyMessageId !== undefined;
  const outcome = justAnswered && view.state === "input_required" ? "follow" : outcomeOf(view.state);
  const actor = agentActor(agent);
  if (outcome === "follow") {
    await patchRemoteTask(ctx, remoteId, { phase: "following" });
    await backInProgress(ctx, agent, task);
    if (Date.now() >= row.deadlineAt) {
      const minutes = Math.round(A2A_REMOTE_LIMITS.deadlineMs / 60_000);
      await giveUp(ctx, row, agent, task, `⚠️ ${agent.name} (A2A) did not finish within ${minutes} minutes: its task is canceled. Assign it again, or to someone else.`, true);
      return;
    }
    await ctx.scheduler.runAfter(pollDelayMs(row.polls), internal.a2aRemoteCalls.poll, { remoteId });
    return;
  }
  if (outcome === "ask") {
    await patchRemoteTask(ctx, remoteId, { phase: "input_required" });
    await askSquad(ctx, agent, task, view.statusText);
    return;
  }
  if (outcome === "completed") {
    await endRow(ctx, row, "completed");
    await postToThread(ctx, actor, task, deliverableText(agent.name, view), { correlationId: row.correlationId });
    const current = await getTaskX(ctx, task._id);
    if (current.pendingQuestion?.agentSessionKey === agent.sessionKey) await setPendingQuestion(ctx, task._id, undefined);
    if (current.status !== "review" && current.status !== "done") await moveTask(ctx, actor, current, "review");
    return;
  }
  await giveUp(ctx, row, agent, task, failureNote(agent.name, view.state, view.statusText), false);
  if (outcome === "canceled") await patchRemoteTask(ctx, remoteId, { phase: "canceled" });
}

/** Working again: a card still waiting (or Blocked on the agent's own question, answered by a mention) goes to In progress. */
async function backInProgress(ctx: MutationCtx, agent: Doc<"agents">, task: Doc<"tasks">): Promise<void> {
  const current = await getTaskX(ctx, task._id);
  const asked = current.pendingQuestion?.agentSessionKey === agent.sessionKey;
  if (asked) await setPendingQuestion(ctx, task._id, undefined);
  if (current.status === "inbox" || current.status === "assigned" || (asked && current.status === "blocked")) await moveTask(ctx, agentActor(agent), current, "in_progress");
}

/**
 * The remote agent asks for input: its question in the thread (to the agent
 * that delegated the card, by @mention, and to anyone who reads it), the
 * card Blocked until it is answered.
 */
async function askSquad(ctx: MutationCtx, agent: Doc<"agents">, task: Doc<"tasks">, question: string): Promise<void> {
  const delegator = task.delegatedBy === undefined ? null : await agentBySessionKey(ctx, task.delegatedBy);
  const to = delegator === null || delegator.departmentId !== task.departmentId ? "" : `@${delegator.name} `;
  const asked = question.trim() === "" ? "(the agent asks for input without saying what)" : cutText(question.trim(), 4_000);
  const message = await postToThread(ctx, agentActor(agent), task, `❓ ${to}${asked}`);
  const current = await getTaskX(ctx, task._id);
  const previousStatus = current.pendingQuestion?.previousStatus ?? (current.status === "blocked" ? "in_progress" : current.status);
  await setPendingQuestion(ctx, task._id, { agentSessionKey: agent.sessionKey, messageId: message._id, previousStatus });
  if (current.status !== "blocked") await moveTask(ctx, agentActor(agent), current, "blocked");
}

/**
 * A call to the remote agent failed (it could not be reached, timed out, or
 * answered with an error): tried again with backoff, until too many failed
 * in a row or the deadline passed; then a note and the card Blocked.
 */
export async function remoteCallFailed(ctx: MutationCtx, remoteId: Id<"a2aRemoteTasks">, step: "send" | "poll", reason: string): Promise<void> {
  const open = await openRemote(ctx, remoteId);
  if (open === null) return;
  const { row, agent, task } = open;
  const failures = row.failures + 1;
  await patchRemoteTask(ctx, remoteId, { failures });
  if (failures >= A2A_REMOTE_LIMITS.maxFailures || Date.now() >= row.deadlineAt) {
    await giveUp(ctx, row, agent, task, `⚠️ ${agent.name} (A2A) could not be reached (${cutText(reason, 300)}), ${failures} times in a row. Assign it again, or to someone else.`, true);
    return;
  }
  await ctx.scheduler.runAfter(pollDelayMs(failures), step === "send" ? internal.a2aRemoteCalls.send : internal.a2aRemoteCalls.poll, { remoteId });
}

/** Stop: the card's open remote tasks are canceled (here, and at the remote agent); the number stopped. */
export async function stopRemoteTasks(ctx: MutationCtx, task: Doc<"tasks">, member: Doc<"members">): Promise<number> {
  const rows = await openRemoteTasksOfTask(ctx, task._id);
  for (const row of rows) {
    await endRow(ctx, row, "canceled");
    const agent = await ctx.db.get("agents", row.agentId);
    if (agent !== null) await recordStep(ctx, row, agent, task, "canceled");
    if (row.remoteTaskId !== undefined) await ctx.scheduler.runAfter(0, internal.a2aRemoteCalls.cancel, { remoteId: row._id });
    await postNote(ctx, task, `⏹ ${actorName(memberActor(member))} stopped ${agent?.name ?? "the A2A agent"}: its A2A task is canceled.`);
  }
  return rows.length;
}
