import { useCallback, useLayoutEffect, useRef, useState } from "react";
import { NavigationType, useLocation, useNavigate, useNavigationType } from "react-router";
import { PRIORITY_OPTIONS, STATUS_OPTIONS } from "./options";
import type { Priority, TaskStatus } from "./types";

/**
 * The board's filters as the URL keeps them (`?q=…&assignee=…&tag=…&priority=…&status=…&mine=1`),
 * so a filtered board can be linked, bookmarked and reloaded. This file is the
 * only one that touches the address bar for them.
 */
export type BoardFilters = {
  text: string;
  /** An agent's session key. */
  assignee?: string;
  tag?: string;
  priority?: Priority;
  /** Columns shown; empty means all six. */
  statuses: TaskStatus[];
  mine: boolean;
  /** Archived tasks instead of the live ones (hidden otherwise). */
  archived?: boolean;
};

export const NO_FILTERS: BoardFilters = { text: "", statuses: [], mine: false };

const KEYS = { text: "q", assignee: "assignee", tag: "tag", priority: "priority", status: "status", mine: "mine", archived: "archived" } as const;

/** Filters read from a query string; unknown values (a typo'd priority or status) are dropped. */
export function parseFilters(search: string): BoardFilters {
  const params = new URLSearchParams(search);
  const priority = params.get(KEYS.priority);
  const statuses = (params.get(KEYS.status) ?? "")
    .split(",")
    .filter((s): s is TaskStatus => STATUS_OPTIONS.some((option) => option.value === s));
  return {
    text: params.get(KEYS.text) ?? "",
    assignee: params.get(KEYS.assignee) || undefined,
    tag: params.get(KEYS.tag) || undefined,
    priority: PRIORITY_OPTIONS.find((option) => option.value === priority)?.value,
    statuses: [...new Set(statuses)],
    mine: params.get(KEYS.mine) === "1",
    ...(params.get(KEYS.archived) === "1" ? { archived: true } : {}),
  };
}

/** `search` with the filter keys replaced by `filters` (other parameters are kept). Returns "" or "?…". */
export function writeFilters(search: string, filters: BoardFilters): string {
  const params = new URLSearchParams(search);
  for (const key of Object.values(KEYS)) params.delete(key);
  if (filters.text !== "") params.set(KEYS.text, filters.text);
  if (filters.assignee) params.set(KEYS.assignee, filters.assignee);
  if (filters.tag) params.set(KEYS.tag, filters.tag);
  if (filters.priority) params.set(KEYS.priority, filters.priority);
  if (filters.statuses.length > 0) params.set(KEYS.status, filters.statuses.join(","));
  if (filters.mine) params.set(KEYS.mine, "1");
  if (filters.archived === true) params.set(KEYS.archived, "1");
  const query = params.toString();
  return query === "" ? "" : `?${query}`;
}

/** True when any filter narrows the board. */
export function hasFilters(filters: BoardFilters): boolean {
  return (
    filters.text.trim() !== "" ||
    filters.assignee !== undefined ||
    filters.tag !== undefined ||
    filters.priority !== undefined ||
    filters.statuses.length > 0 ||
    filters.mine ||
    filters.archived === true
  );
}

/** The columns to show: the chosen statuses, or all six. */
export function shownStatuses(filters: BoardFilters): TaskStatus[] {
  return STATUS_OPTIONS.map((option) => option.value).filter((s) => filters.statuses.length === 0 || filters.statuses.includes(s));
}

/**
 * Arguments for `tasks.listColumn` / `tasks.list` (the server narrows; the
 * browser only asks). Empty fields are left out so equal filters make equal
 * query keys.
 */
export function filterArgs(filters: BoardFilters): { text?: string; assignee?: string; tag?: string; priority?: Priority; mine?: boolean; archived?: boolean } {
  const text = filters.text.trim();
  return {
    ...(text !== "" ? { text } : {}),
    ...(filters.assignee !== undefined ? { assignee: filters.assignee } : {}),
    ...(filters.tag !== undefined ? { tag: filters.tag } : {}),
    ...(filters.priority !== undefined ? { priority: filters.priority } : {}),
    ...(filters.mine ? { mine: true } : {}),
    ...(filters.archived === true ? { archived: true } : {}),
  };
}

/**
 * The board's filters, kept in the address's query string. A change replaces
 * the history entry through the router (typing in the search box doesn't
 * stack entries) and keeps its state; Back/Forward to another filtered
 * address is followed. The filters are held here too, so the filter bar never
 * waits for the router's (transition) update.
 */
export function useBoardFilters(): [BoardFilters, (next: BoardFilters) => void] {
  const location = useLocation();
  const navigate = useNavigate();
  const navigationType = useNavigationType();
  const [filters, setFilters] = useState(() => parseFilters(location.search));
  const [entry, setEntry] = useState(location.key);
  if (entry !== location.key) {
    setEntry(location.key);
    // Our own writes are REPLACE, opening a task is a PUSH: only Back/Forward brings other filters.
    if (navigationType === NavigationType.Pop) setFilters(parseFilters(location.search));
  }
  // Read when a filter changes, so `update` stays the same function across navigations.
  const latest = useRef({ location, navigate });
  useLayoutEffect(() => {
    latest.current = { location, navigate };
  });
  const update = useCallback((next: BoardFilters) => {
    setFilters(next);
    const { pathname, search, hash, state } = latest.current.location;
    void latest.current.navigate({ pathname, search: writeFilters(search, next), hash }, { replace: true, state });
  }, []);
  return [filters, update];
}
