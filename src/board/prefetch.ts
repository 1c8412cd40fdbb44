import { useQueries } from "convex/react";
import type { FunctionReference } from "convex/server";
import type { Value } from "convex/values";
import { useMemo } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { filterArgs, shownStatuses, type BoardFilters } from "./filters";
import type { TaskStatus } from "./types";

type Request = { query: FunctionReference<"query">; args: Record<string, Value> };

/**
 * The board's column subscriptions (`tasks.listColumn`, one per shown
 * column, narrowed by the filters), keyed by status. The one place their
 * arguments are built, so the board and `useBoardPrefetch` ask the same
 * queries and the client serves both from one subscription.
 */
export function columnRequests(departmentId: Id<"departments">, filters: BoardFilters): Partial<Record<TaskStatus, Request>> {
  const args = filterArgs(filters);
  const requests: Partial<Record<TaskStatus, Request>> = {};
  for (const status of shownStatuses(filters)) requests[status] = { query: api.tasks.listColumn, args: { departmentId, status, ...args } };
  return requests;
}

/**
 * Subscribes to what the board needs before it can show anything (its
 * columns and the roster) for `departmentId` — typically the department
 * remembered from the last visit — while the shell is still confirming the
 * account and loading the department list. Without it the board's queries
 * start only once the board mounts, a round trip or two later. Results and
 * errors are left to the board (a stale department just fails here,
 * unseen); null subscribes to nothing.
 */
export function useBoardPrefetch(departmentId: string | null, filters: BoardFilters): void {
  const key = JSON.stringify([departmentId, filters]);
  const requests = useMemo(() => {
    const [id, shown] = JSON.parse(key) as [Id<"departments"> | null, BoardFilters];
    if (id === null) return {};
    return { ...columnRequests(id, shown), agents: { query: api.agents.list, args: { departmentId: id } } };
  }, [key]);
  useQueries(requests);
}
