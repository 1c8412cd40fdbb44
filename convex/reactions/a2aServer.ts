/**
 * Another orchestrator hands the squad work over A2A (issue 45; the wire is
 * convex/a2aServerApi.ts's): a message opens a card for the squad lead, a
 * later message answers what waits or goes to the lead in the card's thread,
 * a cancel stops the runs and archives the card, and the A2A task is read
 * back from the card (lib/a2aServer a2aTaskState). The A2A task id is the
 * card's id and its context id the card's correlation id (unless the client
 * named one), recorded as `a2a.delegate` / `a2a.status_update` envelopes, so
 * the event log and the delegation trace read the client's steps beside the
 * squad's under one id.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { a2aTaskState, MAX_A2A_ARTIFACTS, MAX_A2A_HISTORY, type A2AMessageView, type A2APartView, type A2ATaskView, type A2AWaiting } from "../lib/a2aServer";
import { agentActor } from "../lib/actors";
import { MaestroError } from "../lib/errors";
import { a2aServerTaskOf, insertA2aServerTask, markA2aServerTaskCanceled } from "../records/a2aServer";
import { recordActivity } from "../records/activities";
import { departmentAgents } from "../records/agents";
import { newestMessages } from "../records/messages";
import { cardsOfTask } from "../records/pauseCards";
import { runsOfTask } from "../records/runs";
import { insertTaskFile, markTaskFilesAttached, taskFileByStorage } from "../records/taskFiles";
import { liveTask, setTaskArchived, subtasksOf } from "../records/tasks";
import type { FileArtifact } from "../validators";
import { delegationCorrelationId, recordEnvelope } from "./a2a";
import { answerFromThread } from "./questions";
import { STOPPABLE, stopRunAs } from "./runEnd";
import { enqueueRun } from "./runQueue";
import { createTask } from "./taskChange";
import { postToThread } from "./threadPost";

/** A file or data part the HTTP action stored, to attach to the card's thread. */
export interface A2AStoredPart {
  storageId: Id<"_storage">;
  name: string;
}

/** The department's squad lead, whom every A2A task is for. */
async function squadLeadX(ctx: QueryCtx, departmentId: Id<"departments">): Promise<Doc<"agents">> {
  const lead = (await departmentAgents(ctx, departmentId)).find((a) => a.isSquadLead);
  if (lead === undefined) throw new MaestroError("CONFLICT", "This department has no squad lead to take the work.");
  return lead;
}

/** Stored parts as the card thread's files, with their type and size from storage (never from the client). */
async function attachStored(ctx: MutationCtx, task: Doc<"tasks">, client: Doc<"agents">, parts: readonly A2AStoredPart[]): Promise<FileArtifact[]> {
  const files: FileArtifact[] = [];
  for (const part of parts) {
    const stored = await ctx.db.system.get("_storage", part.storageId);
    if (stored === null) throw new MaestroError("NOT_FOUND", "A stored attachment is gone.");
    files.push(await insertTaskFile(ctx, task, client.sessionKey, part.storageId, { name: part.name, contentType: stored.contentType ?? "application/octet-stream", size: stored.size }));
  }
  return files;
}

/**
 * `message/send` without a task: a card on the board for the squad lead with
 * the message as its request (its text the description, its first line the
 * title), the files and data parts attached in the thread, and the
 * delegation envelope under the card's correlation id.
 */
export async function openA2aCard(
  ctx: MutationCtx,
  client: Doc<"agents">,
  request: { text: string; title: string; parts: readonly A2AStoredPart[]; contextId: string | null },
): Promise<{ task: Doc<"tasks">; row: Doc<"a2aServerTasks"> }> {
  const lead = await squadLeadX(ctx, client.departmentId);
  const actor = agentActor(client);
  const task = await createTask(ctx, actor, { departmentId: client.departmentId, title: request.title, description: request.text, assigneeSessionKeys: [lead.sessionKey] });
  const correlationId = delegationCorrelationId(task._id);
  if (request.parts.length > 0) {
    const files = await attachStored(ctx, task, client, request.parts);
    const message = await postToThread(ctx, actor, task, `Attachments from ${client.name} (A2A): ${files.map((f) => f.name).join(", ")}`, { files, correlationId });
    const rows = await Promise.all(files.map(async (f) => (await taskFileByStorage(ctx, f.storageId))?._id));
    await markTaskFilesAttached(ctx, rows.filter((id): id is Id<"taskFiles"> => id !== undefined), message._id);
  }
  const row = await insertA2aServerTask(ctx, { departmentId: client.departmentId, taskId: task._id, contextId: request.contextId ?? correlationId, clientAgentId: client._id });
  await recordEnvelope(ctx, { intent: "delegate", correlationId, from: actor, to: [lead.name], task, data: { a2a_task_id: task._id, a2a_context_id: row.contextId } });
  return { task, row };
}

