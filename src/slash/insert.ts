/**
 * The command palette hands a picked slash command to the composer on screen:
 * the one mounted last (the task drawer's over the #maestro pane) takes it.
 */
type Listener = (text: string) => void;
const listeners: Listener[] = [];

/** Registers a composer; returns the unregister function. */
export function onSlashInsert(listener: Listener): () => void {
  listeners.push(listener);
  return () => {
    const index = listeners.lastIndexOf(listener);
    if (index !== -1) listeners.splice(index, 1);
  };
}

/** Puts `text` in the newest composer; false when none is on screen. */
export function requestSlashInsert(text: string): boolean {
  const listener = listeners.at(-1);
  if (listener === undefined) return false;
  listener(text);
  return true;
}
