/**
 * Following work as an agent outside Maestro (what convex/tasksApi.ts runs
 * once it has hashed the caller's API key): read a task with its parent,
 * subtasks and what waits for a person, read its thread a page at a time,
 * post in it, move it, and list the tasks assigned to an agent.
 *
 * The checks are a member's: the key's department only (another
 * department's task is "not found", as an unknown id is), `tasks:read` to
 * read and `tasks:write` to write; and, narrower than a member's, an agent
 * moves only a task it holds (assigned to it, delegated by it or created by
 * it), so a stolen key cannot shuffle the board. Posts are scanned for
 * secrets (records/messages insertMessage) and spend the messagePost bucket
 * channel posts spend; moves spend agentApiCall.
 */
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import { internalMutation, internalQuery, type QueryCtx } from "./_generated/server";
import { agentActor } from "./lib/actors";
import type { ApiScope } from "./lib/apiKeys";
import { MaestroError } from "./lib/errors";
import { clientSendKey } from "./lib/idempotency";
import { ms } from "./lib/messagingJson";
import { taskDetailJson, taskSummaryJson, threadMessageJson, type WaitingJson } from "./lib/taskJson";
import { checkPageSize } from "./lib/validate";
import { moveTask } from "./reactions/taskChange";
import { postToThread } from "./reactions/threadPost";
import { scopedKeyAgentX } from "./records/agentApiKeys";
import { agentNamer, departmentAgents } from "./records/agents";
import { departmentMembers } from "./records/members";
import { threadAfter } from "./records/messages";
import { cardsOfTask } from "./records/pauseCards";
import { limitOrThrow } from "./records/rateLimits";
import { liveTask, readColumn, subtasksOf } from "./records/tasks";
import { oncePerKey } from "./records/toolEffects";
import { TASK_STATUSES, vTaskJson, vTaskStatus, type TaskStatus } from "./validators";

const NOT_FOUND = "Task not found in this project.";

/** The key's agent (holding `scope`) and the task `rawId` names in its department; an id of another department's task reads as unknown. */
async function keyTaskX(ctx: QueryCtx, keyHash: string, scope: ApiScope, rawId: string): Promise<{ agent: Doc<"agents">; task: Doc<"tasks"> }> {
  const agent = await scopedKeyAgentX(ctx, keyHash, scope);
  const taskId = ctx.db.normalizeId("tasks", rawId.trim());
  const task = taskId === null ? null : await liveTask(ctx, taskId);
  if (task === null || task.departmentId !== agent.departmentId) throw new MaestroError("NOT_FOUND", NOT_FOUND);
  return { agent, task };
}

/** Names for the keys tasks keep (an agent's session key, `member:<userId>`, `system`), read once each. */
function keyNamer(ctx: QueryCtx, departmentId: Id<"departments">): (key: string) => Promise<string> {
  let members: Promise<Array<Doc<"members">>> | null = null;
  const agentName = agentNamer(ctx, (key) => (key.startsWith("agent:") ? "an agent that was removed" : key));
  return async (key) => {
    if (key === "system") return "Maestro";
    if (!key.startsWith("member:")) return await agentName(key);
    members ??= departmentMembers(ctx, departmentId);
    return (await members).find((m) => `member:${m.userId}` === key)?.name ?? "a former member";
  };
}

const vSubtask = v.object({ id: v.string(), title: v.string(), status: v.string(), assignees: v.array(v.string()), delegated_by: v.union(v.string(), v.null()), updated_at: v.number() });
const vWaiting = v.object({
  kind: v.union(v.literal("question"), v.literal("approval"), v.literal("plan")),
  id: v.string(),
  agent: v.string(),
  text: v.string(),
  since: v.number(),
  expires_at: v.union(v.number(), v.null()),
});
const vTaskDetailJson = v.object({
  ...vTaskJson.fields,
  updated_at: v.number(),
  archived: v.boolean(),
  delegated_by: v.union(v.string(), v.null()),
  parent: v.union(v.object({ id: v.string(), title: v.string(), status: v.string() }), v.null()),
  subtasks: v.array(vSubtask),
  subtasks_truncated: v.boolean(),
  waiting_for_person: v.array(vWaiting),
});
const vTaskSummaryJson = v.object({
  id: v.string(),
  title: v.string(),
  status: v.string(),
  priority: v.string(),
  tags: v.array(v.string()),
  assignees: v.array(v.string()),
  delegated_by: v.union(v.string(), v.null()),
  parent_id: v.union(v.string(), v.null()),
  updated_at: v.number(),
});
const vThreadMessageJson = v.object({
  id: v.string(),
  task_id: v.string(),
  from: v.string(),
  from_kind: v.union(v.literal("agent"), v.literal("member"), v.literal("system")),
  body: v.string(),
  mentions: v.array(v.string()),
  created_at: v.number(),
  edited: v.boolean(),
  deleted: v.boolean(),
  correlation_id: v.optional(v.string()),
});

