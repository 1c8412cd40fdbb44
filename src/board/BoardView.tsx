import { hasMoreCards } from "./paging";
import { DndContext, DragOverlay } from "@dnd-kit/core";
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { BoardColumn, type ScrollToCard } from "./BoardColumn";
import { locateTask, normalizeColumns, type TaskMove } from "./dnd";
import { COLLAPSIBLE_STATUSES, type ColumnMode } from "./layout";
import { optionFor, STATUS_OPTIONS } from "./options";
import { isTypingTarget, nextCardId } from "./shortcuts";
import { CardsMovableContext, RepeatedTitlesContext, repeatedTitles, TaskCard } from "./TaskCard";
import type { BoardColumnData, RosterAgent, TaskCardData, TaskStatus } from "./types";
import { cn } from "../lib/cn";
import { useBoardDrag } from "./useBoardDrag";

type Props = {
  columns: BoardColumnData[];
  agents: RosterAgent[];
  /** Tasks where the viewer has an unread @mention. */
  unreadTaskIds?: ReadonlySet<string>;
  onOpenTask?: (taskId: TaskCardData["_id"]) => void;
  /** A card was dropped somewhere new; `position` is its index among the target column's other cards. */
  onMoveTask?: (move: TaskMove) => void;
  /** A viewer's board: cards open but do not drag. */
  readOnly?: boolean;
  /** Side by side ("all", default) or one column at a time, swiped ("single", phones). */
  columnMode?: ColumnMode;
  /** The columns to show, in board order; all six when omitted (the status filter narrows it). */
  statuses?: readonly TaskStatus[];
  /** Columns shown folded to a strip. */
  collapsed?: ReadonlySet<TaskStatus>;
  /** Fold or unfold Done/Blocked; without it they can't be folded. */
  onToggleCollapsed?: (status: TaskStatus) => void;
  /** Filters hide some cards, so the note for an empty board says so instead. */
  filtered?: boolean;
  /** A column's list neared the last of the `held` cards it holds while the server has more: ask for its next page. */
  onLoadMore?: (status: TaskStatus, held: number) => void;
};

const NO_UNREAD: ReadonlySet<string> = new Set();
const NONE_COLLAPSED: ReadonlySet<TaskStatus> = new Set();
const ALL_STATUSES = STATUS_OPTIONS.map((option) => option.value);
const noop = () => {};

/**
 * The board as pure props: the six columns in `STATUS_OPTIONS` order (a status
 * the query left out shows as empty). Cards drag within and between columns
 * by pointer, touch (press and hold) or keyboard; while dragging, a local
 * preview of the board makes room for the card, and on drop `onMoveTask` gets
 * the move (the caller applies it optimistically, so the card stays put).
 */
export function BoardView({
  columns,
  agents,
  unreadTaskIds = NO_UNREAD,
  onOpenTask = noop,
  onMoveTask = noop,
  readOnly = false,
  columnMode = "all",
  statuses = ALL_STATUSES,
  collapsed = NONE_COLLAPSED,
  onToggleCollapsed,
  filtered = false,
  onLoadMore,
}: Props) {
  const agentsByKey = useMemo(() => new Map(agents.map((agent) => [agent.sessionKey, agent])), [agents]);
  const normalized = useMemo(() => normalizeColumns(columns).filter((column) => statuses.includes(column.status)), [columns, statuses]);
  const drag = useBoardDrag(normalized, readOnly, onMoveTask);
  const shown = drag.shown;
  const boardRef = useRef<HTMLDivElement>(null);
  const scrollers = useRef(new Map<TaskStatus, ScrollToCard>());
  const registerScroller = useCallback((status: TaskStatus, scroll: ScrollToCard | null) => {
    if (scroll === null) scrollers.current.delete(status);
    else scrollers.current.set(status, scroll);
  }, []);
  useCardKeys(shown, scrollers);

  const isEmpty = normalized.every((column) => column.tasks.length === 0);
  // Two cards with one title (a delegation made twice, say) are told apart by their short ids.
  const repeated = useMemo(() => repeatedTitles(normalized.flatMap((column) => column.tasks)), [normalized]);

  return (
    <CardsMovableContext.Provider value={!readOnly}>
      <RepeatedTitlesContext.Provider value={repeated}>
      <DndContext {...drag.context}>
        <div className="flex min-h-0 min-w-0 flex-col gap-3 lg:flex-1">
          {isEmpty && filtered && (
            <p className="rounded-lg border border-dashed border-slate-300 px-4 py-3 text-sm text-slate-600 dark:border-slate-700 dark:text-slate-300">No tasks match these filters.</p>
          )}
          {isEmpty && !filtered && (
            <p className="rounded-lg border border-dashed border-indigo-200 bg-indigo-50/60 px-4 py-3 text-sm text-indigo-900 dark:border-indigo-800 dark:bg-indigo-950/40 dark:text-indigo-100">
              This board has no tasks yet. Add one with <strong className="font-semibold">New task</strong>, then @mention an agent in
              its thread to get it moving.
            </p>
          )}
          {columnMode === "single" && <ColumnTabs columns={shown} boardRef={boardRef} />}
          <div
            ref={boardRef}
            data-testid="board"
            data-column-mode={columnMode}
            className={cn(
              "flex min-h-0 min-w-0 items-start gap-2 overflow-x-auto pb-2 lg:h-full lg:flex-1",
              // One column per screen width; a swipe snaps to the next.
              columnMode === "single" && "snap-x snap-mandatory",
            )}
          >
            {shown.map((column) => (
              <BoardColumn
                key={column.status}
                status={optionFor(STATUS_OPTIONS, column.status)}
                tasks={column.tasks}
                truncated={column.truncated}
                count={column.count}
                agentsByKey={agentsByKey}
                unreadTaskIds={unreadTaskIds}
                onOpenTask={onOpenTask}
                isDropTarget={drag.targetStatus !== null && drag.targetStatus !== drag.originStatus && column.status === drag.targetStatus}
                collapsed={columnMode === "all" && collapsed.has(column.status)}
                onToggleCollapsed={
                  onToggleCollapsed !== undefined && COLLAPSIBLE_STATUSES.includes(column.status) ? () => onToggleCollapsed(column.status) : undefined
                }
                columnMode={columnMode}
                activeId={drag.activeId}
                registerScroller={registerScroller}
                onLoadMore={hasMoreCards(column) ? onLoadMore : undefined}
              />
            ))}
          </div>
        </div>
        <DragOverlay>
          {drag.activeTask ? (
            <ul aria-hidden="true">
              <TaskCard task={drag.activeTask} agentsByKey={agentsByKey} unread={unreadTaskIds.has(drag.activeTask._id)} overlay />
            </ul>
          ) : null}
        </DragOverlay>
      </DndContext>
      </RepeatedTitlesContext.Provider>
    </CardsMovableContext.Provider>
  );
}

