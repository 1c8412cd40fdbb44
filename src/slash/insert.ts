import { createContext } from "react";

/**
 * How the command palette hands a picked slash command to the composer on
 * screen: the one mounted last (the task drawer's over the #maestro pane)
 * takes it. The shell makes one and provides it (`SlashInsertContext`); a
 * composer outside a shell (a component test) simply takes none.
 */
export type SlashInserts = {
  /** Registers a composer; returns the unregister function. */
  register: (listener: (text: string) => void) => () => void;
  /** Puts `text` in the newest composer; false when none is on screen. */
  request: (text: string) => boolean;
};

export function createSlashInserts(): SlashInserts {
  const listeners: ((text: string) => void)[] = [];
  return {
    register(listener) {
      listeners.push(listener);
      return () => {
        const index = listeners.lastIndexOf(listener);
        if (index !== -1) listeners.splice(index, 1);
      };
    },
    request(text) {
      const listener = listeners.at(-1);
      if (listener === undefined) return false;
      listener(text);
      return true;
    },
  };
}

export const SlashInsertContext = createContext<SlashInserts | null>(null);
