import { useSyncExternalStore } from "react";
import type { Id } from "../../convex/_generated/dataModel";

/**
 * The open task lives in the URL hash (`#task=<id>`), so a reload, a shared
 * link or the Back button all land on the same drawer.
 */

const CHANGE_EVENT = "maestro:task-hash";
const PREFIX = "#task=";

/** The task id in a hash, or null. */
export function taskIdFromHash(hash: string): Id<"tasks"> | null {
  if (!hash.startsWith(PREFIX)) return null;
  const raw = hash.slice(PREFIX.length).split("&")[0];
  if (raw === "") return null;
  try {
    return decodeURIComponent(raw) as Id<"tasks">;
  } catch {
    return null;
  }
}

/** The hash that opens a task. */
export function hashForTask(taskId: string): string {
  return `${PREFIX}${encodeURIComponent(taskId)}`;
}

function read(): Id<"tasks"> | null {
  return taskIdFromHash(window.location.hash);
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener("hashchange", onChange);
  window.addEventListener("popstate", onChange);
  window.addEventListener(CHANGE_EVENT, onChange);
  return () => {
    window.removeEventListener("hashchange", onChange);
    window.removeEventListener("popstate", onChange);
    window.removeEventListener(CHANGE_EVENT, onChange);
  };
}

/** The id of the task whose drawer is open, or null. */
export function useOpenTaskId(): Id<"tasks"> | null {
  return useSyncExternalStore(subscribe, read, () => null);
}

/**
 * Whether the current history entry was pushed by `openTask` in this page's
 * lifetime. Only then is Back a safe way to close: after a reload the entry
 * before may belong to the old document, and going back would reload the page.
 */
let pushedEntry = false;

/**
 * Opens a task's drawer. Opening from the board adds a history entry (Back
 * closes the drawer); switching from one open task to another replaces it.
 */
export function openTask(taskId: string): void {
  const current = read();
  if (current === taskId) return;
  const url = `${window.location.pathname}${window.location.search}${hashForTask(taskId)}`;
  if (current === null) {
    window.history.pushState(window.history.state, "", url);
    pushedEntry = true;
  } else {
    window.history.replaceState(window.history.state, "", url);
  }
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

/** Closes the drawer: steps back over the entry `openTask` added, or clears the hash in place. */
export function closeTask(): void {
  if (read() === null) return;
  if (pushedEntry) {
    pushedEntry = false;
    window.history.back();
    return;
  }
  window.history.replaceState(window.history.state, "", `${window.location.pathname}${window.location.search}`);
  window.dispatchEvent(new Event(CHANGE_EVENT));
}
