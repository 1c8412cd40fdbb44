/**
 * Agent-to-agent linkage (messaging spec, "A2A Integration"): every
 * delegation, tool request and status update of delegated work carries one
 * envelope — `correlation_id`, intent, from, to, and the task, batch and
 * project it is about — recorded as an `a2a.<intent>` event in the
 * department's log (and its webhook). A delegation's correlation id is its
 * task's, so the chain from `a2a.delegate` to the `a2a.status_update` that
 * says done reads as one id. A delegation is one line in the parent task's
 * thread ("Jarvis delegated “Hero copy” to Writer."), which each later update
 * (started, review, done, blocked) rewrites in place: one line per delegated
 * card, however far it moves. When the task is followed in a channel
 * (`tasks.channelId`), every update is also a line of its own there; all
 * carry the correlation id. A top-level task followed in a channel reports
 * its status lines there too. reactions/taskChange calls in on every move
 * and wakes the delegator on review and done.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { actorName } from "../lib/actors";
import { recipientsOf } from "../lib/channels";
import { agentNamer } from "../records/agents";
import { insertChannelMessage } from "../records/channelMessages";
import { channelMembers, touchChannel } from "../records/channels";
import { emitEvent } from "../records/events";
import { deliverToInboxes } from "../records/inbox";
import { editMessage, threadAfter } from "../records/messages";
import type { Actor, TaskStatus } from "../validators";
import { postToThread } from "./threadPost";

export type A2AIntent = "delegate" | "request_tool" | "status_update";

/** Levels walked up a delegation tree to find its batch (its root task); deeper trees are refused by the depth guard long before. */
const MAX_BATCH_DEPTH = 20;

/** The correlation id of the delegation that made `taskId`: every envelope about it carries this one. */
export function delegationCorrelationId(taskId: Id<"tasks">): string {
  return `a2a:${taskId}`;
}

/** A batch is the set of tasks one delegation tree created, named by its root task. */
async function batchOf(ctx: MutationCtx, task: Doc<"tasks">): Promise<Id<"tasks">> {
  let current = task;
  for (let depth = 0; depth < MAX_BATCH_DEPTH && current.parentTaskId !== undefined; depth++) {
    const parent = await ctx.db.get("tasks", current.parentTaskId);
    if (parent === null) break;
    current = parent;
  }
  return current._id;
}

/** Records one envelope as an `a2a.<intent>` event; `to` are names. */
export async function recordEnvelope(
  ctx: MutationCtx,
  envelope: { intent: A2AIntent; correlationId: string; from: Actor; to: readonly string[]; task: Doc<"tasks">; data?: Record<string, string> },
): Promise<void> {
  const { intent, correlationId, from, to, task } = envelope;
  await emitEvent(ctx, {
    departmentId: task.departmentId,
    type: `a2a.${intent}`,
    actor: from,
    correlationId,
    data: {
      correlation_id: correlationId,
      intent,
      from: actorName(from),
      to: to.join(", "),
      task_id: task._id,
      batch_id: await batchOf(ctx, task),
      project_id: task.departmentId,
      ...envelope.data,
    },
  });
}

async function assigneeNames(ctx: MutationCtx, task: Doc<"tasks">): Promise<string[]> {
  const nameOf = agentNamer(ctx);
  const names = [];
  for (const key of task.assigneeSessionKeys) names.push(await nameOf(key));
  return names;
}

/**
 * A system line in a channel, linked to an envelope: stored and delivered to
 * the channel's followers like any post (messaging.created on a
 * conversation's first message, then messaging.posted), but it wakes nobody
 * and is skipped in an archived channel.
 */
async function postChannelLine(ctx: MutationCtx, task: Doc<"tasks">, body: string, correlationId: string): Promise<void> {
  const channel = task.channelId === undefined ? null : await ctx.db.get("channels", task.channelId);
  if (channel === null || channel.archivedAt !== undefined || channel.departmentId !== task.departmentId) return;
  const from: Actor = { kind: "system" };
  const messageId = await insertChannelMessage(ctx, {
    departmentId: channel.departmentId,
    channelId: channel._id,
    type: "channel",
    from,
    body,
    mentions: [],
    artifacts: [],
    importance: "normal",
    blocking: false,
    correlationId,
    context: { taskId: task._id, ...(task.parentTaskId === undefined ? {} : { batchId: await batchOf(ctx, task) }) },
    replyCount: 0,
  });
  const recipients = recipientsOf({ sender: "system", kind: channel.kind, visibility: channel.visibility, members: await channelMembers(ctx, channel._id), mentioned: [] });
  const base = { departmentId: channel.departmentId, actor: from, channelId: channel._id, messageId, correlationId };
  if (channel.lastMessageAt === undefined) await emitEvent(ctx, { ...base, type: "messaging.created", data: { type: "channel" } });
  await touchChannel(ctx, channel._id, Date.now());
  await deliverToInboxes(ctx, { departmentId: channel.departmentId, channelId: channel._id, messageId, importance: "normal", blocking: false }, recipients);
  await emitEvent(ctx, { ...base, type: "messaging.posted", data: { type: "channel", importance: "normal", blocking: false, chars: body.length, recipients: recipients.length } });
}

/**
 * One update of a task's work: `text` in the parent task's thread when the
 * task was delegated, and in the task's channel when it is followed in one
 * (a top-level task too); both carry the correlation id. Returns the thread
 * line (null without one).
 */