/** The pending cards of a task: what waits for a person, oldest first. */
async function waitingOn(ctx: QueryCtx, taskId: Id<"tasks">): Promise<WaitingJson[]> {
  const waiting: WaitingJson[] = [];
  for (const q of await cardsOfTask(ctx, "questions", taskId)) {
    if (q.status === "pending") waiting.push({ kind: "question", id: q._id, agent: q.agentName, text: q.question, since: ms(q._creationTime), expires_at: q.expiresAt ?? null });
  }
  for (const a of await cardsOfTask(ctx, "approvals", taskId)) {
    if (a.status === "pending") waiting.push({ kind: "approval", id: a._id, agent: a.agentName, text: `${a.tool} ${a.args}`, since: ms(a._creationTime), expires_at: a.expiresAt });
  }
  for (const p of await cardsOfTask(ctx, "plans", taskId)) {
    if (p.status === "pending") waiting.push({ kind: "plan", id: p._id, agent: p.agentName, text: p.summary, since: ms(p._creationTime), expires_at: p.expiresAt ?? null });
  }
  return waiting.sort((a, b) => a.since - b.since);
}

/** `GET /tasks/{id}`: the task, its parent, its subtasks with their status, who delegated it and what waits for a person. */
export const taskForKey = internalQuery({
  args: { keyHash: v.string(), taskId: v.string() },
  returns: vTaskDetailJson,
  handler: async (ctx, { keyHash, taskId }) => {
    const { task } = await keyTaskX(ctx, keyHash, "tasks:read", taskId);
    const nameOf = keyNamer(ctx, task.departmentId);
    const names = async (keys: readonly string[]) => await Promise.all(keys.map(nameOf));
    const parent = task.parentTaskId === undefined ? null : await liveTask(ctx, task.parentTaskId);
    const { subtasks: children, more } = await subtasksOf(ctx, task._id);
    const subtasks = [];
    for (const child of children) {
      if (child.deletedAt !== undefined) continue;
      subtasks.push({
        id: child._id,
        title: child.title,
        status: child.status,
        assignees: await names(child.assigneeSessionKeys),
        delegated_by: child.delegatedBy === undefined ? null : await nameOf(child.delegatedBy),
        updated_at: ms(child.updatedAt),
      });
    }
    return taskDetailJson(task, {
      assignees: await names(task.assigneeSessionKeys),
      createdBy: await nameOf(task.createdBy),
      delegatedBy: task.delegatedBy === undefined ? null : await nameOf(task.delegatedBy),
      parent,
      subtasks,
      subtasksTruncated: more,
      waiting: await waitingOn(ctx, task._id),
    });
  },
});

/**
 * `GET /tasks/{id}/messages`: a page of the thread, oldest first, after
 * `cursor` (none: from the start), and the cursor that continues it: the
 * last message's creation time, so the last page's cursor picks up what is
 * posted later.
 */
export const threadForKey = internalQuery({
  args: { keyHash: v.string(), taskId: v.string(), limit: v.number(), cursor: v.union(v.string(), v.null()) },
  returns: v.object({ messages: v.array(vThreadMessageJson), next_cursor: v.string(), done: v.boolean() }),
  handler: async (ctx, { keyHash, taskId, limit, cursor }) => {
    const { task } = await keyTaskX(ctx, keyHash, "tasks:read", taskId);
    checkPageSize(limit);
    const after = cursor === null ? null : Number(cursor);
    if (after !== null && (cursor!.trim() === "" || !Number.isFinite(after) || after < 0)) {
      throw new MaestroError("INVALID_ARGUMENT", '"cursor" is not one this API handed out: pass the previous page\'s next_cursor, or none.');
    }
    const { messages, more } = await threadAfter(ctx, task._id, after, limit);
    const last = messages.at(-1);
    return { messages: messages.map(threadMessageJson), next_cursor: last === undefined ? (cursor ?? "0") : String(last._creationTime), done: !more };
  },
});

