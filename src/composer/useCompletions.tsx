import { useQuery } from "convex/react";
import { useEffect, useMemo, useState, type ChangeEvent, type KeyboardEvent, type SyntheticEvent } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { initials } from "../board/initials";
import { STATUS_OPTIONS } from "../board/options";
import { Avatar } from "../components/ui/Avatar";
import { cn } from "../lib/cn";
import { listboxKeyDown } from "../lib/listbox";
import { findMentionQuery, insertMention, matchCandidates, type MentionCandidate } from "../task/mentions";
import { findTaskQuery, insertTaskLink, rankTasks, taskLinksIn, type TaskOption } from "./taskLinks";

/** What a composer needs to offer `#` task links: the department's matches for what is typed. */
export interface TaskLinkSupport {
  /** Matches for the last query searched; undefined before the first answer. */
  results: readonly TaskOption[] | undefined;
  /** Asks for the tasks matching `query` (null: nothing is being typed). */
  search: (query: string | null) => void;
}

/** `#` support for a composer in `departmentId` (tasks.linkable); the last answer stays while the next loads, so the list does not flicker. */
export function useTaskLinkSupport(departmentId: Id<"departments"> | undefined): TaskLinkSupport {
  const [query, setQuery] = useState<string | null>(null);
  const found = useQuery(api.tasks.linkable, departmentId === undefined || query === null ? "skip" : { departmentId, text: query });
  const [kept, setKept] = useState<readonly TaskOption[] | undefined>(undefined);
  if (found !== undefined && found !== kept) setKept(found);
  const results = query === null ? undefined : (found ?? kept);
  return useMemo(() => ({ results, search: setQuery }), [results]);
}

/** One line of a completion list. */
type Item =
  | { kind: "mention"; key: string; candidate: MentionCandidate }
  | { kind: "task"; key: string; task: TaskOption };

type Options = {
  text: string;
  caret: number;
  /** Who `@` completes. */
  candidates: readonly MentionCandidate[];
  /** What `#` completes; without it `#` is plain text. */
  tasks?: TaskLinkSupport;
  /** Another list is open (the `/` menu): these stay closed. */
  suppressed: boolean;
  /** Puts the completed text in the box with the caret at `caret`. */
  write: (text: string, caret: number) => void;
};

/**
 * The `@` mention and `#` task completion every composer shares: open while
 * the caret is in an `@name` or `#title` being typed; arrow keys move, Enter
 * or Tab picks (inserting `@Full Name ` or `#Task title `), Escape closes the
 * list until another `@` or `#` is typed. Remembers the tasks picked, so a
 * send can carry the links its text still names (`links`).
 */
