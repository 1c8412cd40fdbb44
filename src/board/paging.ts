/**
 * A board column pages as it scrolls: it holds its first page, and asks for
 * one more page when its list comes within LOAD_AHEAD_CARDS of the last card
 * it holds, up to the server's cap. Pure, so the rules are tested on their own.
 */
import { MAX_TASKS_PER_COLUMN } from "../../convex/lib/limits";
import { FIRST_PAGE_CARDS } from "./prefetch";
import type { BoardColumnData } from "./types";

/** The next page is asked for when the list shows a card this close to the last one held. */
export const LOAD_AHEAD_CARDS = 15;

/** How many cards the column holds in all (its count when it holds more than it sent). */
export function columnTotal(column: Pick<BoardColumnData, "tasks" | "count">): number {
  return column.count ?? column.tasks.length;
}

/** Whether the server has cards of this column the board does not hold yet (and may show). */
export function hasMoreCards(column: Pick<BoardColumnData, "tasks" | "count">): boolean {
  return column.tasks.length < Math.min(columnTotal(column), MAX_TASKS_PER_COLUMN);
}

/** Whether a list showing cards up to `lastShown` (0-based) of the `held` it holds is near enough its end to ask for more. */
export function nearEnd(lastShown: number, held: number): boolean {
  return lastShown >= held - LOAD_AHEAD_CARDS;
}

/**
 * The limit to ask a column for once its list nears its end: a page more
 * than `limit`, when the page asked for is in (`held` reached it; fewer
 * means it is still loading or the column is shorter), up to the cap.
 */
export function nextLimit(limit: number, held: number): number {
  if (held < limit) return limit;
  return Math.min(limit + FIRST_PAGE_CARDS, MAX_TASKS_PER_COLUMN);
}
