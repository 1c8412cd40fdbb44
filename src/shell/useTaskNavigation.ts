// Opening and closing a task's drawer through the router, with the history entries Back expects.
import { useCallback, useLayoutEffect, useMemo, useRef } from "react";
import { useLocation, useNavigate } from "react-router";
import type { Id } from "../../convex/_generated/dataModel";
import { departmentPath, isTaskPath, taskPath } from "./addresses";

/** History state on a task entry pushed from the board: Back (not a new entry) closes it. */
type TaskEntryState = { fromBoard?: boolean } | null;

export type TaskNavigation = {
  /** Opens a task's drawer over the board: from the board a new entry, from another task the same one. */
  open: (taskId: Id<"tasks">) => void;
  /** Closes the drawer: Back when the board pushed it, else the board's address in its place. */
  close: () => void;
};

/**
 * Task navigation for the department `slug`, for the board's cards, the
 * palette, the notifications and the drawer itself. The board's filters live
 * in the query string (src/board/filters.ts): they travel with the task's
 * address. The functions stay the same across navigations, so the board's
 * memoised columns are not redrawn when a task opens.
 */
export function useTaskNavigation(slug: string): TaskNavigation {
  const navigate = useNavigate();
  const location = useLocation();
  const latest = useRef({ navigate, location });
  useLayoutEffect(() => {
    latest.current = { navigate, location };
  });

  const open = useCallback(
    (taskId: Id<"tasks">) => {
      const { navigate, location } = latest.current;
      const to = { pathname: taskPath(slug, taskId), search: location.search };
      if (isTaskPath(location.pathname)) void navigate(to, { replace: true, state: location.state });
      else void navigate(to, { state: { fromBoard: true } });
    },
    [slug],
  );
  const close = useCallback(() => {
    const { navigate, location } = latest.current;
    if ((location.state as TaskEntryState)?.fromBoard) void navigate(-1);
    else void navigate({ pathname: departmentPath(slug), search: location.search }, { replace: true });
  }, [slug]);
  return useMemo(() => ({ open, close }), [open, close]);
}
