import { useCallback, useEffect, useRef, useState } from "react";
import { cn } from "../lib/cn";
import { hasFilters, NO_FILTERS, type BoardFilters } from "./filters";
import { PRIORITY_OPTIONS, STATUS_OPTIONS } from "./options";
import type { RosterAgent } from "./types";

/** The search box's id: the shell's `/` shortcut focuses it. */
export const BOARD_SEARCH_ID = "board-search";
/** Typing settles this long before the board asks the server again. */
const SEARCH_DEBOUNCE_MS = 200;

const SELECT_CLASS =
  "rounded-lg border-0 bg-white py-1.5 pr-7 pl-2.5 text-sm text-slate-800 ring-1 ring-slate-300 ring-inset focus:ring-2 focus:ring-indigo-600 focus:outline-none dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-700 dark:placeholder:text-slate-500";

type Props = {
  filters: BoardFilters;
  onChange: (filters: BoardFilters) => void;
  agents: RosterAgent[];
  className?: string;
};

/**
 * Search and filters for the board: title text, assignee, tag, priority,
 * status and "Mine". Each change goes to `onChange` (which puts it in the
 * URL); the board's queries take it to the server.
 */
export function FilterBar({ filters, onChange, agents, className }: Props) {
  // Search and tag both apply as you type (after a short pause), and at once on Enter.
  const [text, setText, applyText] = useTypedFilter(filters.text, (value) => onChange({ ...filters, text: value }));
  const [tag, setTag, applyTag] = useTypedFilter(filters.tag ?? "", (value) => onChange({ ...filters, tag: value === "" ? undefined : value }), (value) => value.trim());

  // On a phone the filters other than search fold behind a button (open while any is set).
  const narrowing = [filters.assignee, filters.tag, filters.priority].filter((value) => value !== undefined).length + filters.statuses.length + (filters.mine ? 1 : 0) + (filters.archived === true ? 1 : 0);
  const [open, setOpen] = useState(narrowing > 0);


  return (
    <div role="search" aria-label="Filter the board" data-testid="filter-bar" className={cn("flex flex-wrap items-center gap-2", className)}>
      <input
        id={BOARD_SEARCH_ID}
        type="search"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter") applyText();
        }}
        placeholder="Search tasks"
        aria-label="Search tasks"
        maxLength={100}
        className={cn(SELECT_CLASS, "min-w-0 flex-1 pr-2.5 placeholder:text-slate-400 sm:w-56 sm:flex-none")}
      />
      <button
        type="button"
        aria-expanded={open}
        aria-controls="board-filters"
        onClick={() => setOpen(!open)}
        className="rounded-lg bg-white px-2.5 py-1.5 text-sm font-medium text-slate-700 ring-1 ring-slate-300 ring-inset sm:hidden dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-700"
      >
        Filters{narrowing > 0 ? ` (${narrowing})` : ""}
      </button>
      <div id="board-filters" className={cn("flex flex-wrap items-center gap-2 sm:contents", !open && "max-sm:hidden")}>
        <FilterSelect
          label="Assignee"
          any="Any assignee"
          value={filters.assignee}
          options={agents.map((agent) => ({ value: agent.sessionKey, label: agent.name }))}
          onChange={(assignee) => onChange({ ...filters, assignee })}
        />
        <input
          type="text"
          value={tag}
          onChange={(event) => setTag(event.target.value)}
          onBlur={applyTag}
          onKeyDown={(event) => {
            if (event.key === "Enter") applyTag();
          }}
          placeholder="Tag"
          aria-label="Tag"
          maxLength={32}
          className={cn(SELECT_CLASS, "w-24 pr-2.5 placeholder:text-slate-400")}
        />
        <FilterSelect label="Priority" any="Any priority" value={filters.priority} options={PRIORITY_OPTIONS} onChange={(priority) => onChange({ ...filters, priority })} />
        <FilterSelect
          label="Status"
          any="All columns"
          value={filters.statuses.length === 1 ? filters.statuses[0] : undefined}
          options={STATUS_OPTIONS}
          onChange={(status) => onChange({ ...filters, statuses: status === undefined ? [] : [status] })}
        />
        <button
          type="button"
          aria-pressed={filters.mine}
          onClick={() => onChange({ ...filters, mine: !filters.mine })}
          title="Tasks you created or hold"
          className={cn(
            "rounded-lg px-2.5 py-1.5 text-sm font-medium ring-1 ring-inset focus-visible:outline-2 focus-visible:outline-indigo-600",
            filters.mine
              ? "bg-indigo-600 text-white ring-indigo-600"
              : "bg-white text-slate-700 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-700 dark:hover:bg-slate-800",
          )}
        >
          Mine
        </button>
        <button
          type="button"
          aria-pressed={filters.archived === true}
          onClick={() => onChange({ ...filters, archived: filters.archived === true ? undefined : true })}
          title="Archived tasks (hidden from the board otherwise)"
          className={cn(
            "rounded-lg px-2.5 py-1.5 text-sm font-medium ring-1 ring-inset focus-visible:outline-2 focus-visible:outline-indigo-600",
            filters.archived === true
              ? "bg-indigo-600 text-white ring-indigo-600"
              : "bg-white text-slate-700 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-700 dark:hover:bg-slate-800",
          )}
        >
          Archived
        </button>
        {hasFilters(filters) && (
          <button
            type="button"
            onClick={() => onChange(NO_FILTERS)}
            className="rounded-lg px-2 py-1.5 text-sm text-slate-600 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
          >
            Clear filters
          </button>
        )}
      </div>
    </div>
  );
}

type SelectProps<T extends string> = {
  label: string;
  /** The first choice, which filters nothing ("Any priority"). */
  any: string;
  value: T | undefined;
  options: ReadonlyArray<{ value: T; label: string }>;
  onChange: (value: T | undefined) => void;
};

/** One filter as a select: "any" first, then the options. */
function FilterSelect<T extends string>({ label, any, value, options, onChange }: SelectProps<T>) {
  return (
    // The options are ours, so a value is always one of T.
    <select aria-label={label} value={value ?? ""} onChange={(event) => onChange((event.target.value || undefined) as T | undefined)} className={SELECT_CLASS}>
      <option value="">{any}</option>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}

/**
 * A filter typed into a box: the draft, its setter, and "apply now". The
 * draft (as `normalize` cleans it) goes to `apply` once typing pauses; a change of `current` from
 * elsewhere (Back, "Clear") replaces the draft, but the echo of what this box
 * sent does not, so typing on is never undone.
 */
function useTypedFilter(current: string, apply: (value: string) => void, normalize: (draft: string) => string = (draft) => draft): [string, (value: string) => void, () => void] {
  const [draft, setDraft] = useState(current);
  const sent = useRef(current);
  const latestApply = useRef(apply);
  useEffect(() => {
    latestApply.current = apply;
  });
  useEffect(() => {
    if (current === sent.current) return;
    sent.current = current;
    setDraft(current);
  }, [current]);
  const value = normalize(draft);
  const applyNow = useCallback(() => {
    if (value === sent.current) return;
    sent.current = value;
    latestApply.current(value);
  }, [value]);
  useEffect(() => {
    if (value === sent.current) return;
    const timer = setTimeout(applyNow, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [value, applyNow]);
  return [draft, setDraft, applyNow];
}
