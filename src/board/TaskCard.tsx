import { useSortable } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { createContext, useCallback, useContext, type CSSProperties, type HTMLAttributes, type Ref } from "react";
import { Avatar } from "../components/ui/Avatar";
import { Badge, BADGE_TONES } from "../components/ui/Badge";
import { GripIcon } from "../components/ui/icons";
import { cn } from "../lib/cn";
import { useTaskWaiting, WAITING_LABEL, waitingSentence } from "../shell/waiting";
import { initials } from "./initials";
import { optionFor, PRIORITY_OPTIONS } from "./options";
import type { RosterAgent, TaskCardData } from "./types";

/** Whether the board's cards may be moved: a read-only board (a viewer's) shows no drag grips. */
export const CardsMovableContext = createContext(true);

/** Titles (as `titleKey` reads them) more than one card on the board carries: those cards show their short id. */
export const RepeatedTitlesContext = createContext<ReadonlySet<string>>(new Set());

/** A title as the board compares them: case and spacing aside. */
export function titleKey(title: string): string {
  return title.trim().replace(/\s+/g, " ").toLowerCase();
}

/** The titles that more than one of `tasks` carries. */
export function repeatedTitles(tasks: Iterable<{ title: string }>): ReadonlySet<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const { title } of tasks) {
    const key = titleKey(title);
    if (seen.has(key)) repeated.add(key);
    seen.add(key);
  }
  return repeated;
}

/**
 * A task's short id, as a card with a repeated title shows it: five
 * characters digested from its whole id (FNV-1a, base 36), the same on every
 * screen; the card's tooltip holds the id itself.
 */
export function shortTaskId(id: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `#${hash.toString(36).padStart(5, "0").slice(-5)}`;
}

/** Assignee avatars shown before collapsing the rest into "+n". */
const MAX_AVATARS = 3;

type CardProps = {
  task: TaskCardData;
  agentsByKey: ReadonlyMap<string, RosterAgent>;
  /** The viewer has an unread @mention in this task's thread. */
  unread?: boolean;
  onOpen?: (taskId: TaskCardData["_id"]) => void;
};

type DragProps = {
  /** The list item's ref, style and pointer listeners from `useSortable`. */
  itemRef?: Ref<HTMLLIElement>;
  itemStyle?: CSSProperties;
  itemListeners?: HTMLAttributes<HTMLLIElement>;
  /** The grip button: keyboard dragging starts here (Space or Enter). */
  handleRef?: Ref<HTMLButtonElement>;
  handleProps?: HTMLAttributes<HTMLButtonElement>;
  /** This card is the one being dragged: it stays in place as a faint placeholder. */
  placeholder?: boolean;
  /** Rendered in the drag overlay, following the pointer (inside a list of its own). */
  overlay?: boolean;
  /** Index in a virtualised column, for the virtualiser's measuring. */
  dataIndex?: number;
};

/** Where a card sits in a virtualised column: its index, its top, and the virtualiser's measuring ref. */
export type VirtualPlace = { index: number; start: number; measure: (element: Element) => void };

/**
 * One task on the board. The whole card is one button that opens the task
 * (click, Enter or Space); the grip is a separate control for moving it by
 * keyboard, and a pointer can drag the card from anywhere.
 */
