import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useId } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { STATUS_OPTIONS } from "../board/options";

export type SubtaskList = FunctionReturnType<typeof api.tasks.listSubtasks>;

type ViewProps = { list: SubtaskList; onOpenTask: (taskId: Id<"tasks">) => void; hrefFor: (taskId: Id<"tasks">) => string };

/** What was delegated from a task, each with its live status and assignees; nothing when there is none. */
export function SubtasksView({ list, onOpenTask, hrefFor }: ViewProps) {
  const id = useId();
  const { subtasks, truncated } = list;
  if (subtasks.length === 0) return null;
  const done = subtasks.filter((s) => s.status === "done").length;
  return (
    <section aria-labelledby={`${id}-subtasks`} className="flex flex-col gap-2">
      <div className="flex items-baseline justify-between">
        <h3 id={`${id}-subtasks`} className="text-sm font-semibold text-slate-700 dark:text-slate-200">
          Subtasks
        </h3>
        <span className="text-xs text-slate-500 dark:text-slate-400">
          {done} of {subtasks.length}
          {truncated ? "+" : ""} done
        </span>
      </div>
      <ul className="flex flex-col divide-y divide-slate-100 rounded-lg border border-slate-200 dark:divide-slate-800 dark:border-slate-700">
        {subtasks.map((subtask) => {
          const status = STATUS_OPTIONS.find((option) => option.value === subtask.status)!;
          return (
            <li key={subtask._id} className="flex items-center gap-2 px-3 py-2 text-sm">
              <span aria-hidden="true" className={`size-2 shrink-0 rounded-full ${status.className}`} />
              <a
                href={hrefFor(subtask._id)}
                onClick={(event) => {
                  event.preventDefault();
                  onOpenTask(subtask._id);
                }}
                className="min-w-0 flex-1 truncate font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
              >
                {subtask.title}
              </a>
              <span className="shrink-0 text-xs text-slate-500 dark:text-slate-400">{subtask.assignees.length > 0 ? subtask.assignees.join(", ") : "Nobody"}</span>
              <span className="shrink-0 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-200">{status.label}</span>
            </li>
          );
        })}
      </ul>
      {truncated && <p className="text-xs text-slate-500 dark:text-slate-400">Only the first {subtasks.length} are listed.</p>}
    </section>
  );
}

/** The subtasks of `taskId`, live: a subtask moving column updates here at once. */
export function Subtasks({ taskId, ...view }: Omit<ViewProps, "list"> & { taskId: Id<"tasks"> }) {
  const list = useQuery(api.tasks.listSubtasks, { taskId });
  return list === undefined ? null : <SubtasksView list={list} {...view} />;
}
