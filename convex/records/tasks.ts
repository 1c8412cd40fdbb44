/**
 * Tasks: the board's cards. Reads (a column, a task, its subtasks, its
 * delegation tree) and writes of the task rows themselves: insert, place in a
 * column, assignees, fields, the open question that blocks one. What a new
 * or moved task sets off (activity, notifications, runs) is reactions/taskChange.ts.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { isFiltered, matchesBoardFilter, type BoardFilter } from "../lib/boardFilters";
import { MaestroError } from "../lib/errors";
import { LIMITS, MAX_SUBTASKS, MAX_TASKS_PER_COLUMN } from "../lib/limits";
import { orderAtStart, planMove } from "../lib/ordering";
import { cleanTags, cleanText } from "../lib/validate";
import type { Actor, Priority, TaskStatus } from "../validators";
import { actorKey } from "../lib/actors";
import { agentBySessionKey } from "./agents";
import { redactForDepartment } from "./settings";

type ReadCtx = QueryCtx | MutationCtx;

export { MAX_TASKS_PER_COLUMN };
/**
 * Most cards counted when a column's counter is first made (a department
 * whose tasks predate the counters): within a transaction's read limit.
 */
export const MAX_COUNTED_ON_START = 15_000;
/** Bound on the parent hops walked to a tree's root. */
const MAX_TREE_HOPS = 100;
/** How far up parentTaskId is followed to a batch's root (the context pack). */
export const MAX_BATCH_DEPTH = 10;
/** Tasks of one batch read (the context pack). */
export const MAX_BATCH_TASKS = 60;

/** The task unless it was deleted (a deleted task is, to every reader, not there). */
export async function liveTask(ctx: ReadCtx, taskId: Id<"tasks">): Promise<Doc<"tasks"> | null> {
  const task = await ctx.db.get("tasks", taskId);
  return task === null || task.deletedAt !== undefined ? null : task;
}

/** The task, or NOT_FOUND (also for a deleted one). */
export async function getTaskX(ctx: ReadCtx, taskId: Id<"tasks">): Promise<Doc<"tasks">> {
  const task = await liveTask(ctx, taskId);
  if (task === null) throw new MaestroError("NOT_FOUND", "Task not found.");
  return task;
}

/** The task when it belongs to `departmentId`: NOT_FOUND when it does not exist, FORBIDDEN when it is another department's. */
export async function departmentTaskX(ctx: ReadCtx, departmentId: Id<"departments">, taskId: Id<"tasks">): Promise<Doc<"tasks">> {
  const task = await getTaskX(ctx, taskId);
  if (task.departmentId !== departmentId) throw new MaestroError("FORBIDDEN", "That task belongs to another department.");
  return task;
}

/** Agents of the department for the given session keys; an unknown key is named in the error. */
export async function resolveAssignees(ctx: ReadCtx, departmentId: Id<"departments">, sessionKeys: string[]): Promise<Array<Doc<"agents">>> {
  const unique = [...new Set(sessionKeys)];
  if (unique.length > LIMITS.assigneesPerTask) {
    throw new MaestroError("INVALID_ARGUMENT", `A task has at most ${LIMITS.assigneesPerTask} assignees.`);
  }
  const agents = [];
  for (const sessionKey of unique) {
    const agent = await agentBySessionKey(ctx, sessionKey);
    if (agent === null || agent.departmentId !== departmentId) {
      throw new MaestroError("INVALID_ARGUMENT", `Unknown assignee: ${sessionKey} is not an agent of this department.`);
    }
    agents.push(agent);
  }
  return agents;
}

/** Whether a task is one of its column's cards on the unfiltered board (and in its counter): live, not archived, not an agent's inbox task. */
function onBoard(task: Pick<Doc<"tasks">, "archivedAt" | "deletedAt" | "inboxOf">): boolean {
  return task.archivedAt === undefined && task.deletedAt === undefined && task.inboxOf === undefined;
}

/** A column's cards as the unfiltered board shows them (live, not archived, no inbox task), in column order. */
function boardColumn(ctx: ReadCtx, departmentId: Id<"departments">, status: TaskStatus) {
  return ctx.db
    .query("tasks")
    .withIndex("by_department_and_status_and_deletedAt_and_archivedAt_and_inboxOf_and_order", (q) =>
      q.eq("departmentId", departmentId).eq("status", status).eq("deletedAt", undefined).eq("archivedAt", undefined).eq("inboxOf", undefined),
    );
}

