/** The board's endpoints: its columns, one task, and what people do to tasks (create, move, assign, edit). */
import { type Infer, v } from "convex/values";
import type { Id } from "./_generated/dataModel";
import { internalMutation, type QueryCtx } from "./_generated/server";
import { departmentMutation, departmentQuery, taskMutation, taskQuery } from "./functions";
import { agentActor, memberActor, memberKey } from "./lib/actors";
import { resolveAgentNames } from "./lib/agentNames";
import { cleanBoardFilter, type BoardFilter, type BoardFilterArgs } from "./lib/boardFilters";
import { MaestroError } from "./lib/errors";
import { taskJson } from "./lib/messagingJson";
import { hasRole } from "./lib/roles";
import { archiveTask, deleteTask } from "./reactions/taskCleanup";
import { assignTask, createTask, moveTask } from "./reactions/taskChange";
import { recordActivity } from "./records/activities";
import { scopedKeyAgentX } from "./records/agentApiKeys";
import { agentBySessionKey, agentNamer, departmentAgents } from "./records/agents";
import { mayRead, readableChannelX } from "./records/channels";
import { departmentTasksAmong, readColumn, setTaskChannel, subtasksOf, tasksToLink, updateTaskFields } from "./records/tasks";
import schema from "./schema";
import { TASK_STATUSES, vPriority, vTaskJson, vTaskStatus } from "./validators";

// Projections of the stored task, so the returns can never drift from the schema.
const vTaskCard = schema.tables.tasks.validator
  .pick("title", "status", "priority", "tags", "assigneeSessionKeys", "delegatedBy", "order")
  .extend({ _id: v.id("tasks"), archived: v.optional(v.boolean()) });

const vTaskDetail = schema.tables.tasks.validator
  .omit("order", "delegationKey", "deletedAt")
  .extend({ _id: v.id("tasks"), _creationTime: v.number(), parentTitle: v.optional(v.string()) });

const vBoardFilterArgs = {
  /** Words of the title (prefix match on the last one), through the `search_title` index. */
  text: v.optional(v.string()),
  /** An agent's session key: only its tasks. */
  assignee: v.optional(v.string()),
  tag: v.optional(v.string()),
  priority: v.optional(vPriority),
  /** Only tasks the caller created or holds. */
  mine: v.optional(v.boolean()),
  /** Archived tasks (hidden otherwise) instead of the live ones. */
  archived: v.optional(v.boolean()),
};

/** `count`: how many cards match when `tasks` is only the first of them (a `limit` cut it); absent when `tasks` is all. */
const vColumn = v.object({ status: vTaskStatus, tasks: v.array(vTaskCard), truncated: v.boolean(), count: v.optional(v.number()) });

/** The filter, checked: an assignee must be an agent of this department (another department's → FORBIDDEN). */
async function boardFilterX(ctx: QueryCtx, departmentId: Id<"departments">, args: BoardFilterArgs): Promise<BoardFilter> {
  const filter = cleanBoardFilter(args);
  if (filter.assignee !== undefined) {
    const agent = await agentBySessionKey(ctx, filter.assignee);
    if (agent === null) throw new MaestroError("INVALID_ARGUMENT", `Unknown assignee: ${filter.assignee} is not an agent.`);
    if (agent.departmentId !== departmentId) throw new MaestroError("FORBIDDEN", "That agent belongs to another department.");
  }
  return filter;
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
  handler: async (ctx): Promise<Infer<typeof vTaskDetail>> => {
    const { task } = ctx;
    const parent = task.parentTaskId === undefined ? null : await ctx.db.get("tasks", task.parentTaskId);
    const { order: _order, delegationKey: _key, deletedAt: _deleted, ...fields } = task;
    // Work a lead split from a DM or a #maestro mention hangs under his inbox task, which is off the board: no link to it.
    if (parent?.inboxOf !== undefined) {
      const { parentTaskId: _inbox, ...rest } = fields;
      return rest;
    }
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
    /** A channel the caller may read: the task's delegations post their updates there too. */
    channelId: v.optional(v.id("channels")),
  },
  returns: v.id("tasks"),
  handler: async (ctx, args) => {
    if (args.channelId !== undefined) await readableChannelX(ctx, args.departmentId, memberKey(ctx.member.userId), args.channelId, "channel");
    return (await createTask(ctx, memberActor(ctx.member), args))._id;
  },
});

