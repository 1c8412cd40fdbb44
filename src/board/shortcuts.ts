import type { BoardColumnData } from "./types";
export { isTypingTarget } from "../lib/keyboard";

/** A key the board answers, for the shell's help overlay. */
export type Shortcut = { keys: string[]; description: string };

/** The board's own keys (the shell owns the global ones: c, /, Esc, ?). */
export const BOARD_SHORTCUTS: readonly Shortcut[] = [
  { keys: ["j"], description: "Focus the next card" },
  { keys: ["k"], description: "Focus the previous card" },
  { keys: ["Enter"], description: "Open the focused card" },
  { keys: ["Space"], description: "Pick up or drop the focused card's grip (then arrow keys move it)" },
];

/**
 * The card `j` (+1) or `k` (-1) moves the focus to: the next or previous card
 * reading the board column by column, left to right. With nothing focused
 * yet, `j` starts at the first card and `k` at the last. Stops at the ends.
 */
export function nextCardId(columns: readonly BoardColumnData[], currentId: string | null, step: 1 | -1): string | null {
  const ids = columns.flatMap((column) => column.tasks.map((task) => task._id as string));
  if (ids.length === 0) return null;
  const at = currentId === null ? -1 : ids.indexOf(currentId);
  if (at === -1) return step === 1 ? ids[0] : ids[ids.length - 1];
  return ids[Math.max(0, Math.min(ids.length - 1, at + step))];
}

