import type { OptimisticLocalStore } from "convex/browser";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { applyMove, locateTask, type TaskMove } from "./dnd";
import type { BoardColumnData, TaskStatus } from "./types";

/**
 * Optimistic update for `tasks.move`: every loaded board holding the card shows
 * it at its new place at once, and an open drawer shows its new status. Convex
 * replaces this with the server's result when the mutation lands (or drops it
 * if the mutation fails, so a refused move snaps back).
 */
export function moveTaskInStore(store: OptimisticLocalStore, move: TaskMove): void {
  for (const { args, value } of store.getAllQueries(api.tasks.list)) {
    if (value === undefined || locateTask(value, move.taskId) === null) continue;
    store.setQuery(api.tasks.list, args, applyMove(value, move));
  }
  const detail = store.getQuery(api.tasks.get, { taskId: move.taskId });
  if (detail !== undefined) store.setQuery(api.tasks.get, { taskId: move.taskId }, { ...detail, status: move.status });
}

/** Optimistic update for `tasks.setStatus`: the card goes to the end of its new column, as the server puts it. */
export function setStatusInStore(store: OptimisticLocalStore, { taskId, status }: { taskId: Id<"tasks">; status: TaskStatus }): void {
  for (const { args, value } of store.getAllQueries(api.tasks.list)) {
    const from = value === undefined ? null : locateTask(value, taskId);
    if (value === undefined || from === null || from.status === status) continue;
    const target = value.find((column: BoardColumnData) => column.status === status);
    store.setQuery(api.tasks.list, args, applyMove(value, { taskId, status, position: target?.tasks.length ?? 0 }));
  }
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

  for (const { args, value } of store.getAllQueries(api.tasks.list)) {
    if (value === undefined || locateTask(value, taskId) === null) continue;
    store.setQuery(
      api.tasks.list,
      args,
      value.map((column) => ({
        ...column,
        tasks: column.tasks.map((task) => (task._id === taskId ? { ...task, ...cardPatch } : task)),
      })),
    );
  }
  const detail = store.getQuery(api.tasks.get, { taskId });
  if (detail !== undefined) {
    store.setQuery(api.tasks.get, { taskId }, { ...detail, ...cardPatch, ...(description !== undefined ? { description } : {}) });
  }
}
