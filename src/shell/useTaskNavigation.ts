// Opening and closing a task's drawer through the router, with the history entries Back expects.
import { useCallback, useLayoutEffect, useMemo, useRef } from "react";
import { useLocation, useNavigate } from "react-router";
import type { Id } from "../../convex/_generated/dataModel";
import { departmentPath, isTaskPath, taskPath } from "./addresses";

/**
 * History state on a task entry: how many task entries lie between it and
 * the board below it (1 for a task opened from the board). Closing goes back
 * that many; Back goes to the task before (a subtask's parent).
 */
export type TaskEntryState = { tasksAboveBoard?: number } | null;

export type TaskNavigation = {
  /** Opens a task's drawer over the board as a new entry, keeping the board's filters: Back returns to where it was opened. */
  open: (taskId: Id<"tasks">) => void;
  /** Closes the drawer: back to the board below the task entries, else the board's address in its place. */
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
      if (to.pathname === location.pathname) return;
      const below = isTaskPath(location.pathname) ? (location.state as TaskEntryState)?.tasksAboveBoard : 0;
      // A task opened from a task reached by its address has no board below it to count to.
      const state: TaskEntryState = below === undefined ? null : { tasksAboveBoard: below + 1 };
      void navigate(to, { state });
    },
    [slug],
  );
  const close = useCallback(() => {
    const { navigate, location } = latest.current;
    const above = (location.state as TaskEntryState)?.tasksAboveBoard;
    if (above !== undefined && above > 0) void navigate(-above);
    else void navigate({ pathname: departmentPath(slug), search: location.search }, { replace: true });
  }, [slug]);
  return useMemo(() => ({ open, close }), [open, close]);
}