/**
 * `POST /tasks`: an agent outside Maestro puts a task on its department's
 * board with a key holding `tasks:write`, as a person does with `create`
 * (the same cleaning, limits and secret scan), assigned to agents by name.
 * A name no agent of the department answers to is refused, nothing written.
 */
export const createForKey = internalMutation({
  args: {
    keyHash: v.string(),
    title: v.string(),
    description: v.optional(v.string()),
    priority: v.optional(vPriority),
    tags: v.optional(v.array(v.string())),
    assignees: v.optional(v.array(v.string())),
  },
  returns: vTaskJson,
  handler: async (ctx, { keyHash, assignees = [], ...fields }) => {
    const agent = await scopedKeyAgentX(ctx, keyHash, "tasks:write");
    const roster = await departmentAgents(ctx, agent.departmentId);
    // The project's one name rule (lib/agentNames), as delegate_task and the slash commands resolve names.
    const { resolved, unknown } = resolveAgentNames(assignees, roster);
    if (unknown.length > 0) {
      const [{ requested, suggestions }] = unknown;
      const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.join(", ")}?` : "";
      throw new MaestroError("INVALID_ARGUMENT", `Unknown assignee "${requested.slice(0, 80)}": no agent of this project has that name.${hint}`);
    }
    const task = await createTask(ctx, agentActor(agent), { departmentId: agent.departmentId, ...fields, assigneeSessionKeys: resolved.map((a) => a.sessionKey) });
    const names = task.assigneeSessionKeys.map((key) => roster.find((a) => a.sessionKey === key)?.name ?? key);
    return taskJson(task, { assignees: names, createdBy: agent.name, projectId: agent.departmentId });
  },
});

/** Moves a task to another column, on top of it. */
export const setStatus = taskMutation({
  args: { status: vTaskStatus },
  returns: v.null(),
  handler: async (ctx, { status }) => {
    if (ctx.task.status !== status) await moveTask(ctx, memberActor(ctx.member), ctx.task, status);
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
    const { fields, title } = await updateTaskFields(ctx, ctx.task, changes);
    if (fields.length === 0) return null;
    await recordActivity(ctx, {
      departmentId: ctx.task.departmentId,
      type: "task_updated",
      actor: memberActor(ctx.member),
      taskId,
      data: { title, fields: fields.join(", ") },
    });
    return null;
  },
});

/**
 * Follow in channel: a task's status lines and its delegations' updates are
 * posted in the channel too, and delegations made from it later inherit it;
 * `null` stops. Only a live channel of the task's department that the caller
 * may read, and a follow only the caller may see (a private channel they are
 * not in) is theirs neither to move nor to clear.
 */
export const setChannel = taskMutation({
  args: { channelId: v.union(v.id("channels"), v.null()) },
  returns: v.null(),
  handler: async (ctx, { channelId }) => {
    const { task, member } = ctx;
    const key = memberKey(member.userId);
    const current = task.channelId === undefined ? null : await ctx.db.get("channels", task.channelId);
    if (current !== null && !(await mayRead(ctx, current, key))) {
      throw new MaestroError("FORBIDDEN", "This task is followed in a private channel you are not in.");
    }
    if (channelId !== null) {
      const channel = await readableChannelX(ctx, task.departmentId, key, channelId, "channel");
      if (channel.kind !== "channel") throw new MaestroError("INVALID_ARGUMENT", "A task is followed in a channel, not in a DM.");
      if (channel.archivedAt !== undefined) throw new MaestroError("INVALID_ARGUMENT", `#${channel.name} is archived.`);
    }
    if ((task.channelId ?? null) === channelId) return null;
    await setTaskChannel(ctx, task._id, channelId ?? undefined);
    await recordActivity(ctx, { departmentId: task.departmentId, type: "task_updated", actor: memberActor(member), taskId: task._id, data: { title: task.title, fields: "channel" } });
    return null;
  },
});