async function columnCounter(ctx: ReadCtx, departmentId: Id<"departments">, status: TaskStatus) {
  return await ctx.db
    .query("taskColumnCounts")
    .withIndex("by_department_and_status", (q) => q.eq("departmentId", departmentId).eq("status", status))
    .unique();
}

/** How many cards a column holds, from its counter; null when it has none yet (nothing was written there since counters exist). */
export async function columnCount(ctx: ReadCtx, departmentId: Id<"departments">, status: TaskStatus): Promise<number | null> {
  return (await columnCounter(ctx, departmentId, status))?.count ?? null;
}

/**
 * Adds `delta` to a column's counter, called after the write that changed
 * the column. A column without a counter yet is counted once (its tasks may
 * predate the counters), the write already in it.
 */
async function addToColumnCount(ctx: MutationCtx, departmentId: Id<"departments">, status: TaskStatus, delta: number): Promise<void> {
  const counter = await columnCounter(ctx, departmentId, status);
  if (counter !== null) {
    await ctx.db.patch("taskColumnCounts", counter._id, { count: Math.max(0, counter.count + delta) });
    return;
  }
  const count = (await boardColumn(ctx, departmentId, status).take(MAX_COUNTED_ON_START)).length;
  await ctx.db.insert("taskColumnCounts", { departmentId, status, count });
}

/** Keeps the counters right when a task's column or board presence changes from `before` to `after`. */
async function recount(ctx: MutationCtx, before: Doc<"tasks"> | null, after: Doc<"tasks">): Promise<void> {
  const was = before !== null && onBoard(before) ? before.status : null;
  const is = onBoard(after) ? after.status : null;
  if (was === is) return;
  if (was !== null) await addToColumnCount(ctx, after.departmentId, was, -1);
  if (is !== null) await addToColumnCount(ctx, after.departmentId, is, 1);
}

/** Patches a task, keeping its column's counter right when its status, archive or deletion changes. */
async function patchTask(ctx: MutationCtx, task: Doc<"tasks">, patch: Partial<Doc<"tasks">>): Promise<void> {
  await ctx.db.patch("tasks", task._id, patch);
  await recount(ctx, task, { ...task, ...patch });
}

async function firstOrderIn(ctx: ReadCtx, departmentId: Id<"departments">, status: TaskStatus) {
  const first = await ctx.db
    .query("tasks")
    .withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", departmentId).eq("status", status))
    .first();
  return first?.order;
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
  /** A delegation's idempotency key, or an agent's inbox task key. */
  delegationKey?: string;
  /** The channel the task's work is followed in (a channel of its department, not a DM; the caller checked who may read it). */
  channelId?: Id<"channels">;
}

/**
 * Inserts a task on top of its column (`assigned` when it has assignees,
 * else `inbox`: where the board's first page shows it, however long the
 * column), its text cleaned, size-checked and secret-scanned; returns the
 * task and its assignees.
 */
export async function insertTask(ctx: MutationCtx, actor: Actor, input: NewTask): Promise<{ task: Doc<"tasks">; assignees: Array<Doc<"agents">> }> {
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
  if (input.channelId !== undefined) {
    const channel = await ctx.db.get("channels", input.channelId);
    if (channel === null || channel.departmentId !== input.departmentId || channel.kind !== "channel") throw new MaestroError("NOT_FOUND", "No such channel in this department.");
  }
  const status: TaskStatus = assignees.length > 0 ? "assigned" : "inbox";
  const taskId = await ctx.db.insert("tasks", {
    departmentId: input.departmentId,
    title,
    description,
    status,
    priority: input.priority ?? "medium",
    tags,
    assigneeSessionKeys: assignees.map((a) => a.sessionKey),
    createdBy: actorKey(actor) ?? "system",
    parentTaskId: input.parentTaskId,
    delegatedBy: input.delegatedBy,
    ...(input.delegationKey === undefined ? {} : { delegationKey: input.delegationKey }),
    ...(input.channelId === undefined ? {} : { channelId: input.channelId }),
    order: orderAtStart(await firstOrderIn(ctx, input.departmentId, status)),
    updatedAt: Date.now(),
  });
  const task = (await ctx.db.get("tasks", taskId))!;
  await recount(ctx, null, task);
  return { task, assignees };
}

/**
 * Puts a task in `status` at `position` in that column (on top when
 * omitted: a card an agent or /status moves shows in the board's first
 * page), or just before the card `{ before }` names. Only the cards around the
 * drop point are read (a column of a big board holds thousands); the whole
 * column (bounded) only when their order values have run out of room and
 * it is renumbered.
 */
