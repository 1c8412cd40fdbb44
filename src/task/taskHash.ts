import type { Id } from "../../convex/_generated/dataModel";

/**
 * Opening and closing a task from code that is not a route (the board's
 * cards, the notifications menu). The task lives in the address
 * (`/d/:slug/tasks/:taskId`, see src/shell/routes.ts); the router registers
 * how to get there with `setTaskNavigator`, so these stay plain functions.
 * Old `#task=<id>` links are still read by the shell and moved to the new address.
 */

export { taskIdFromHash } from "../shell/routes";

export type TaskNavigator = {
  open: (taskId: Id<"tasks">) => void;
  close: () => void;
};

let navigator: TaskNavigator | null = null;

/** Installs the router's navigator; returns the undo (only undoes its own). */
export function setTaskNavigator(next: TaskNavigator): () => void {
  navigator = next;
  return () => {
    if (navigator === next) navigator = null;
  };
}

/** Opens a task's drawer over the board (a history entry: Back closes it). */
export function openTask(taskId: Id<"tasks">): void {
  navigator?.open(taskId);
}

/** Closes the drawer, back to the board. */
export function closeTask(): void {
  navigator?.close();
}