export function useCompletions({ text, caret, candidates, tasks, suppressed, write }: Options) {
  const mention = findMentionQuery(text, caret);
  const taskQuery = tasks === undefined ? null : findTaskQuery(text, caret);
  // The trigger nearest the caret is the one being typed.
  const current = taskQuery !== null && (mention === null || taskQuery.start > mention.start) ? { kind: "task" as const, ...taskQuery } : mention === null ? null : { kind: "mention" as const, ...mention };
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [blurred, setBlurred] = useState(false);
  const [selection, setSelection] = useState<{ key: string | null; index: number }>({ key: null, index: 0 });
  const [picked, setPicked] = useState<TaskOption[]>([]);

  const search = tasks?.search;
  const searching = current?.kind === "task" ? current.query : null;
  useEffect(() => search?.(searching), [search, searching]);

  const closed = suppressed || blurred || current === null || current.start === dismissedAt;
  const items: Item[] = closed
    ? []
    : current.kind === "mention"
      ? matchCandidates(candidates, current.query).map((candidate) => ({ kind: "mention", key: candidate.key, candidate }))
      : rankTasks(tasks?.results ?? [], current.query).map((task) => ({ kind: "task", key: task._id, task }));
  const open = items.length > 0;
  const queryKey = current === null ? null : `${current.kind}:${current.start}:${current.query}`;
  const active = selection.key === queryKey ? Math.min(selection.index, Math.max(0, items.length - 1)) : 0;

  function pick(item: Item) {
    if (current === null) return;
    // What was picked is complete: its list stays closed (a title may go on matching after its own words).
    setDismissedAt(current.start);
    if (item.kind === "mention") {
      const result = insertMention(text, caret, current, item.candidate.name);
      write(result.text, result.caret);
    } else {
      const result = insertTaskLink(text, caret, current, item.task);
      setPicked((all) => [...all, item.task]);
      write(result.text, result.caret);
    }
  }

  /** Handles the key when the list is open; true when it did (the composer then does nothing else). */
  function onKeyDown(event: KeyboardEvent): boolean {
    return listboxKeyDown(event, { active, count: items.length }, {
      move: (index) => setSelection({ key: queryKey, index }),
      pick: (index) => pick(items[index]),
      dismiss: () => setDismissedAt(current?.start ?? null),
    });
  }

  return {
    open,
    kind: current?.kind ?? "mention",
    items,
    active,
    setActive: (index: number) => setSelection({ key: queryKey, index }),
    pick,
    onKeyDown,
    /**
     * What every composer's textarea takes (spread it on the textarea): a
     * combobox over whichever list is open, this one or the composer's own
     * `menu` (the `/` list); each edit passed to `typed` and to this list;
     * the caret followed; the list closed while the box has no focus.
     */
    textareaProps: ({ listId, menu, typed, setCaret }: TextareaWiring) => {
      const listOpen = menu.open || open;
      return {
        role: "combobox" as const,
        "aria-autocomplete": "list" as const,
        "aria-expanded": listOpen,
        "aria-controls": listOpen ? listId : undefined,
        "aria-activedescendant": menu.open ? menu.activeId : open ? completionOptionId(listId, active) : undefined,
        onChange: (event: ChangeEvent<HTMLTextAreaElement>) => {
          const value = event.target.value;
          typed(value, event.target.selectionStart);
          setBlurred(false);
          // A dismissed list stays closed only while its trigger is still there.
          setDismissedAt((at) => (at !== null && (value[at] === "@" || value[at] === "#") ? at : null));
        },
        onSelect: (event: SyntheticEvent<HTMLTextAreaElement>) => setCaret(event.currentTarget.selectionStart),
        onBlur: () => setBlurred(true),
        onFocus: () => setBlurred(false),
      };
    },
    /** The tasks the text links as it stands (picked, and their `#Title` still in it). */
    links: taskLinksIn(text, picked),
    /** After a send: no links remembered, and a list picked from at the start opens again for the next message's `@`. */
    reset: () => {
      setPicked([]);
      setDismissedAt(null);
    },
  };
}

export type Completions = ReturnType<typeof useCompletions>;

/** What `textareaProps` needs from its composer: the list's id, the composer's own list (`/`), and its text and caret setters. */
type TextareaWiring = {
  listId: string;
  menu: { open: boolean; activeId: string | undefined };
  typed: (value: string, caret: number) => void;
  setCaret: (caret: number) => void;
};

export const completionOptionId = (listId: string, index: number) => `${listId}-option-${index}`;

/** The open list of people or tasks above the box, as a listbox the textarea's combobox controls. */
export function CompletionList({ id, completions }: { id: string; completions: Completions }) {
  if (!completions.open) return null;
  const tasks = completions.kind === "task";
  return (
    <ul
      id={id}
      role="listbox"
      aria-label={tasks ? "Tasks to link" : "People to mention"}
      data-testid={tasks ? "task-suggestions" : "mention-suggestions"}
      className="absolute bottom-full left-0 z-10 mb-1 max-h-60 w-full max-w-sm overflow-y-auto rounded-lg bg-white py-1 shadow-lg ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700"
    >
      {completions.items.map((item, i) => {
        const status = item.kind === "task" ? STATUS_OPTIONS.find((option) => option.value === item.task.status) : undefined;
        return (
          <li
            key={item.key}
            id={completionOptionId(id, i)}
            role="option"
            aria-selected={i === completions.active}
            // mousedown, not click: keep focus (and the caret) in the textarea.
            onMouseDown={(event) => {
              event.preventDefault();
              completions.pick(item);
            }}
            onMouseEnter={() => completions.setActive(i)}
            className={cn(
              "flex cursor-pointer items-center gap-2 px-3 py-1.5 text-sm",
              i === completions.active ? "bg-indigo-50 text-indigo-900 dark:bg-indigo-950/40 dark:text-indigo-300" : "text-slate-700 dark:text-slate-200",
            )}
          >
            {item.kind === "mention" ? (
              <>
                <Avatar initials={initials(item.candidate.name)} tone={item.candidate.kind} />
                <span className="min-w-0 flex-1 truncate font-medium">{item.candidate.name}</span>
                <span className="shrink-0 truncate text-xs text-slate-600 dark:text-slate-400">{item.candidate.detail}</span>
              </>
            ) : (
              <>
                <span aria-hidden="true" className={cn("size-2 shrink-0 rounded-full", status?.className)} />
                <span className="min-w-0 flex-1 truncate font-medium">{item.task.title}</span>
                <span className="shrink-0 text-xs text-slate-600 dark:text-slate-400">{status?.label}</span>
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}
