import { v } from "convex/values";
import type { MutationCtx, QueryCtx } from "./_generated/server";
import { departmentMutation, departmentQuery, taskMutation, taskQuery } from "./functions";
import type { Doc, Id } from "./_generated/dataModel";
import { recordActivity } from "./lib/activity";
import { memberActor, memberKey } from "./lib/actors";
import { cleanBoardFilter, matchesBoardFilter, type BoardFilter, type BoardFilterArgs } from "./lib/boardFilters";
import schema from "./schema";
import { MaestroError } from "./lib/errors";
import { LIMITS } from "./lib/limits";
import { notifyAssignees } from "./lib/notify";
import { orderAtEnd, planMove } from "./lib/ordering";
import { redactForDepartment } from "./lib/userText";
import { cleanTags, cleanText } from "./lib/validate";
import { postMessage } from "./messages";
import { agentBySessionKey, enqueueRun } from "./runs";
import { TASK_STATUSES, vPriority, vTaskStatus, type Actor, type Priority, type TaskStatus } from "./validators";

/** Most cards one column returns; the board says when a column holds more. */
export const MAX_TASKS_PER_COLUMN = 500;

// Projections of the stored task, so the returns can never drift from the schema.
const vTaskCard = schema.tables.tasks.validator
  .pick("title", "status", "priority", "tags", "assigneeSessionKeys", "delegatedBy", "order")
  .extend({ _id: v.id("tasks") });

const vTaskDetail = schema.tables.tasks.validator
  .omit("order", "delegationKey")
  .extend({ _id: v.id("tasks"), _creationTime: v.number(), parentTitle: v.optional(v.string()) });

// ---- helpers shared with the brain's internal functions ----

/** The task, or NOT_FOUND. */
export async function getTaskX(ctx: QueryCtx | MutationCtx, taskId: Id<"tasks">): Promise<Doc<"tasks">> {
  const task = await ctx.db.get("tasks", taskId);
  if (task === null) throw new MaestroError("NOT_FOUND", "Task not found.");
  return task;
}

/** Agents of the department for the given session keys; an unknown key is named in the error. */
export async function resolveAssignees(
  ctx: QueryCtx | MutationCtx,
  departmentId: Id<"departments">,
  sessionKeys: string[],
): Promise<Array<Doc<"agents">>> {
  const unique = [...new Set(sessionKeys)];
  if (unique.length > LIMITS.assigneesPerTask) {
    throw new MaestroError("INVALID_ARGUMENT", `A task has at most ${LIMITS.assigneesPerTask} assignees.`);
  }
  const agents = [];
  for (const sessionKey of unique) {
    const agent = await ctx.db
      .query("agents")
      .withIndex("by_sessionKey", (q) => q.eq("sessionKey", sessionKey))
      .unique();
    if (agent === null || agent.departmentId !== departmentId) {
      throw new MaestroError("INVALID_ARGUMENT", `Unknown assignee: ${sessionKey} is not an agent of this department.`);
    }
    agents.push(agent);
  }
  return agents;
}

async function lastOrderIn(ctx: QueryCtx | MutationCtx, departmentId: Id<"departments">, status: TaskStatus) {
  const last = await ctx.db
    .query("tasks")
    .withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", departmentId).eq("status", status))
    .order("desc")
    .first();
  return last?.order;
}

export interface NewTask {
  departmentId: Id<"departments">;
  title: string;
  description?: string;
  priority?: Priority;
  tags?: string[];
  assigneeSessionKeys?: string[];
  parentTaskId?: Id<"tasks">;
  delegatedBy?: string;
}

/**
 * Creates a task at the end of its column (`assigned` when it has assignees,
 * else `inbox`), records the activity and notifies and triggers the assignees.
 */