export async function placeTask(ctx: MutationCtx, task: Doc<"tasks">, status: TaskStatus, position?: number | { before: Id<"tasks"> }): Promise<void> {
  const { window, at } = await dropPoint(ctx, task, status, position);
  const now = Date.now();
  const near = planMove(
    window.map((t) => ({ id: t._id, order: t.order })),
    task._id,
    at,
  );
  if (near.kind === "single") {
    await patchTask(ctx, task, { status, order: near.order, updatedAt: now });
    return;
  }
  const column = await ctx.db
    .query("tasks")
    .withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", task.departmentId).eq("status", status))
    .take(MAX_TASKS_PER_COLUMN + 1);
  const others = column.filter((t) => t._id !== task._id);
  const index = typeof position === "number" ? position : position === undefined ? 0 : others.findIndex((t) => t._id === position.before);
  const plan = planMove(
    column.map((t) => ({ id: t._id, order: t.order })),
    task._id,
    index,
  );
  if (plan.kind === "single") {
    await patchTask(ctx, task, { status, order: plan.order, updatedAt: now });
    return;
  }
  for (const { id, order } of plan.orders) {
    if (id === task._id) await patchTask(ctx, task, { status, order, updatedAt: now });
    else await ctx.db.patch("tasks", id as Id<"tasks">, { order });
  }
}

/**
 * The cards around where `task` lands, in column order, and its position
 * among them (the moved card itself may be among them; planMove skips it).
 */
async function dropPoint(ctx: MutationCtx, task: Doc<"tasks">, status: TaskStatus, position: number | { before: Id<"tasks"> } | undefined) {
  const inColumn = ctx.db.query("tasks").withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", task.departmentId).eq("status", status));
  if (position === undefined || typeof position === "number") {
    const at = position ?? 0;
    // Enough cards for the one before and the one after the drop point, the moved card counted.
    return { window: await inColumn.take(Math.max(0, Math.floor(at)) + 2), at };
  }
  const before = await ctx.db.get("tasks", position.before);
  if (before === null || before._id === task._id || before.departmentId !== task.departmentId || before.status !== status) {
    throw new MaestroError("CONFLICT", "The card to drop before is no longer in that column; try again.");
  }
  const earlier = await ctx.db
    .query("tasks")
    .withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", task.departmentId).eq("status", status).lt("order", before.order))
    .order("desc")
    .take(2);
  const window = [...earlier.reverse(), before];
  return { window, at: window.filter((t) => t._id !== task._id).length - 1 };
}

export async function setAssignees(ctx: MutationCtx, taskId: Id<"tasks">, assigneeSessionKeys: string[]): Promise<void> {
  await ctx.db.patch("tasks", taskId, { assigneeSessionKeys, updatedAt: Date.now() });
}

/** Edits a task's title, description, priority or tags (cleaned and scanned); returns the names of the fields changed. */
export async function updateTaskFields(
  ctx: MutationCtx,
  task: Doc<"tasks">,
  changes: { title?: string; description?: string; priority?: Priority; tags?: string[] },
): Promise<{ fields: string[]; title: string }> {
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
  if (fields.length > 0) await ctx.db.patch("tasks", task._id, { ...patch, updatedAt: Date.now() });
  return { fields, title: patch.title ?? task.title };
}

/** Sets (or clears) what /model and /mode keep on a task. */
export async function setTaskRunSettings(ctx: MutationCtx, taskId: Id<"tasks">, settings: Pick<Partial<Doc<"tasks">>, "model" | "leadMode">): Promise<void> {
  await ctx.db.patch("tasks", taskId, { ...settings, updatedAt: Date.now() });
}

/** Follows a task in a channel (the caller checked it is a channel of its department they may read), or stops with `undefined`. */
export async function setTaskChannel(ctx: MutationCtx, taskId: Id<"tasks">, channelId: Id<"channels"> | undefined): Promise<void> {
  await ctx.db.patch("tasks", taskId, { channelId, updatedAt: Date.now() });
}

/** Archives a task (off the board by default) or brings it back. */
export async function setTaskArchived(ctx: MutationCtx, task: Doc<"tasks">, archived: boolean): Promise<void> {
  await patchTask(ctx, task, { archivedAt: archived ? Date.now() : undefined, updatedAt: Date.now() });
}

/** Deletes a task for everyone: the row stays (runs, notifications and subtasks name it) but every read treats it as gone. */
export async function markTaskDeleted(ctx: MutationCtx, task: Doc<"tasks">): Promise<void> {
  await patchTask(ctx, task, { deletedAt: Date.now(), updatedAt: Date.now() });
}

