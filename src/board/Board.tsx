import { useMutation, useQuery } from "convex/react";
import { useMemo, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { CloseIcon, PlusIcon } from "../components/ui/icons";
import { userMessage } from "../lib/errors";
import { NewTaskDialog } from "../task/NewTaskDialog";
import { openTask } from "../task/taskHash";
import { BoardSkeleton } from "./BoardSkeleton";
import { BoardView } from "./BoardView";
import type { TaskMove } from "./dnd";
import { moveTaskInStore } from "./optimistic";
import { canWrite, useRole } from "../shell/role";

/**
 * The live board for one department, with its "New task" button. A drop is
 * applied optimistically (the card stays where it was dropped) and a refused
 * move snaps back with its reason shown above the board. Query errors
 * propagate to the enclosing error boundary.
 */
export function Board({ departmentId }: { departmentId: Id<"departments"> }) {
  const writable = canWrite(useRole());
  const columns = useQuery(api.tasks.list, { departmentId });
  const agents = useQuery(api.agents.list, { departmentId });
  const notifications = useQuery(api.notifications.listMine, { departmentId });
  const move = useMutation(api.tasks.move).withOptimisticUpdate(moveTaskInStore);
  const [creating, setCreating] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const unreadTaskIds = useMemo(() => new Set<string>(notifications?.unreadMentionTaskIds ?? []), [notifications]);

  function onMoveTask(target: TaskMove) {
    setFailure(null);
    move(target).catch((error: unknown) => setFailure(`The task could not be moved: ${userMessage(error)}`));
  }

  const loading = columns === undefined || agents === undefined;
  const taskCount = columns?.reduce((sum, column) => sum + column.tasks.length, 0);

  return (
    <div className="flex min-h-0 min-w-0 flex-col gap-3 lg:flex-1">
      <div className="flex items-center gap-3">
        <h1 className="text-base font-semibold text-slate-900">Board</h1>
        {taskCount !== undefined && (
          <span className="text-sm text-slate-500 tabular-nums">
            {taskCount} {taskCount === 1 ? "task" : "tasks"}
          </span>
        )}
        {writable && (
          <Button onClick={() => setCreating(true)} disabled={loading} className="ml-auto">
            <PlusIcon />
            New task
          </Button>
        )}
      </div>
      {failure && (
        <div role="alert" className="flex items-start gap-2 rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800 ring-1 ring-rose-200 ring-inset">
          <p className="flex-1">{failure}</p>
          <button type="button" onClick={() => setFailure(null)} aria-label="Dismiss" className="rounded p-0.5 hover:bg-rose-100">
            <CloseIcon />
          </button>
        </div>
      )}
      {loading ? (
        <BoardSkeleton />
      ) : (
        <BoardView
          columns={columns}
          agents={agents}
          unreadTaskIds={unreadTaskIds}
          onOpenTask={openTask}
          onMoveTask={onMoveTask}
          readOnly={!writable}
        />
      )}
      {creating && agents !== undefined && (
        <NewTaskDialog departmentId={departmentId} agents={agents} onClose={() => setCreating(false)} />
      )}
    </div>
  );
}