export async function createTask(ctx: MutationCtx, actor: Actor, input: NewTask): Promise<Id<"tasks">> {
  const title = await redactForDepartment(ctx, input.departmentId, "task title", cleanText("Title", input.title, LIMITS.taskTitleChars));
  const description = await redactForDepartment(
    ctx,
    input.departmentId,
    "task description",
    cleanText("Description", input.description ?? "", LIMITS.taskDescriptionChars, { allowEmpty: true }),
  );
  const tags = cleanTags(input.tags ?? []);
  const assignees = await resolveAssignees(ctx, input.departmentId, input.assigneeSessionKeys ?? []);
  if (input.parentTaskId !== undefined) {
    const parent = await getTaskX(ctx, input.parentTaskId);
    if (parent.departmentId !== input.departmentId) throw new MaestroError("FORBIDDEN", "The parent task belongs to another department.");
  }
  const status: TaskStatus = assignees.length > 0 ? "assigned" : "inbox";
  const now = Date.now();
  const taskId = await ctx.db.insert("tasks", {
    departmentId: input.departmentId,
    title,
    description,
    status,
    priority: input.priority ?? "medium",
    tags,
    assigneeSessionKeys: assignees.map((a) => a.sessionKey),
    createdBy: actor.kind === "system" ? "system" : actor.kind === "agent" ? actor.sessionKey : `member:${actor.userId}`,
    parentTaskId: input.parentTaskId,
    delegatedBy: input.delegatedBy,
    order: orderAtEnd(await lastOrderIn(ctx, input.departmentId, status)),
    updatedAt: now,
  });
  await recordActivity(ctx, { departmentId: input.departmentId, type: "task_created", actor, taskId, data: { title } });
  if (assignees.length > 0) {
    await recordActivity(ctx, {
      departmentId: input.departmentId,
      type: "task_assigned",
      actor,
      taskId,
      data: { title, assignees: assignees.map((a) => a.name).join(", ") },
    });
    await notifyAssignees(ctx, (await ctx.db.get("tasks", taskId))!, assignees.map((a) => a.sessionKey));
  }
  return taskId;
}

/**
 * Moves a task to `status` at `position` in that column (end when omitted),
 * or just before the card `{ before }` names, recording a column change.
 */
export async function moveTask(
  ctx: MutationCtx,
  actor: Actor,
  task: Doc<"tasks">,
  status: TaskStatus,
  position?: number | { before: Id<"tasks"> },
): Promise<void> {
  const column = await ctx.db
    .query("tasks")
    .withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", task.departmentId).eq("status", status))
    .take(MAX_TASKS_PER_COLUMN + 1);
  const others = column.filter((t) => t._id !== task._id);
  let at = others.length;
  if (typeof position === "number") at = position;
  else if (position !== undefined) {
    at = others.findIndex((t) => t._id === position.before);
    if (at === -1) throw new MaestroError("CONFLICT", "The card to drop before is no longer in that column; try again.");
  }
  const plan = planMove(
    column.map((t) => ({ id: t._id, order: t.order })),
    task._id,
    at,
  );
  const now = Date.now();
  if (plan.kind === "single") {
    await ctx.db.patch("tasks", task._id, { status, order: plan.order, updatedAt: now });
  } else {
    for (const { id, order } of plan.orders) {
      const patch = id === task._id ? { status, order, updatedAt: now } : { order };
      await ctx.db.patch("tasks", id as Id<"tasks">, patch);
    }
  }
  if (status !== task.status) {
    await recordActivity(ctx, {
      departmentId: task.departmentId,
      type: "task_status_changed",
      actor,
      taskId: task._id,
      data: { title: task.title, from: task.status, to: status },
    });
    if (status === "review" || status === "done") await reportToDelegator(ctx, task, status);
  }
}

/**
 * Results flow back: when a delegated task reaches review or done, its parent
 * task's thread says so and the delegator is woken on the parent task.
 */
async function reportToDelegator(ctx: MutationCtx, task: Doc<"tasks">, status: "review" | "done") {
  if (task.parentTaskId === undefined || task.delegatedBy === undefined) return;
  const parent = await ctx.db.get("tasks", task.parentTaskId);
  if (parent === null) return;
  const names = [];
  for (const key of task.assigneeSessionKeys) names.push((await agentBySessionKey(ctx, key))?.name ?? key);
  const who = names.length > 0 ? names.join(", ") : "nobody";
  const outcome = status === "done" ? "is done" : "is ready for review";
  const text = `Delegated task “${task.title}” (assigned to ${who}) ${outcome}.`;
  const messageId = await postMessage(ctx, { kind: "system" }, parent, text);
  const delegator = await agentBySessionKey(ctx, task.delegatedBy);
  if (delegator !== null) await enqueueRun(ctx, delegator, parent._id, { kind: "delegation_result", messageId, note: text });
}

// ---- public functions ----

const vBoardFilterArgs = {
  /** Words of the title (prefix match on the last one), through the `search_title` index. */
  text: v.optional(v.string()),
  /** An agent's session key: only its tasks. */
  assignee: v.optional(v.string()),
  tag: v.optional(v.string()),
  priority: v.optional(vPriority),
  /** Only tasks the caller created or holds. */
  mine: v.optional(v.boolean()),
};

/** `count`: how many cards match when `tasks` is only the first of them (a `limit` cut it); absent when `tasks` is all. */
const vColumn = v.object({ status: vTaskStatus, tasks: v.array(vTaskCard), truncated: v.boolean(), count: v.optional(v.number()) });