export async function postDelegationUpdate(ctx: MutationCtx, task: Doc<"tasks">, text: string): Promise<Doc<"messages"> | null> {
  const correlationId = delegationCorrelationId(task._id);
  const parent = task.parentTaskId === undefined || task.delegatedBy === undefined ? null : await ctx.db.get("tasks", task.parentTaskId);
  const line = parent === null ? null : await postToThread(ctx, { kind: "system" }, parent, text, { correlationId });
  await postChannelLine(ctx, task, text, correlationId);
  return line;
}

/** The delegation's line in the parent's thread: at most this many of the parent's messages after the task was made are looked through. */
const LINE_SCAN = 50;

/** The line a delegation posted in its parent's thread (the first system line with its correlation id after the task was made), or null. */
async function delegationLine(ctx: MutationCtx, task: Doc<"tasks">, parentId: Id<"tasks">): Promise<Doc<"messages"> | null> {
  const correlationId = delegationCorrelationId(task._id);
  const { messages } = await threadAfter(ctx, parentId, task._creationTime, LINE_SCAN);
  return messages.find((m) => m.correlationId === correlationId && m.author.kind === "system" && m.deletedAt === undefined) ?? null;
}

/** What the delegation's line says: who delegated what to whom, and where the card stands now (none when just made). */
function delegationLineText(delegatorName: string, task: Doc<"tasks">, to: readonly string[], now?: string): string {
  return `${delegatorName} delegated “${task.title}” to ${to.length > 0 ? to.join(", ") : "nobody yet"}${now === undefined ? "." : `: ${now}.`}`;
}

/** A delegation was made: its envelope, and its line. */
export async function delegationCreated(ctx: MutationCtx, from: Actor, task: Doc<"tasks">): Promise<void> {
  const to = await assigneeNames(ctx, task);
  await recordEnvelope(ctx, { intent: "delegate", correlationId: delegationCorrelationId(task._id), from, to, task, data: { title: task.title } });
  await postDelegationUpdate(ctx, task, delegationLineText(actorName(from), task, to));
}

/** What an update says for each status a task reports: started, review, done, blocked. */
const STATUS_LINES: Partial<Record<TaskStatus, string>> = { in_progress: "has started", review: "is ready for review", done: "is done", blocked: "is blocked" };
/** The same, as the delegation's line in the parent's thread puts it. */
const STATUS_NOW: Partial<Record<TaskStatus, string>> = { in_progress: "in progress", review: "ready for review", done: "done", blocked: "blocked" };

/**
 * A delegated task's update in its parent's thread: its delegation's line
 * rewritten to say where the card stands (a new line only when that line is
 * gone), and the channel's own line. Returns the thread's line.
 */
async function delegatedStatusUpdate(ctx: MutationCtx, task: Doc<"tasks">, status: TaskStatus, channelText: string): Promise<Doc<"messages"> | null> {
  const parent = task.parentTaskId === undefined ? null : await ctx.db.get("tasks", task.parentTaskId);
  const line = parent === null ? null : await delegationLine(ctx, task, parent._id);
  if (parent === null || line === null) return await postDelegationUpdate(ctx, task, channelText);
  // Who delegated, as the line first named them (an agent or a person).
  const by = line.content.indexOf(" delegated “");
  const delegator = by > 0 ? line.content.slice(0, by) : await agentNamer(ctx, () => "someone")(task.delegatedBy!);
  const text = delegationLineText(delegator, task, await assigneeNames(ctx, task), STATUS_NOW[status]);
  const content = await editMessage(ctx, line, text);
  await postChannelLine(ctx, task, channelText, delegationCorrelationId(task._id));
  return { ...line, content };
}

/** The update line for a task's `status`, or null for a status that is not reported. */
async function statusUpdateText(ctx: MutationCtx, task: Doc<"tasks">, status: TaskStatus): Promise<string | null> {
  const line = STATUS_LINES[status];
  if (line === undefined) return null;
  const who = await assigneeNames(ctx, task);
  const what = task.delegatedBy === undefined ? "Task" : "Delegated task";
  return `${what} “${task.title}” (assigned to ${who.length > 0 ? who.join(", ") : "nobody"}) ${line}.`;
}

/**
 * A task moved to a reported status (started, review, done, blocked). A
 * delegated one records its status update's envelope to the delegator and
 * tells its parent's thread; any task followed in a channel, delegated or
 * top-level, tells that channel. Returns the parent thread's line, which
 * reactions/taskChange answers on review and done by waking the delegator.
 */
export async function taskStatusReported(ctx: MutationCtx, by: Actor, task: Doc<"tasks">, status: TaskStatus): Promise<Doc<"messages"> | null> {
  if (task.delegatedBy === undefined && task.channelId === undefined) return null;
  const text = await statusUpdateText(ctx, task, status);
  if (text === null) return null;
  if (task.delegatedBy !== undefined) {
    const delegator = await agentNamer(ctx, () => task.delegatedBy!)(task.delegatedBy);
    await recordEnvelope(ctx, { intent: "status_update", correlationId: delegationCorrelationId(task._id), from: by, to: [delegator], task, data: { status } });
    return await delegatedStatusUpdate(ctx, task, status, text);
  }
  return await postDelegationUpdate(ctx, task, text);
}