/** `GET /tasks?assignee=`: the live tasks assigned to an agent of the key's department (`me`, its id or its name), by column, at most MAX_TASKS_PER_COLUMN a column. */
export const assignedForKey = internalQuery({
  args: { keyHash: v.string(), assignee: v.string(), status: v.optional(vTaskStatus) },
  returns: v.object({ tasks: v.array(vTaskSummaryJson), truncated: v.boolean() }),
  handler: async (ctx, { keyHash, assignee, status }) => {
    const agent = await scopedKeyAgentX(ctx, keyHash, "tasks:read");
    const wanted = assignee.trim().toLowerCase();
    const holder =
      wanted === "me" ? agent : (await departmentAgents(ctx, agent.departmentId)).find((a) => a._id === assignee || a.nameKey === wanted || a.name.toLowerCase() === wanted);
    if (holder === undefined) throw new MaestroError("NOT_FOUND", `No agent ${JSON.stringify(assignee.slice(0, 80))} in this project.`);
    const nameOf = keyNamer(ctx, agent.departmentId);
    const tasks = [];
    let truncated = false;
    for (const column of status === undefined ? TASK_STATUSES : [status]) {
      const shown = await readColumn(ctx, agent.departmentId, column, { assignee: holder.sessionKey, mine: false, archived: false }, agent.sessionKey);
      truncated ||= shown.truncated;
      for (const card of shown.tasks) {
        const task = await liveTask(ctx, card._id);
        if (task === null) continue;
        tasks.push(
          taskSummaryJson(task, {
            assignees: await Promise.all(task.assigneeSessionKeys.map(nameOf)),
            delegatedBy: task.delegatedBy === undefined ? null : await nameOf(task.delegatedBy),
          }),
        );
      }
    }
    return { tasks, truncated };
  },
});

/** `POST /tasks/{id}/messages`: a post in the task's thread as the key's agent (its @mentions wake agents as a person's do); a retry with the same client_message_id posts once. */
export const postForKey = internalMutation({
  args: { keyHash: v.string(), taskId: v.string(), body: v.string(), clientMessageId: v.optional(v.string()) },
  returns: vThreadMessageJson,
  handler: async (ctx, { keyHash, taskId, body, clientMessageId }) => {
    const { agent, task } = await keyTaskX(ctx, keyHash, "tasks:write", taskId);
    const messageId = await oncePerKey(ctx, { key: clientSendKey(`${agent.sessionKey}:task:${task._id}`, clientMessageId), tool: "task_message" }, async () => {
      await limitOrThrow(ctx, "messagePost", agent.sessionKey);
      return (await postToThread(ctx, agentActor(agent), task, body))._id;
    });
    const message = await ctx.db.get("messages", messageId);
    if (message === null) throw new MaestroError("NOT_FOUND", "That message was deleted.");
    return threadMessageJson(message);
  },
});

/** Whether `agent` holds `task`: assigned to it, delegated by it, or created by it. */
function holds(agent: Doc<"agents">, task: Doc<"tasks">): boolean {
  return task.assigneeSessionKeys.includes(agent.sessionKey) || task.delegatedBy === agent.sessionKey || task.createdBy === agent.sessionKey;
}

/** `POST /tasks/{id}/status`: moves a task the key's agent holds to another column, as its own update_task_status does (review and done report to the delegator). */
export const moveForKey = internalMutation({
  args: { keyHash: v.string(), taskId: v.string(), status: vTaskStatus },
  returns: v.object({ id: v.string(), from: vTaskStatus, to: vTaskStatus }),
  handler: async (ctx, { keyHash, taskId, status }) => {
    const { agent, task } = await keyTaskX(ctx, keyHash, "tasks:write", taskId);
    if (!holds(agent, task)) {
      throw new MaestroError("FORBIDDEN", `${agent.name} may move only the tasks it is assigned, delegated or created; post in the task's thread instead.`);
    }
    if (task.pendingQuestion !== undefined && status !== "blocked") {
      throw new MaestroError("CONFLICT", "The task is blocked on a question until a person answers it.");
    }
    await limitOrThrow(ctx, "agentApiCall", agent.sessionKey);
    const from: TaskStatus = task.status;
    if (from !== status) await moveTask(ctx, agentActor(agent), task, status);
    return { id: task._id, from, to: status };
  },
});