/** The filter, checked: an assignee must be an agent of this department (another department's → FORBIDDEN). */
async function boardFilterX(ctx: QueryCtx, departmentId: Id<"departments">, args: BoardFilterArgs): Promise<BoardFilter> {
  const filter = cleanBoardFilter(args);
  if (filter.assignee !== undefined) {
    const agent = await ctx.db
      .query("agents")
      .withIndex("by_sessionKey", (q) => q.eq("sessionKey", filter.assignee!))
      .unique();
    if (agent === null) throw new MaestroError("INVALID_ARGUMENT", `Unknown assignee: ${filter.assignee} is not an agent.`);
    if (agent.departmentId !== departmentId) throw new MaestroError("FORBIDDEN", "That agent belongs to another department.");
  }
  return filter;
}

/**
 * One column as the board shows it: at most MAX_TASKS_PER_COLUMN cards read,
 * in column order, narrowed by `filter`. Text goes through the search index
 * (whose results come by relevance, so they are put back in column order).
 */
async function readColumn(
  ctx: QueryCtx,
  departmentId: Id<"departments">,
  status: TaskStatus,
  filter: BoardFilter,
  viewerKey: string,
  limit = MAX_TASKS_PER_COLUMN,
) {
  const text = filter.text;
  const rows =
    text === undefined
      ? await ctx.db
          .query("tasks")
          .withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", departmentId).eq("status", status))
          .take(MAX_TASKS_PER_COLUMN + 1)
      : (
          await ctx.db
            .query("tasks")
            .withSearchIndex("search_title", (q) => q.search("title", text).eq("departmentId", departmentId).eq("status", status))
            .take(MAX_TASKS_PER_COLUMN + 1)
        ).sort((a, b) => a.order - b.order);
  const matching = rows.slice(0, MAX_TASKS_PER_COLUMN).filter((task) => matchesBoardFilter(task, filter, viewerKey));
  return {
    status,
    truncated: rows.length > MAX_TASKS_PER_COLUMN,
    ...(matching.length > limit ? { count: matching.length } : {}),
    tasks: matching.slice(0, limit).map((task) => ({
      _id: task._id,
      title: task.title,
      status: task.status,
      priority: task.priority,
      tags: task.tags,
      assigneeSessionKeys: task.assigneeSessionKeys,
      delegatedBy: task.delegatedBy,
      order: task.order,
    })),
  };
}

/** The department's board: one entry per column, in column order, each bounded and narrowed by the filters. */
export const list = departmentQuery({
  args: { ...vBoardFilterArgs, statuses: v.optional(v.array(vTaskStatus)) },
  returns: v.array(vColumn),
  handler: async (ctx, { departmentId, statuses, ...args }) => {
    const filter = await boardFilterX(ctx, departmentId, args);
    const viewerKey = memberKey(ctx.member.userId);
    const columns = [];
    for (const status of TASK_STATUSES) {
      if (statuses !== undefined && !statuses.includes(status)) continue;
      columns.push(await readColumn(ctx, departmentId, status, filter, viewerKey));
    }
    return columns;
  },
});

/**
 * One column of the board, narrowed by the filters. The board subscribes to
 * each column on its own, so a move re-runs and re-sends only the two
 * columns it touches instead of the whole board. `limit` ships only the
 * first cards, with the column's `count` (the board's first screen needs no
 * more, and the whole column is several times the bytes to send and decode).
 */
export const listColumn = departmentQuery({
  args: { ...vBoardFilterArgs, status: vTaskStatus, limit: v.optional(v.number()) },
  returns: vColumn,
  handler: async (ctx, { departmentId, status, limit, ...args }) => {
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new MaestroError("INVALID_ARGUMENT", "The limit must be a whole number of at least 1.");
    }
    const filter = await boardFilterX(ctx, departmentId, args);
    return await readColumn(ctx, departmentId, status, filter, memberKey(ctx.member.userId), limit);
  },
});

/** One task with everything the drawer shows. */
export const get = taskQuery({
  args: {},
  returns: vTaskDetail,
  handler: async (ctx) => {
    const { task } = ctx;
    const parent = task.parentTaskId === undefined ? null : await ctx.db.get("tasks", task.parentTaskId);
    const { order: _order, delegationKey: _key, ...fields } = task;
    return { ...fields, parentTitle: parent?.title };
  },
});

/** Creates a task in the caller's department. */
export const create = departmentMutation({
  args: {
    title: v.string(),
    description: v.optional(v.string()),
    priority: v.optional(vPriority),
    tags: v.optional(v.array(v.string())),
    assigneeSessionKeys: v.optional(v.array(v.string())),
  },
  returns: v.id("tasks"),
  handler: async (ctx, args) => {
    return await createTask(ctx, memberActor(ctx.member), args);
  },
});

