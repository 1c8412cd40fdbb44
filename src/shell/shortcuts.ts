/**
 * The app's keyboard shortcuts: what the help overlay (`?`) lists, and which
 * key press means which action. j/k/Enter belong to the board
 * (src/board/shortcuts.ts); the help lists the board's own list with these.
 */
import { BOARD_SHORTCUTS } from "../board/shortcuts";
import { isTypingTarget } from "../lib/keyboard";

export { isTypingTarget };

export type ShortcutAction = "palette" | "newTask" | "search" | "help";

export type Shortcut = { keys: readonly string[]; description: string };

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ["Ctrl/⌘", "K"], description: "Jump to a task or an agent (command palette)" },
  { keys: ["c"], description: "New task" },
  { keys: ["/"], description: "Search the board" },
  ...BOARD_SHORTCUTS,
  { keys: ["Esc"], description: "Close the drawer, dialog or palette" },
  { keys: ["?"], description: "Show these shortcuts" },
];

type KeyPress = {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  defaultPrevented: boolean;
  target: EventTarget | null;
};


/**
 * The shell's action for a key press, or null. Ctrl/Cmd-K works anywhere;
 * the single keys only when nothing is being typed, no other modifier is
 * held, and no dialog is open (`modalOpen`), so they never eat a letter.
 */
export function shortcutFor(event: KeyPress, modalOpen: boolean): ShortcutAction | null {
  if (event.defaultPrevented) return null;
  if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "k") return "palette";
  if (event.ctrlKey || event.metaKey || event.altKey || modalOpen || isTypingTarget(event.target)) return null;
  switch (event.key) {
    case "c":
      return "newTask";
    case "/":
      return "search";
    case "?":
      return "help";
    default:
      return null;
  }
}
