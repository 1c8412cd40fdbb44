// The board route (`/d/:slug`): the department's live board, with a task's drawer over it in the outlet.
import { Suspense } from "react";
import { Outlet } from "react-router";
import { Board } from "../board/Board";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { useTaskNavigation } from "../shell/useTaskNavigation";
import { useDepartment } from "../shell/workspace";

/**
 * The board stays mounted (and on screen) under the drawer of `tasks/:taskId`,
 * which renders in the outlet; the drawer is outside the board's error
 * boundary, so a failing board leaves it usable.
 */
export function BoardPage() {
  const { _id: departmentId, slug } = useDepartment();
  const tasks = useTaskNavigation(slug);
  return (
    <>
      <ErrorBoundary>
        <Board departmentId={departmentId} onOpenTask={tasks.open} />
      </ErrorBoundary>
      {/* The drawer's code loads when a task is first opened; meanwhile the board shows as it is. */}
      <Suspense fallback={null}>
        <Outlet />
      </Suspense>
    </>
  );
}