/** Moves a task to another column, at its end. */
export const setStatus = taskMutation({
  args: { status: vTaskStatus },
  returns: v.null(),
  handler: async (ctx, { status }) => {
    const { task, member } = ctx;
    if (task.status !== status) await moveTask(ctx, memberActor(member), task, status);
    return null;
  },
});

/**
 * Drag and drop: puts a task in `status` at `position` (0-based) among that
 * column's cards. A filtered board sees only some of a column's cards, so it
 * names the card to land before instead (`beforeTaskId`), which then wins
 * over `position`.
 */
export const move = taskMutation({
  args: { status: vTaskStatus, position: v.number(), beforeTaskId: v.optional(v.id("tasks")) },
  returns: v.null(),
  handler: async (ctx, { status, position, beforeTaskId }) => {
    if (!Number.isInteger(position) || position < 0) {
      throw new MaestroError("INVALID_ARGUMENT", "Position must be a whole number of at least 0.");
    }
    const { task, member } = ctx;
    if (beforeTaskId !== undefined) {
      if (beforeTaskId === task._id) throw new MaestroError("INVALID_ARGUMENT", "A card cannot be dropped before itself.");
      const before = await ctx.db.get("tasks", beforeTaskId);
      if (before === null) throw new MaestroError("NOT_FOUND", "The card to drop before was not found.");
      if (before.departmentId !== task.departmentId) throw new MaestroError("FORBIDDEN", "The card to drop before belongs to another department.");
    }
    await moveTask(ctx, memberActor(member), task, status, beforeTaskId === undefined ? position : { before: beforeTaskId });
    return null;
  },
});

/** Sets a task's assignees; newly added agents are notified and triggered. */
export const assign = taskMutation({
  args: { assigneeSessionKeys: v.array(v.string()) },
  returns: v.null(),
  handler: async (ctx, { assigneeSessionKeys }) => {
    await assignTask(ctx, memberActor(ctx.member), ctx.task, assigneeSessionKeys);
    return null;
  },
});

/** Sets a task's assignees (also /assign); newly added agents are notified and triggered. */
export async function assignTask(ctx: MutationCtx, actor: Actor, task: Doc<"tasks">, assigneeSessionKeys: string[]) {
  const assignees = await resolveAssignees(ctx, task.departmentId, assigneeSessionKeys);
  const keys = assignees.map((a) => a.sessionKey);
  const added = keys.filter((key) => !task.assigneeSessionKeys.includes(key));
  await ctx.db.patch("tasks", task._id, { assigneeSessionKeys: keys, updatedAt: Date.now() });
  await recordActivity(ctx, {
    departmentId: task.departmentId,
    type: "task_assigned",
    actor,
    taskId: task._id,
    data: { title: task.title, assignees: assignees.map((a) => a.name).join(", ") },
  });
  if (added.length > 0) await notifyAssignees(ctx, { ...task, assigneeSessionKeys: keys }, added);
  if (task.status === "inbox" && keys.length > 0) await moveTask(ctx, actor, task, "assigned");
}

/** Edits a task's title, description, priority or tags. */
export const update = taskMutation({
  args: {
    title: v.optional(v.string()),
    description: v.optional(v.string()),
    priority: v.optional(vPriority),
    tags: v.optional(v.array(v.string())),
  },
  returns: v.null(),
  handler: async (ctx, { taskId, ...changes }) => {
    const { task, member } = ctx;
    const patch: Partial<Doc<"tasks">> = {};
    if (changes.title !== undefined) {
      patch.title = await redactForDepartment(ctx, task.departmentId, "task title", cleanText("Title", changes.title, LIMITS.taskTitleChars));
    }
    if (changes.description !== undefined) {
      const description = cleanText("Description", changes.description, LIMITS.taskDescriptionChars, { allowEmpty: true });
      patch.description = await redactForDepartment(ctx, task.departmentId, "task description", description);
    }
    if (changes.priority !== undefined) patch.priority = changes.priority;
    if (changes.tags !== undefined) patch.tags = cleanTags(changes.tags);
    const fields = Object.keys(patch);
    if (fields.length === 0) return null;
    await ctx.db.patch("tasks", taskId, { ...patch, updatedAt: Date.now() });
    await recordActivity(ctx, {
      departmentId: task.departmentId,
      type: "task_updated",
      actor: memberActor(member),
      taskId,
      data: { title: patch.title ?? task.title, fields: fields.join(", ") },
    });
    return null;
  },
});
