import { useQueries } from "convex/react";
import type { FunctionReference } from "convex/server";
import type { Value } from "convex/values";
import { useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { useLocation } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { showsBoard } from "../shell/addresses";
import { filterArgs, parseFilters, shownStatuses, type BoardFilters } from "./filters";
import type { TaskStatus } from "./types";

type Request = { query: FunctionReference<"query">; args: Record<string, Value> };

/**
 * Cards per column in the board's first load: more than the tallest screen
 * shows. A column asks for another page of this many as its list nears the
 * end of what it holds (paging.ts), so a column's query reads only what is
 * shown, and a new card re-runs queries of a page, not of whole columns.
 */
export const FIRST_PAGE_CARDS = 50;

/**
 * The board's column subscriptions (`tasks.listColumn`, one per shown
 * column, narrowed by the filters), keyed by status: each column's first
 * page, or as many cards as `limits` says for a column scrolled further. The
 * one place their arguments are built, so the board and `useBoardPrefetch`
 * ask the same queries and the client serves both from one subscription.
 */
export function columnRequests(
  departmentId: Id<"departments">,
  filters: BoardFilters,
  limits: Partial<Record<TaskStatus, number>> = {},
): Partial<Record<TaskStatus, Request>> {
  const args = filterArgs(filters);
  const requests: Partial<Record<TaskStatus, Request>> = {};
  for (const status of shownStatuses(filters)) {
    requests[status] = { query: api.tasks.listColumn, args: { departmentId, status, ...args, limit: limits[status] ?? FIRST_PAGE_CARDS } };
  }
  return requests;
}

// How many boards are mounted: once one holds its own queries, the prefetch lets go of its copies.
let mountedBoards = 0;
const boardListeners = new Set<() => void>();

function subscribeBoards(listener: () => void) {
  boardListeners.add(listener);
  return () => boardListeners.delete(listener);
}

const boardMounted = () => mountedBoards > 0;

/** Called by the board: while it is mounted it holds its queries itself. */
export function useBoardMounted(): void {
  useEffect(() => {
    mountedBoards += 1;
    boardListeners.forEach((listener) => listener());
    return () => {
      mountedBoards -= 1;
      boardListeners.forEach((listener) => listener());
    };
  }, []);
}

/**
 * Subscribes to what the board needs before it can show anything (the first
 * page of its columns, and the roster) for `departmentId` — typically the
 * department remembered from the last visit — while the shell is still
 * confirming the account and loading the department list. Without it the
 * board's queries start only once the board mounts, a round trip or two
 * later. It lets go once the board is mounted (the board's effects
 * subscribe first, so the client keeps the results). Results and errors are
 * left to the board (a stale department just fails here, unseen); null
 * subscribes to nothing.
 */
export function useBoardPrefetch(departmentId: string | null, filters: BoardFilters): void {
  const mounted = useSyncExternalStore(subscribeBoards, boardMounted, boardMounted);
  const key = JSON.stringify([mounted ? null : departmentId, filters]);
  const requests = useMemo(() => {
    const [id, shown] = JSON.parse(key) as [Id<"departments"> | null, BoardFilters];
    if (id === null) return {};
    return { ...columnRequests(id, shown), agents: { query: api.agents.list, args: { departmentId: id } } };
  }, [key]);
  useQueries(requests);
}

/** Where the shell remembers the department of the last visit. */
export const REMEMBERED_DEPARTMENT_KEY = "maestro.department";

function rememberedDepartment(): string | null {
  try {
    return localStorage.getItem(REMEMBERED_DEPARTMENT_KEY);
  } catch {
    return null;
  }
}

/**
 * For a returning user with a stored session (`signedIn`), while the server
 * confirms its token (`connecting`): the remembered department's board,
 * subscribed so its queries go out right behind the Authenticate message
 * instead of a round trip after it. Two hand-overs keep each query asked only
 * once: it subscribes one commit after mounting (by then Convex's provider has
 * set the token, so nothing goes out unauthenticated), and it lets go one
 * commit after `connecting` ends (by then the shell's own prefetch holds the
 * same queries, so the client keeps their results).
 */
export function useEarlyBoardPrefetch(signedIn: boolean, connecting: boolean): void {
  const location = useLocation();
  const [phase, setPhase] = useState<"mounted" | "active" | "done">("mounted");
  useEffect(() => {
    if (phase === "mounted") setPhase("active");
    else if (phase === "active" && !connecting) setPhase("done");
  }, [phase, connecting]);
  const departmentId = phase === "active" && signedIn && showsBoard(location.pathname) ? rememberedDepartment() : null;
  useBoardPrefetch(departmentId, parseFilters(location.search));
}
