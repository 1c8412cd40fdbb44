import type { Option } from "./options";
import { TaskCard } from "./TaskCard";
import type { RosterAgent, TaskCardData, TaskStatus } from "./types";

type Props = {
  status: Option<TaskStatus>;
  tasks: TaskCardData[];
  truncated: boolean;
  agentsByKey: ReadonlyMap<string, RosterAgent>;
};

/** One status column: header with count, then its cards. */
export function BoardColumn({ status, tasks, truncated, agentsByKey }: Props) {
  const headingId = `column-heading-${status.value}`;
  return (
    <section
      data-testid={`column-${status.value}`}
      aria-labelledby={headingId}
      className="flex w-60 shrink-0 flex-col rounded-xl bg-slate-100/80 lg:max-h-full"
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

      {tasks.length === 0 ? (
        <p className="mx-3 mb-3 rounded-lg border border-dashed border-slate-300 px-3 py-6 text-center text-xs text-slate-500">
          No tasks
        </p>
      ) : (
        <ol className="flex flex-col gap-2 px-3 pb-3 lg:overflow-y-auto">
          {tasks.map((task) => (
            <TaskCard key={task._id} task={task} agentsByKey={agentsByKey} />
          ))}
        </ol>
      )}

      {truncated && (
        <p className="px-3 pb-3 text-xs text-slate-500">Showing the first {tasks.length} tasks in this column.</p>
      )}
    </section>
  );
}