/** The client's A2A task `rawId` in its department, with its card; another department's id or a card not opened over A2A reads as unknown. */
export async function clientA2aTaskX(ctx: QueryCtx, client: Doc<"agents">, rawId: string): Promise<{ task: Doc<"tasks">; row: Doc<"a2aServerTasks"> }> {
  const taskId = ctx.db.normalizeId("tasks", rawId.trim());
  const task = taskId === null ? null : await ctx.db.get("tasks", taskId);
  const row = task === null ? null : await a2aServerTaskOf(ctx, task._id);
  if (task === null || row === null || row.departmentId !== client.departmentId || task.departmentId !== client.departmentId) {
    throw new MaestroError("NOT_FOUND", "No such A2A task in this department.");
  }
  return { task, row };
}

/** What waits on the card and its subtasks, oldest first, each with the task it waits on. */
async function waitingOn(ctx: QueryCtx, task: Doc<"tasks">): Promise<Array<A2AWaiting & { task: Doc<"tasks">; since: number }>> {
  const { subtasks } = await subtasksOf(ctx, task._id, MAX_A2A_ARTIFACTS);
  const waiting: Array<A2AWaiting & { task: Doc<"tasks">; since: number }> = [];
  for (const t of [task, ...subtasks.filter((s) => s.deletedAt === undefined && s.archivedAt === undefined)]) {
    for (const q of await cardsOfTask(ctx, "questions", t._id)) {
      if (q.status === "pending") waiting.push({ kind: "question", text: q.question, taskTitle: t.title, task: t, since: q._creationTime });
    }
    for (const a of await cardsOfTask(ctx, "approvals", t._id)) {
      if (a.status === "pending") waiting.push({ kind: "approval", text: `${a.tool} ${a.args}`, taskTitle: t.title, task: t, since: a._creationTime });
    }
    for (const p of await cardsOfTask(ctx, "plans", t._id)) {
      if (p.status === "pending") waiting.push({ kind: "plan", text: p.summary, taskTitle: t.title, task: t, since: p._creationTime });
    }
    // A question asked in the thread without a card (or whose card is gone) still blocks its task.
    if (t.pendingQuestion !== undefined && !waiting.some((w) => w.task._id === t._id && w.kind === "question")) {
      const message = await ctx.db.get("messages", t.pendingQuestion.messageId);
      waiting.push({ kind: "question", text: (message?.content ?? "A question waits.").replace(/^❓\s*/, ""), taskTitle: t.title, task: t, since: message?._creationTime ?? t._creationTime });
    }
  }
  return waiting.sort((a, b) => a.since - b.since);
}

/**
 * A later `message/send` on the task: it answers the oldest question that
 * waits on the card or a subtask (posted in that task's thread, which
 * resumes the run that asked); with nothing waiting it is posted in the
 * card's thread and wakes the squad lead.
 */
export async function continueA2aTask(ctx: MutationCtx, client: Doc<"agents">, task: Doc<"tasks">, text: string): Promise<void> {
  const actor = agentActor(client);
  const correlationId = delegationCorrelationId(task._id);
  const question = (await waitingOn(ctx, task)).find((w) => w.kind === "question" && w.task.pendingQuestion !== undefined);
  if (question !== undefined) {
    const target = question.task;
    const message = await postToThread(ctx, actor, target, text, { correlationId });
    await answerFromThread(ctx, target, actor, message);
  } else {
    const lead = await squadLeadX(ctx, task.departmentId);
    const message = await postToThread(ctx, actor, task, text, { correlationId });
    // As a person's mention would: the client runs outside Maestro, so no two agents can wake each other through this.
    await enqueueRun(ctx, lead, task._id, { kind: "mentioned", messageId: message._id });
  }
  await recordEnvelope(ctx, { intent: "status_update", correlationId, from: actor, to: [], task, data: { a2a_task_id: task._id, a2a_message: "client message" } });
}