/** An agent's question now blocks the task (or no longer does, with `undefined`). */
export async function setPendingQuestion(ctx: MutationCtx, taskId: Id<"tasks">, pendingQuestion: Doc<"tasks">["pendingQuestion"]): Promise<void> {
  await ctx.db.patch("tasks", taskId, { pendingQuestion });
}

/** The task a delegation (or an agent's inbox) made under this key, if any. */
export async function taskByDelegationKey(ctx: ReadCtx, key: string): Promise<Doc<"tasks"> | null> {
  return await ctx.db
    .query("tasks")
    .withIndex("by_delegationKey", (q) => q.eq("delegationKey", key))
    .first();
}

/** The per-agent task that holds runs for blocking messages about no task. */
export const inboxTaskKey = (sessionKey: string) => `inbox:${sessionKey}`;

/**
 * Gives an agent's inbox task to the agent quietly (no assignment run) and
 * takes it off the board (`inboxOf`): it is created unassigned, then this.
 * Also takes an inbox task made before `inboxOf` existed off the board.
 */
export async function holdInboxTask(ctx: MutationCtx, task: Doc<"tasks">, sessionKey: string): Promise<void> {
  await patchTask(ctx, task, { assigneeSessionKeys: [sessionKey], inboxOf: sessionKey });
}

/** A task's subtasks (what was delegated from it), oldest first, bounded; `more` when there are others. */
export async function subtasksOf(ctx: ReadCtx, taskId: Id<"tasks">, limit = MAX_SUBTASKS): Promise<{ subtasks: Array<Doc<"tasks">>; more: boolean }> {
  const children = await ctx.db
    .query("tasks")
    .withIndex("by_parent", (q) => q.eq("parentTaskId", taskId))
    .take(limit + 1);
  return { subtasks: children.slice(0, limit), more: children.length > limit };
}

/** Where a delegation under `parentTaskId` would stand: its depth, its tree's root and the tree's delegations so far (up to `budget`). */
export async function delegationTree(ctx: ReadCtx, parentTaskId: Id<"tasks">, budget: number) {
  // Depth counts the unbroken chain of delegations above; the root is the topmost task whatever made it.
  let depth = 0;
  let counting = true;
  let root = await getTaskX(ctx, parentTaskId);
  for (let current: Doc<"tasks"> | null = root, hops = 0; current !== null && hops < MAX_TREE_HOPS; hops++) {
    if (counting && current.delegatedBy !== undefined) depth += 1;
    else counting = false;
    root = current;
    current = current.parentTaskId === undefined ? null : await ctx.db.get("tasks", current.parentTaskId);
  }
  // Breadth first from the root, stopping as soon as the budget is reached: reads stay bounded by it.
  let delegations = 0;
  const queue: Array<Id<"tasks">> = [root._id];
  while (queue.length > 0 && delegations < budget) {
    const { subtasks } = await subtasksOf(ctx, queue.shift()!, budget);
    for (const child of subtasks) {
      if (child.delegatedBy !== undefined) delegations += 1;
      queue.push(child._id);
    }
  }
  return { depth, root, delegations: Math.min(delegations, budget) };
}

/** The batch `task` belongs to: its root, then every task under it, breadth first, bounded. */
export async function batchOf(ctx: ReadCtx, task: Doc<"tasks">): Promise<{ root: Doc<"tasks">; tasks: Array<Doc<"tasks">> }> {
  let root = task;
  for (let depth = 0; depth < MAX_BATCH_DEPTH && root.parentTaskId !== undefined; depth++) {
    const parent = await ctx.db.get("tasks", root.parentTaskId);
    if (parent === null) break;
    root = parent;
  }
  const tasks = [root];
  for (let i = 0; i < tasks.length && tasks.length < MAX_BATCH_TASKS; i++) {
    tasks.push(...(await subtasksOf(ctx, tasks[i]._id, MAX_BATCH_TASKS - tasks.length)).subtasks);
  }
  return { root, tasks };
}

/** A card as the board shows it. */
function toCard(task: Doc<"tasks">) {
  const { _id, title, status, priority, tags, assigneeSessionKeys, delegatedBy, order, archivedAt } = task;
  return { _id, title, status, priority, tags, assigneeSessionKeys, delegatedBy, order, ...(archivedAt === undefined ? {} : { archived: true }) };
}

/**
 * One column as the board shows it, in column order, narrowed by `filter`,
 * its first `limit` cards (at most MAX_TASKS_PER_COLUMN). Unfiltered, only
 * those cards are read (the board index holds only cards it shows) and the
 * count is the column's counter. Filtered, at most MAX_TASKS_PER_COLUMN
 * cards are read and the count is of those that match (`truncated` when the
 * column held more). Text goes through the search index (whose results come
 * by relevance, so they are put back in column order). `count` is there when
 * the column holds more than the cards sent.
 */
