/**
 * The app's keyboard shortcuts: what the help overlay (`?`) lists, and which
 * key press means which action. j/k/Enter belong to the board
 * (src/board/shortcuts.ts); they are listed here so the help shows them all.
 */

export type ShortcutAction = "palette" | "newTask" | "search" | "help";

export type Shortcut = { keys: readonly string[]; description: string };

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ["Ctrl/⌘", "K"], description: "Jump to a task or an agent (command palette)" },
  { keys: ["c"], description: "New task" },
  { keys: ["/"], description: "Search the board" },
  { keys: ["j"], description: "Next card on the board" },
  { keys: ["k"], description: "Previous card on the board" },
  { keys: ["Enter"], description: "Open the selected card" },
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

/** Whether keys pressed in `target` are text being written (an input, a text area, an editable element). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (target === null || typeof (target as Element).closest !== "function") return false;
  const element = target as HTMLElement;
  if (element.isContentEditable) return true;
  const field = element.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']");
  if (field === null) return false;
  if (field instanceof HTMLInputElement) {
    return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file"].includes(field.type);
  }
  return true;
}

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