/** `tasks/cancel`: every run on the card and its subtasks stopped, the card archived, the task remembered as cancelled. */
export async function cancelA2aTask(ctx: MutationCtx, client: Doc<"agents">, task: Doc<"tasks">, row: Doc<"a2aServerTasks">): Promise<void> {
  const actor = agentActor(client);
  const { subtasks } = await subtasksOf(ctx, task._id, MAX_A2A_ARTIFACTS);
  let stopped = 0;
  for (const t of [task, ...subtasks]) {
    for (const run of await runsOfTask(ctx, t._id, 50)) {
      if (await stopRunAs(ctx, run, actor)) stopped += 1;
    }
  }
  await markA2aServerTaskCanceled(ctx, row, Date.now());
  if (task.archivedAt === undefined) {
    await setTaskArchived(ctx, task, true);
    await recordActivity(ctx, { departmentId: task.departmentId, type: "task_archived", actor, taskId: task._id, data: { title: task.title, ...(stopped > 0 ? { stoppedRuns: stopped } : {}) } });
  }
  await recordEnvelope(ctx, { intent: "status_update", correlationId: delegationCorrelationId(task._id), from: actor, to: [], task, data: { a2a_task_id: task._id, a2a_state: "canceled" } });
}

/** A thread message's parts: its text, and its files with their download URLs. */
async function partsOf(ctx: QueryCtx, message: Doc<"messages">): Promise<A2APartView[]> {
  const parts: A2APartView[] = [{ kind: "text", text: message.content }];
  for (const file of message.files ?? []) {
    parts.push({ kind: "file", name: file.name, mediaType: file.contentType, url: await ctx.storage.getUrl(file.storageId) });
  }
  return parts;
}

/** The deliverable of a task: the newest message its assignees (or, for the card, the squad lead) wrote in its thread. */
async function deliverableOf(ctx: QueryCtx, task: Doc<"tasks">, authors: readonly string[]): Promise<Doc<"messages"> | null> {
  const recent = await newestMessages(ctx, task._id, MAX_A2A_HISTORY);
  return recent.reverse().find((m) => m.deletedAt === undefined && m.author.kind === "agent" && authors.includes(m.author.sessionKey)) ?? null;
}

/**
 * The A2A task as its card says it is: its state and status message
 * (lib/a2aServer), its artifacts (each subtask in Review or Done with its
 * assignee's last word, then the squad lead's own on the card once it is
 * completed) and up to `historyLength` messages of the card's thread,
 * oldest first (the client's and people's as `user`, agents' as `agent`).
 */
export async function a2aTaskView(ctx: QueryCtx, task: Doc<"tasks">, row: Doc<"a2aServerTasks">, historyLength: number): Promise<A2ATaskView> {
  const runs = await runsOfTask(ctx, task._id, 5);
  const waiting = await waitingOn(ctx, task);
  const { state, message } = a2aTaskState({
    status: task.status,
    canceled: row.canceledAt !== undefined,
    archived: task.archivedAt !== undefined || task.deletedAt !== undefined || (await liveTask(ctx, task._id)) === null,
    waiting,
    active: runs.some((r) => STOPPABLE.includes(r.status)),
    lastRun: runs[0]?.status ?? null,
  });
  const artifacts: A2ATaskView["artifacts"] = [];
  const lead = (await departmentAgents(ctx, task.departmentId)).find((a) => a.isSquadLead);
  const { subtasks } = await subtasksOf(ctx, task._id, MAX_A2A_ARTIFACTS);
  for (const sub of subtasks) {
    if (sub.deletedAt !== undefined || (sub.status !== "review" && sub.status !== "done")) continue;
    const delivered = await deliverableOf(ctx, sub, sub.assigneeSessionKeys);
    if (delivered === null) continue;
    artifacts.push({ id: sub._id, name: sub.title, description: `Delivered by ${delivered.author.kind === "agent" ? delivered.author.name : "the squad"} (${sub.status === "done" ? "done" : "in review"}).`, parts: await partsOf(ctx, delivered) });
  }
  if (state === "completed" && lead !== undefined) {
    const summary = await deliverableOf(ctx, task, [lead.sessionKey]);
    if (summary !== null) artifacts.push({ id: task._id, name: task.title, description: `${lead.name}'s summary of the work.`, parts: await partsOf(ctx, summary) });
  }
  const history: A2AMessageView[] = [];
  const client = await ctx.db.get("agents", row.clientAgentId);
  for (const m of historyLength <= 0 ? [] : await newestMessages(ctx, task._id, Math.min(historyLength, MAX_A2A_HISTORY))) {
    if (m.deletedAt !== undefined) continue;
    const fromClient = m.author.kind === "agent" && m.author.sessionKey === client?.sessionKey;
    history.push({ id: m._id, role: fromClient || m.author.kind === "member" ? "user" : "agent", parts: await partsOf(ctx, m), at: m._creationTime });
  }
  const at = Math.max(task.updatedAt ?? task._creationTime, row.canceledAt ?? 0, history.at(-1)?.at ?? 0);
  return { id: task._id, contextId: row.contextId, state, message, at, artifacts, history };
}