export async function readColumn(
  ctx: QueryCtx,
  departmentId: Id<"departments">,
  status: TaskStatus,
  filter: BoardFilter,
  viewerKey: string,
  limit = MAX_TASKS_PER_COLUMN,
) {
  const cap = Math.min(limit, MAX_TASKS_PER_COLUMN);
  const shown = (tasks: Array<Doc<"tasks">>, count: number, truncated: boolean) => ({
    status,
    truncated,
    ...(count > tasks.length ? { count } : {}),
    tasks: tasks.map(toCard),
  });
  if (!isFiltered(filter)) {
    const counted = await columnCount(ctx, departmentId, status);
    if (counted !== null) {
      const rows = await boardColumn(ctx, departmentId, status).take(cap);
      return shown(rows, Math.max(counted, rows.length), false);
    }
    // No counter yet (a column untouched since counters exist): count what a column may show.
    const rows = await boardColumn(ctx, departmentId, status).take(MAX_TASKS_PER_COLUMN + 1);
    return shown(rows.slice(0, cap), Math.min(rows.length, MAX_TASKS_PER_COLUMN), rows.length > MAX_TASKS_PER_COLUMN);
  }
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
  return shown(matching.slice(0, cap), matching.length, rows.length > MAX_TASKS_PER_COLUMN);
}

/** Tasks whose title matches `text` (the `search_title` index, best first). */
export async function searchTitles(ctx: QueryCtx, departmentId: Id<"departments">, text: string, limit: number): Promise<Array<Doc<"tasks">>> {
  const found = await ctx.db
    .query("tasks")
    .withSearchIndex("search_title", (q) => q.search("title", text).eq("departmentId", departmentId))
    .take(limit);
  return found.filter((task) => task.deletedAt === undefined && task.inboxOf === undefined);
}

/** A task row as given, placed by the caller: the demo seed's cards (no activity, no assignment runs). */
export async function insertTaskRow(ctx: MutationCtx, row: Omit<Doc<"tasks">, "_id" | "_creationTime">): Promise<Id<"tasks">> {
  const taskId = await ctx.db.insert("tasks", row);
  await recount(ctx, null, (await ctx.db.get("tasks", taskId))!);
  return taskId;
}

/** Columns the `#` completion offers before anything is typed: work under way first. */
const LINKABLE_STATUSES: readonly TaskStatus[] = ["in_progress", "review", "assigned", "inbox", "blocked", "done"];

/**
 * Tasks a message may link, for the `#` completion: the task whose id is
 * `text`, then titles matching it (the `search_title` index), or with
 * nothing typed the first cards of each column, work under way first.
 * Only this department's live tasks; at most `limit`.
 */
export async function tasksToLink(ctx: QueryCtx, departmentId: Id<"departments">, text: string, limit: number): Promise<Array<Doc<"tasks">>> {
  const live = (task: Doc<"tasks"> | null): task is Doc<"tasks"> => task !== null && task.departmentId === departmentId && task.deletedAt === undefined && task.archivedAt === undefined && task.inboxOf === undefined;
  const query = text.trim();
  if (query === "") {
    const out: Array<Doc<"tasks">> = [];
    for (const status of LINKABLE_STATUSES) {
      if (out.length >= limit) break;
      const rows = await ctx.db
        .query("tasks")
        .withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", departmentId).eq("status", status))
        .take(limit);
      out.push(...rows.filter(live));
    }
    return out.slice(0, limit);
  }
  const byId = ctx.db.normalizeId("tasks", query);
  const exact = byId === null ? null : await ctx.db.get("tasks", byId);
  const titled = (await searchTitles(ctx, departmentId, query, limit + 1)).filter(live);
  return [...(live(exact) ? [exact] : []), ...titled.filter((task) => task._id !== exact?._id)].slice(0, limit);
}

/** The tasks of `departmentId` among `taskIds` (a message's links), live ones only; others are left out. */
export async function departmentTasksAmong(ctx: QueryCtx, departmentId: Id<"departments">, taskIds: ReadonlyArray<Id<"tasks">>): Promise<Array<Doc<"tasks">>> {
  const out: Array<Doc<"tasks">> = [];
  for (const id of new Set(taskIds)) {
    const task = await ctx.db.get("tasks", id);
    if (task !== null && task.departmentId === departmentId && task.deletedAt === undefined) out.push(task);
  }
  return out;
}