/** Frames to wait for a card scrolled into a virtualised column to render before focusing it. */
const FOCUS_FRAMES = 10;

/**
 * `j`/`k` move the focus to the next/previous card (column by column), first
 * scrolling a virtualised column so the card is rendered. Keys typed into a
 * field, or pressed with a modifier or inside a dialog, are left alone.
 */
function useCardKeys(columns: readonly BoardColumnData[], scrollers: RefObject<Map<TaskStatus, ScrollToCard>>) {
  const columnsRef = useRef(columns);
  useEffect(() => {
    columnsRef.current = columns;
  }, [columns]);
  useEffect(() => {
    let frame = 0;
    function focusCard(taskId: string, framesLeft: number) {
      const card = [...document.querySelectorAll('[data-testid="task-card"]')].find((el) => el.getAttribute("data-task-id") === taskId);
      const button = card?.querySelector<HTMLElement>("[data-card-open]") ?? null;
      if (button !== null) {
        button.focus();
        button.scrollIntoView({ block: "nearest", inline: "nearest" });
      } else if (framesLeft > 0) {
        frame = requestAnimationFrame(() => focusCard(taskId, framesLeft - 1));
      }
    }
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== "j" && event.key !== "k") return;
      if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey || isTypingTarget(event.target)) return;
      const active = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      if (active?.closest('[role="dialog"], [data-testid="task-drawer"]')) return;
      const current = active?.closest("[data-task-id]")?.getAttribute("data-task-id") ?? null;
      const next = nextCardId(columnsRef.current, current, event.key === "j" ? 1 : -1);
      if (next === null) return;
      event.preventDefault();
      const at = locateTask(columnsRef.current, next);
      if (at !== null) scrollers.current.get(at.status)?.(at.index);
      cancelAnimationFrame(frame);
      focusCard(next, FOCUS_FRAMES);
    }
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      cancelAnimationFrame(frame);
    };
  }, [scrollers]);
}

/**
 * One column at a time (phones): the six column names with their counts, the
 * one in view marked; a tap scrolls to a column, a swipe moves the marker.
 */
function ColumnTabs({ columns, boardRef }: { columns: readonly BoardColumnData[]; boardRef: RefObject<HTMLDivElement | null> }) {
  const [current, setCurrent] = useState(0);
  useEffect(() => {
    const board = boardRef.current;
    if (board === null) return;
    const onScroll = () => setCurrent(Math.round(board.scrollLeft / Math.max(1, board.clientWidth)));
    board.addEventListener("scroll", onScroll, { passive: true });
    return () => board.removeEventListener("scroll", onScroll);
  }, [boardRef]);
  function show(status: TaskStatus) {
    boardRef.current?.querySelector(`[data-testid="column-${status}"]`)?.scrollIntoView({ inline: "start", block: "nearest", behavior: "smooth" });
  }
  return (
    <nav aria-label="Columns" data-testid="column-tabs" className="-mx-1 flex gap-1 overflow-x-auto px-1 pb-1">
      {columns.map((column, i) => {
        const option = optionFor(STATUS_OPTIONS, column.status);
        return (
          <button
            key={column.status}
            type="button"
            onClick={() => show(column.status)}
            aria-current={i === current ? "true" : undefined}
            className={cn(
              "flex shrink-0 items-center gap-1.5 rounded-full px-2.5 py-1 text-xs font-medium ring-1 ring-inset",
              i === current
                ? "bg-slate-900 text-white ring-slate-900 dark:bg-slate-100 dark:text-slate-900 dark:ring-slate-100"
                : "bg-white text-slate-700 ring-slate-200 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-700",
            )}
          >
            <span aria-hidden="true" className={`size-1.5 rounded-full ${option.className}`} />
            {option.label}
            <span className="tabular-nums opacity-70">{column.count ?? column.tasks.length}</span>
          </button>
        );
      })}
    </nav>
  );
}


