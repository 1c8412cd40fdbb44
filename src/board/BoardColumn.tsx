import { useDroppable } from "@dnd-kit/core";
import { SortableContext, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { cn } from "../lib/cn";
import { columnDropId } from "./dnd";
import type { Option } from "./options";
import { SortableTaskCard } from "./TaskCard";
import type { RosterAgent, TaskCardData, TaskStatus } from "./types";

type Props = {
  status: Option<TaskStatus>;
  tasks: TaskCardData[];
  truncated: boolean;
  agentsByKey: ReadonlyMap<string, RosterAgent>;
  unreadTaskIds: ReadonlySet<string>;
  onOpenTask: (taskId: TaskCardData["_id"]) => void;
  /** A card is being dragged over this column (or one of its cards). */
  isDropTarget: boolean;
};

/** One status column: header with count, then its sortable cards. The whole column is a drop target. */
export function BoardColumn({ status, tasks, truncated, agentsByKey, unreadTaskIds, onOpenTask, isDropTarget }: Props) {
  const headingId = `column-heading-${status.value}`;
  const { setNodeRef } = useDroppable({ id: columnDropId(status.value) });
  return (
    <section
      ref={setNodeRef}
      data-testid={`column-${status.value}`}
      aria-labelledby={headingId}
      className={cn(
        "flex w-60 shrink-0 flex-col rounded-xl bg-slate-100/80 transition-colors lg:max-h-full",
        isDropTarget && "bg-indigo-50 ring-2 ring-indigo-300 ring-inset",
      )}
    >
      <header className="flex items-center gap-2 px-3 pt-3 pb-2">
        <span aria-hidden="true" className={`size-2 rounded-full ${status.className}`} />
        <h2 id={headingId} className="text-sm font-semibold text-slate-700">
          {status.label}
        </h2>
        <span
          data-testid="column-count"
          aria-label={`${tasks.length}${truncated ? " or more" : ""} tasks`}
          className="ml-auto rounded-full bg-white px-2 py-0.5 text-xs font-medium text-slate-600 tabular-nums ring-1 ring-slate-200"
        >
          {tasks.length}
          {truncated ? "+" : ""}
        </span>
      </header>

      <SortableContext id={status.value} items={tasks.map((task) => task._id)} strategy={verticalListSortingStrategy}>
        {tasks.length === 0 ? (
          <p
            className={cn(
              "mx-3 mb-3 rounded-lg border border-dashed px-3 py-6 text-center text-xs",
              isDropTarget ? "border-indigo-300 text-indigo-700" : "border-slate-300 text-slate-500",
            )}
          >
            {isDropTarget ? "Drop here" : "No tasks"}
          </p>
        ) : (
          // min-h keeps a strip under the last card to drop onto.
          <ol className="flex min-h-12 flex-col gap-2 px-3 pb-3 lg:overflow-y-auto">
            {tasks.map((task) => (
              <SortableTaskCard
                key={task._id}
                task={task}
                agentsByKey={agentsByKey}
                unread={unreadTaskIds.has(task._id)}
                onOpen={onOpenTask}
              />
            ))}
          </ol>
        )}
      </SortableContext>

      {truncated && (
        <p className="px-3 pb-3 text-xs text-slate-500">Showing the first {tasks.length} tasks in this column.</p>
      )}
    </section>
  );
}