/** Archives a task (off the board, its runs stopped) or brings it back: any member. */
export const archive = taskMutation({
  args: { archived: v.boolean() },
  returns: v.null(),
  handler: async (ctx, { archived }) => {
    await archiveTask(ctx, ctx.member, ctx.task, archived);
    return null;
  },
});

/** Deletes a task for everyone, its runs stopped: the member who created it, or an owner or admin. */
export const remove = taskMutation({
  args: {},
  returns: v.null(),
  handler: async (ctx) => {
    const { task, member } = ctx;
    if (task.createdBy !== memberKey(member.userId) && !hasRole(member.role, "admin")) {
      throw new MaestroError("FORBIDDEN", "Only the person who created this task, or an owner or admin, may delete it; archive it instead.");
    }
    await deleteTask(ctx, member, task);
    return null;
  },
});

/**
 * A task's subtasks (what was delegated from it), oldest first, with their
 * live status and assignees: the drawer lists them under the parent.
 */
export const listSubtasks = taskQuery({
  args: {},
  returns: v.object({
    subtasks: v.array(
      v.object({
        _id: v.id("tasks"),
        title: v.string(),
        status: vTaskStatus,
        assignees: v.array(v.string()),
        delegatedBy: v.optional(v.string()),
        updatedAt: v.number(),
      }),
    ),
    /** More subtasks exist than are listed. */
    truncated: v.boolean(),
  }),
  handler: async (ctx, { taskId }) => {
    const { subtasks: children, more } = await subtasksOf(ctx, taskId);
    // A person who delegated with /delegate is recorded by name, not by an agent's session key.
    const nameOf = agentNamer(ctx, (key) => (key.startsWith("agent:") ? "an agent that was removed" : key));
    const subtasks = [];
    for (const child of children) {
      if (child.deletedAt !== undefined) continue;
      const assignees = [];
      for (const key of child.assigneeSessionKeys) assignees.push(await nameOf(key));
      subtasks.push({
        _id: child._id,
        title: child.title,
        status: child.status,
        assignees,
        delegatedBy: child.delegatedBy === undefined ? undefined : await nameOf(child.delegatedBy),
        updatedAt: child.updatedAt,
      });
    }
    return { subtasks, truncated: more };
  },
});

/** Most tasks the `#` completion lists, and most links one read resolves (a page of messages' chips). */
export const TASK_LINK_LIMITS = { suggestions: 8, resolved: 100, queryChars: 200 } as const;

const vTaskLink = schema.tables.tasks.validator.pick("title", "status").extend({ _id: v.id("tasks") });

/** Tasks a message may link (`#` in a composer): by id or title, or the current work when nothing is typed. */
export const linkable = departmentQuery({
  args: { text: v.string() },
  returns: v.array(vTaskLink),
  handler: async (ctx, { departmentId, text }) => {
    const tasks = await tasksToLink(ctx, departmentId, text.slice(0, TASK_LINK_LIMITS.queryChars), TASK_LINK_LIMITS.suggestions);
    return tasks.map(({ _id, title, status }) => ({ _id, title, status }));
  },
});

/** Titles for linked-task chips: the department's tasks among `taskIds`; another department's or a deleted one is left out. */
export const linked = departmentQuery({
  args: { taskIds: v.array(v.id("tasks")) },
  returns: v.array(vTaskLink),
  handler: async (ctx, { departmentId, taskIds }) => {
    if (taskIds.length > TASK_LINK_LIMITS.resolved) throw new MaestroError("INVALID_ARGUMENT", `At most ${TASK_LINK_LIMITS.resolved} linked tasks at once.`);
    const tasks = await departmentTasksAmong(ctx, departmentId, taskIds);
    return tasks.map(({ _id, title, status }) => ({ _id, title, status }));
  },
});
