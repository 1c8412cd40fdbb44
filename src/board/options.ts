import type { AgentStatus, Priority, TaskStatus } from "./types";

export type Option<T extends string> = {
  value: T;
  label: string;
  /** Tailwind classes for the option's colour (full literals, so Tailwind finds them). */
  className: string;
};

/** Board columns, in display order. `className` colours the column's dot. */
export const STATUS_OPTIONS: ReadonlyArray<Option<TaskStatus>> = [
  { value: "inbox", label: "Inbox", className: "bg-slate-400" },
  { value: "assigned", label: "Assigned", className: "bg-sky-500" },
  { value: "in_progress", label: "In progress", className: "bg-amber-500" },
  { value: "review", label: "Review", className: "bg-violet-500" },
  { value: "done", label: "Done", className: "bg-emerald-500" },
  { value: "blocked", label: "Blocked", className: "bg-rose-500" },
];

/** Task priorities, lowest first. `className` colours the badge. */
export const PRIORITY_OPTIONS: ReadonlyArray<Option<Priority>> = [
  { value: "low", label: "Low", className: "bg-slate-50 text-slate-600 ring-slate-500/20 dark:bg-slate-700/60 dark:text-slate-300 dark:ring-slate-400/30" },
  { value: "medium", label: "Medium", className: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-500/15 dark:text-amber-300 dark:ring-amber-400/30" },
  { value: "high", label: "High", className: "bg-rose-50 text-rose-700 ring-rose-600/20 dark:bg-rose-500/15 dark:text-rose-300 dark:ring-rose-400/30" },
];

/** Agent presence. `className` colours the roster's status dot. */
export const AGENT_STATUS_OPTIONS: ReadonlyArray<Option<AgentStatus>> = [
  { value: "active", label: "Active", className: "bg-emerald-500" },
  { value: "idle", label: "Idle", className: "bg-amber-400" },
  { value: "blocked", label: "Blocked", className: "bg-rose-500" },
  { value: "offline", label: "Offline", className: "bg-slate-300 dark:bg-slate-600" },
];

/** The option for a value; every value has one, so this only fails on a bug. */
export function optionFor<T extends string>(options: ReadonlyArray<Option<T>>, value: T): Option<T> {
  const option = options.find((o) => o.value === value);
  if (option === undefined) throw new Error(`No option for "${value}"`);
  return option;
}
