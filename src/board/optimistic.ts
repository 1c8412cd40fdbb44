import type { OptimisticLocalStore } from "convex/browser";
import type { FunctionArgs } from "convex/server";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { applyMove, locateTask, type TaskMove } from "./dnd";
import type { BoardColumnData, TaskStatus } from "./types";

/**
 * Applies `change` to every loaded board holding the card: each `tasks.list`
 * result, and each set of `tasks.listColumn` results asked with the same
 * filters (one board, one query per column, each at its own page size). Columns `change` leaves as they
 * were are not written back.
 */
function updateBoards(store: OptimisticLocalStore, taskId: string, change: (columns: BoardColumnData[]) => BoardColumnData[]): void {
  for (const { args, value } of store.getAllQueries(api.tasks.list)) {
    if (value === undefined || locateTask(value, taskId) === null) continue;
    store.setQuery(api.tasks.list, args, change(value));
  }
  const boards = new Map<string, Array<{ args: FunctionArgs<typeof api.tasks.listColumn>; value: BoardColumnData }>>();
  for (const { args, value } of store.getAllQueries(api.tasks.listColumn)) {
    if (value === undefined) continue;
    // One board whatever page each column paged to: a card moves from a column holding 100 cards to one holding 50.
    const { status: _status, limit: _limit, ...filters } = args;
    const key = JSON.stringify(Object.entries(filters).sort(([a], [b]) => a.localeCompare(b)));
    boards.set(key, [...(boards.get(key) ?? []), { args, value }]);
  }
  for (const entries of boards.values()) {
    const columns = entries.map((entry) => entry.value);
    if (locateTask(columns, taskId) === null) continue;
    const next = change(columns);
    entries.forEach((entry, i) => {
      if (next[i] !== columns[i]) store.setQuery(api.tasks.listColumn, entry.args, next[i]);
    });
  }
}

/**
 * Optimistic update for `tasks.move`: every loaded board holding the card shows
 * it at its new place at once, and an open drawer shows its new status. Convex
 * replaces this with the server's result when the mutation lands (or drops it
 * if the mutation fails, so a refused move snaps back).
 */
export function moveTaskInStore(store: OptimisticLocalStore, move: TaskMove & { beforeTaskId?: Id<"tasks"> }): void {
  const { beforeTaskId: _before, ...target } = move;
  updateBoards(store, move.taskId, (columns) => applyMove(columns, target));
  const detail = store.getQuery(api.tasks.get, { taskId: move.taskId });
  if (detail !== undefined) store.setQuery(api.tasks.get, { taskId: move.taskId }, { ...detail, status: move.status });
}

/** Optimistic update for `tasks.setStatus`: the card goes on top of its new column, as the server puts it. */
export function setStatusInStore(store: OptimisticLocalStore, { taskId, status }: { taskId: Id<"tasks">; status: TaskStatus }): void {
  updateBoards(store, taskId, (columns) => {
    const from = locateTask(columns, taskId);
    if (from === null || from.status === status) return columns;
    return applyMove(columns, { taskId, status, position: 0 });
  });
  const detail = store.getQuery(api.tasks.get, { taskId });
  if (detail !== undefined) store.setQuery(api.tasks.get, { taskId }, { ...detail, status });
}

type TaskPatch = { title?: string; description?: string; priority?: BoardColumnData["tasks"][number]["priority"]; tags?: string[]; assigneeSessionKeys?: string[] };

/**
 * Optimistic update for `tasks.update` and `tasks.assign`: the drawer and the
 * card show the edit at once. Text is trimmed as the server trims it.
 */
export function patchTaskInStore(store: OptimisticLocalStore, { taskId, ...changes }: TaskPatch & { taskId: Id<"tasks"> }): void {
  const patch: TaskPatch = {};
  if (changes.title !== undefined) patch.title = changes.title.trim();
  if (changes.description !== undefined) patch.description = changes.description.trim();
  if (changes.priority !== undefined) patch.priority = changes.priority;
  if (changes.tags !== undefined) patch.tags = changes.tags.map((tag) => tag.trim()).filter(Boolean);
  if (changes.assigneeSessionKeys !== undefined) patch.assigneeSessionKeys = [...new Set(changes.assigneeSessionKeys)];
  const { description, ...cardPatch } = patch;

  updateBoards(store, taskId, (columns) =>
    columns.map((column) =>
      column.tasks.some((task) => task._id === taskId)
        ? { ...column, tasks: column.tasks.map((task) => (task._id === taskId ? { ...task, ...cardPatch } : task)) }
        : column,
    ),
  );
  const detail = store.getQuery(api.tasks.get, { taskId });
  if (detail !== undefined) {
    store.setQuery(api.tasks.get, { taskId }, { ...detail, ...cardPatch, ...(description !== undefined ? { description } : {}) });
  }
}
