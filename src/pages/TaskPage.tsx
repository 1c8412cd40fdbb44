// The task route (`/d/:slug/tasks/:taskId`): the task's drawer, over the board (its parent route).
import { useCallback, useMemo } from "react";
import { useNavigate, useParams } from "react-router";
import type { Id } from "../../convex/_generated/dataModel";
import { runsPath, taskPath } from "../shell/addresses";
import { useTaskNavigation } from "../shell/useTaskNavigation";
import { useDepartment, useWorkspace } from "../shell/workspace";
import { TaskDrawer } from "../task/TaskDrawer";
import { TaskLinkContext, type TaskLinkTarget } from "../composer/TaskChips";

/**
 * Closing goes back to the board; a subtask or parent opens as a new entry
 * (Back returns to the task it was opened from), keeping the board's filters. A task of another of your departments moves to that
 * department's address.
 */
export function TaskPage() {
  const { departments } = useWorkspace();
  const department = useDepartment();
  const taskId = useParams().taskId as Id<"tasks">;
  const tasks = useTaskNavigation(department.slug);
  const navigate = useNavigate();

  const onDepartment = useCallback(
    (id: Id<"tasks">, departmentId: Id<"departments">) => {
      const home = departments.find((d) => d._id === departmentId);
      if (home !== undefined && home._id !== department._id) void navigate(taskPath(home.slug, id), { replace: true });
    },
    [departments, department._id, navigate],
  );

  // A linked task's chip in the thread opens like a subtask: a new entry, Back returns here.
  const links = useMemo<TaskLinkTarget>(() => ({ href: (id) => taskPath(department.slug, id), open: (id) => tasks.open(id as Id<"tasks">) }), [department.slug, tasks]);
  return (
    <TaskLinkContext.Provider value={links}>
      <TaskDrawer
        taskId={taskId}
        onClose={tasks.close}
        onOpenTask={tasks.open}
        onDepartment={onDepartment}
        runHref={(runId) => runsPath(department.slug, runId)}
      />
    </TaskLinkContext.Provider>
  );
}