export function TaskCard({
  task,
  agentsByKey,
  unread = false,
  onOpen,
  itemRef,
  itemStyle,
  itemListeners,
  handleRef,
  handleProps,
  placeholder = false,
  overlay = false,
  dataIndex,
}: CardProps & DragProps) {
  const priority = optionFor(PRIORITY_OPTIONS, task.priority);
  const shown = task.assigneeSessionKeys.slice(0, MAX_AVATARS);
  const hidden = task.assigneeSessionKeys.length - shown.length;
  const waiting = useTaskWaiting(task._id);
  const repeated = useContext(RepeatedTitlesContext).has(titleKey(task.title));
  const delegator = task.delegatedBy === undefined ? undefined : (agentsByKey.get(task.delegatedBy)?.name ?? task.delegatedBy);
  return (
    <li
      ref={itemRef}
      style={itemStyle}
      {...itemListeners}
      data-testid={overlay ? "task-card-overlay" : "task-card"}
      data-task-id={task._id}
      data-index={dataIndex}
      className={cn(
        "group relative rounded-lg border border-slate-200 bg-white p-2.5 shadow-sm transition-shadow hover:shadow-md dark:border-slate-700 dark:bg-slate-800 dark:shadow-none dark:hover:border-slate-600",
        placeholder && "opacity-40 shadow-none",
        waiting !== undefined && "border-amber-400 ring-1 ring-amber-400/60 dark:border-amber-500 dark:ring-amber-500/50",
        overlay && "rotate-1 cursor-grabbing shadow-lg ring-2 ring-indigo-500/40 dark:ring-indigo-400/30",
      )}
    >
      <div className="flex items-start gap-1.5">
        <button
          type="button"
          onClick={() => onOpen?.(task._id)}
          data-card-open=""
          // The button's ::after covers the card, so the whole card is its click target.
          className="min-w-0 flex-1 text-left text-[13px] leading-snug font-medium break-words text-slate-900 after:absolute dark:text-slate-100 after:inset-0 after:rounded-lg focus-visible:outline-none focus-visible:after:ring-2 focus-visible:after:ring-indigo-600"
        >
          {task.title}
        </button>
        {unread && (
          <span className="relative mt-1 flex size-2 shrink-0" title="You were mentioned">
            <span className="size-2 rounded-full bg-rose-500" />
            <span className="sr-only">Unread mention</span>
          </span>
        )}
        {!overlay && handleProps !== undefined && (
          <button
            type="button"
            ref={handleRef}
            {...handleProps}
            aria-label={`Move ${task.title}`}
            className="relative z-10 -mt-0.5 -mr-1.5 shrink-0 cursor-grab rounded p-0.5 text-slate-300 hover:bg-slate-100 hover:text-slate-600 focus-visible:text-slate-600 focus-visible:outline-2 focus-visible:outline-indigo-600 active:cursor-grabbing dark:text-slate-400 dark:hover:bg-slate-700 dark:hover:text-slate-200 dark:focus-visible:text-slate-200"
          >
            <GripIcon className="size-4" />
          </button>
        )}
      </div>

      {repeated && (
        // Another card has the same title: its short id tells the two apart.
        <p data-testid="card-short-id" title={`Task ${task._id}`} className="mt-0.5 font-mono text-[11px] text-slate-500 dark:text-slate-400">
          <span className="sr-only">Task </span>
          {shortTaskId(task._id)}
        </p>
      )}

      {task.tags.length > 0 && (
        <ul className="mt-1.5 flex flex-wrap gap-1" aria-label="Tags">
          {task.tags.map((tag) => (
            <li key={tag} className="rounded bg-slate-100 px-1.5 py-0.5 text-[11px] text-slate-600 dark:bg-slate-700 dark:text-slate-300">
              {tag}
            </li>
          ))}
        </ul>
      )}

      <div className="mt-2 flex flex-wrap items-center justify-between gap-1.5">
        <div className="flex flex-wrap items-center gap-1">
          <Badge className={priority.className} title="Priority">
            {priority.label}
          </Badge>
          {waiting !== undefined && (
            <span data-testid="card-waiting" className="contents">
              <Badge className={cn(BADGE_TONES.attention, "whitespace-nowrap dark:bg-amber-500/15 dark:text-amber-200 dark:ring-amber-400/40")} title={waitingSentence(waiting)}>
                {WAITING_LABEL[waiting.kind]}
              </Badge>
            </span>
          )}
          {task.archived === true && (
            <Badge className="bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-700 dark:text-slate-200 dark:ring-slate-400/30" title="Archived: off the board">
              Archived
            </Badge>
          )}
          {delegator !== undefined && (
            <Badge className="bg-indigo-50 text-indigo-700 ring-indigo-600/20 dark:bg-indigo-500/15 dark:text-indigo-300 dark:ring-indigo-400/30" title={`Delegated by ${delegator}`}>
              Delegated
            </Badge>
          )}
        </div>
        {task.assigneeSessionKeys.length > 0 && (
          <div className="flex shrink-0 -space-x-1.5">
            {shown.map((key) => {
              const agent = agentsByKey.get(key);
              return agent ? (
                <Avatar key={key} initials={initials(agent.name)} label={`Assigned to ${agent.name}`} />
              ) : (
                // Assignee left the roster (or isn't loaded): still show that someone holds it.
                <Avatar key={key} initials="?" label={`Assigned to unknown agent ${key}`} tone="muted" />
              );
            })}
            {hidden > 0 && (
              <Avatar initials={`+${hidden}`} label={`${hidden} more assignees`} tone="muted" />
            )}
          </div>
        )}
      </div>
    </li>
  );
}

/**
 * A card that can be dragged within and between columns. Pointer and touch
 * listeners sit on the whole card; the keyboard one only on the grip, so Enter
 * and Space on the card itself still open it.
 */
export function SortableTaskCard({ virtual, ...props }: CardProps & { virtual?: VirtualPlace }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: props.task._id,
  });
  const { onKeyDown, ...pointerListeners } = (listeners ?? {}) as HTMLAttributes<HTMLElement>;
  const movable = useContext(CardsMovableContext);
  const measure = virtual?.measure;
  const itemRef = useCallback(
    (element: HTMLLIElement | null) => {
      setNodeRef(element);
      if (element !== null) measure?.(element);
    },
    [setNodeRef, measure],
  );
  const place: CSSProperties | undefined =
    virtual === undefined ? undefined : { position: "absolute", top: virtual.start, left: 0, right: 0 };
  return (
    <TaskCard
      {...props}
      itemRef={itemRef}
      itemStyle={{ ...place, transform: CSS.Translate.toString(transform), transition }}
      dataIndex={virtual?.index}
      itemListeners={pointerListeners}
      handleRef={setActivatorNodeRef}
      // dnd-kit's attributes give the grip its "sortable" role description and drag instructions.
      handleProps={movable ? { ...attributes, role: undefined, tabIndex: undefined, onKeyDown } : undefined}
      placeholder={isDragging}
    />
  );
}
