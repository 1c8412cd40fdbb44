import { useQuery } from "convex/react";
import { createContext, useContext, useMemo, type MouseEvent } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { linkedTaskIds } from "../../convex/lib/taskLinks";
import { STATUS_OPTIONS } from "../board/options";
import { cn } from "../lib/cn";
import { taskChips, type TaskOption } from "./taskLinks";

/** How a chip opens its task: its address, and going there through the router. A page provides it; without it chips are plain labels. */
export type TaskLinkTarget = { href: (taskId: string) => string; open: (taskId: string) => void };
export const TaskLinkContext = createContext<TaskLinkTarget | null>(null);

/** Titles of the tasks these messages link, from one query (tasks.linked); another department's or a deleted task is not among them. */
export function useLinkedTasks(departmentId: Id<"departments"> | undefined, messages: ReadonlyArray<{ artifacts: ReadonlyArray<{ kind: string; taskId?: string }> }>): ReadonlyMap<string, TaskOption> | undefined {
  const ids = [...new Set(messages.flatMap((m) => linkedTaskIds(m.artifacts)))].sort();
  const key = ids.join(",");
  // One subscription per set of links, not per render.
  const taskIds = useMemo(() => (key === "" ? [] : (key.split(",") as Array<Id<"tasks">>)), [key]);
  const found = useQuery(api.tasks.linked, departmentId === undefined || taskIds.length === 0 ? "skip" : { departmentId, taskIds });
  const none = taskIds.length === 0;
  return useMemo(() => (none ? new Map() : found === undefined ? undefined : new Map(found.map((task) => [task._id as string, task]))), [none, found]);
}

/** A message's linked tasks as chips: `#` and the title, opening the task; one not found says so (`known` undefined: titles loading). */
export function TaskChips({ artifacts, known }: { artifacts: ReadonlyArray<{ kind: string; taskId?: string }>; known: ReadonlyMap<string, TaskOption> | undefined }) {
  const target = useContext(TaskLinkContext);
  const chips = taskChips(artifacts, known ?? new Map());
  if (chips.length === 0) return null;
  return (
    <ul aria-label="Linked tasks" className="mt-1 flex flex-wrap gap-1.5 text-xs">
      {chips.map((chip) => {
        const status = STATUS_OPTIONS.find((option) => option.value === chip.status);
        const label = chip.title ?? (known === undefined ? "…" : "Task not found");
        const className = "inline-flex max-w-72 items-center gap-1.5 rounded-full px-2 py-0.5 font-medium ring-1 ring-inset";
        return (
          <li key={chip.taskId}>
            {chip.title !== null && target !== null ? (
              <a
                href={target.href(chip.taskId)}
                data-testid="task-chip"
                title={`Open task: ${chip.title}${status ? ` (${status.label})` : ""}`}
                onClick={(event: MouseEvent) => {
                  // A new tab or window keeps the browser's own handling.
                  if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
                  event.preventDefault();
                  target.open(chip.taskId);
                }}
                className={cn(className, "bg-indigo-50 text-indigo-800 ring-indigo-200 hover:bg-indigo-100 dark:bg-indigo-950/50 dark:text-indigo-200 dark:ring-indigo-800 dark:hover:bg-indigo-900/60")}
              >
                <span aria-hidden="true" className={cn("size-1.5 shrink-0 rounded-full", status?.className)} />
                <span className="truncate">#{label}</span>
              </a>
            ) : (
              <span data-testid="task-chip" className={cn(className, "bg-slate-50 text-slate-600 ring-slate-200 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-700")}>
                <span className="truncate">#{label}</span>
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
