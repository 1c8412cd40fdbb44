import { useEffect, useState, type RefObject } from "react";
import type { TaskStatus } from "./types";

/** "all": the columns side by side; "single": one column at a time, swiped (phones). */
export type ColumnMode = "all" | "single";

/**
 * Narrowest a full column gets before the board folds Done/Blocked, then
 * scrolls sideways: at 1280 px beside the 288 px side panel all six columns
 * stay open, and the header's tight padding keeps "In progress" whole there.
 */
export const COLUMN_MIN_PX = 144;
/** Width of a folded column: its name runs down the strip, with its count. */
export const COLLAPSED_COLUMN_PX = 40;
export const COLUMN_GAP_PX = 8;
/** Columns that fold first when space runs short: finished or stuck work is glanced at, not worked in. */
export const COLLAPSIBLE_STATUSES: readonly TaskStatus[] = ["done", "blocked"];
/** Screens up to this width show one column at a time. */
export const SINGLE_COLUMN_MAX_PX = 639;

/** The person's own fold/unfold choices, which beat the automatic folding. */
export type CollapseChoices = Partial<Record<TaskStatus, boolean>>;

/**
 * Which of `statuses` show folded in a board `width` pixels wide: a column the
 * person folded or unfolded stays as they chose; otherwise Done and Blocked
 * fold when the shown columns don't fit side by side at COLUMN_MIN_PX. An
 * unknown width (0, not measured yet) folds nothing on its own.
 */
export function collapsedColumns(width: number, statuses: readonly TaskStatus[], choices: CollapseChoices): Set<TaskStatus> {
  const needed = statuses.length * COLUMN_MIN_PX + Math.max(0, statuses.length - 1) * COLUMN_GAP_PX;
  const tight = width > 0 && width < needed;
  return new Set(
    statuses.filter((status) => choices[status] ?? (tight && COLLAPSIBLE_STATUSES.includes(status))),
  );
}

/** Reads and parses the stored choices; anything unreadable counts as no choice. */
export function parseCollapseChoices(stored: string | null): CollapseChoices {
  if (stored === null) return {};
  try {
    const value: unknown = JSON.parse(stored);
    if (value === null || typeof value !== "object") return {};
    return Object.fromEntries(Object.entries(value).filter(([, folded]) => typeof folded === "boolean")) as CollapseChoices;
  } catch {
    return {};
  }
}

/** "single" on phone-sized screens, following rotation and resizes. */
export function useColumnMode(): ColumnMode {
  const query = `(max-width: ${SINGLE_COLUMN_MAX_PX}px)`;
  const [single, setSingle] = useState(() => typeof window.matchMedia === "function" && window.matchMedia(query).matches);
  useEffect(() => {
    if (typeof window.matchMedia !== "function") return;
    const media = window.matchMedia(query);
    const onChange = () => setSingle(media.matches);
    media.addEventListener("change", onChange);
    return () => media.removeEventListener("change", onChange);
  }, [query]);
  return single ? "single" : "all";
}

/** The element's width in pixels, kept current (0 until measured, or where ResizeObserver is missing). */
export function useElementWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (element === null || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.round(entry.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
