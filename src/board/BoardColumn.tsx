import { useDroppable } from "@dnd-kit/core";
import { SortableContext, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { defaultRangeExtractor, useVirtualizer, type Range } from "@tanstack/react-virtual";
import { useCallback, useEffect, useRef, useState } from "react";
import { cn } from "../lib/cn";
import { columnDropId } from "./dnd";
import type { ColumnMode } from "./layout";
import type { Option } from "./options";
import { SortableTaskCard } from "./TaskCard";
import { cardHeight, initialListRect, observeListRect, scrollAfterMount } from "./virtualScroll";
import { MAX_TASKS_PER_COLUMN } from "../../convex/lib/limits";
import { nearEnd } from "./paging";
import type { RosterAgent, TaskCardData, TaskStatus } from "./types";
import { ChevronLeftIcon, ChevronRightIcon } from "../components/ui/icons";

/** Columns longer than this render only the cards in view (plus a margin), so 2,000 cards cost what 60 do. */
export const VIRTUALIZE_OVER = 60;
/** A compact card's usual height, before it is measured. */
const ESTIMATED_CARD_PX = 84;
const CARD_GAP_PX = 8;

/** Scrolls a column so its card at `index` is rendered and in view. */
export type ScrollToCard = (index: number) => void;

type Props = {
  status: Option<TaskStatus>;
  tasks: TaskCardData[];
  truncated: boolean;
  /** The column's size when `tasks` is only its first page (the rest is loading). */
  count?: number;
  agentsByKey: ReadonlyMap<string, RosterAgent>;
  unreadTaskIds: ReadonlySet<string>;
  onOpenTask: (taskId: TaskCardData["_id"]) => void;
  /** A card is being dragged over this column (or one of its cards). */
  isDropTarget: boolean;
  /** Folded to a narrow strip: name and count only, still a drop target. */
  collapsed?: boolean;
  /** Offered on Done and Blocked: fold or unfold the column. */
  onToggleCollapsed?: () => void;
  columnMode?: ColumnMode;
  /** The card being dragged: always rendered, even when scrolled out of a virtualised column. */
  activeId?: string | null;
  /** Lets the board scroll this column to a card (for j/k). */
  registerScroller?: (status: TaskStatus, scroll: ScrollToCard | null) => void;
  /** Given while the server has more of this column: called as its list nears the last of the `held` cards shown. */
  onLoadMore?: (status: TaskStatus, held: number) => void;
};

/** One status column: header with count, then its sortable cards. The whole column is a drop target. */
export function BoardColumn({
  status,
  tasks,
  truncated,
  count: total = tasks.length,
  agentsByKey,
  unreadTaskIds,
  onOpenTask,
  isDropTarget,
  collapsed = false,
  onToggleCollapsed,
  columnMode = "all",
  activeId = null,
  registerScroller,
  onLoadMore,
}: Props) {
  const headingId = `column-heading-${status.value}`;
  const { setNodeRef } = useDroppable({ id: columnDropId(status.value) });
  const count = `${total}${truncated ? "+" : ""}`;
  const countLabel = `${total}${truncated ? " or more" : ""} tasks`;

  if (collapsed) {
    return (
      <section
        ref={setNodeRef}
        data-testid={`column-${status.value}`}
        data-collapsed=""
        aria-labelledby={headingId}
        className={cn(
          "relative flex w-10 shrink-0 flex-col items-center rounded-xl bg-slate-100/80 py-2 transition-colors hover:bg-slate-200/70 lg:max-h-full dark:bg-slate-900 dark:ring-1 dark:ring-slate-800 dark:ring-inset dark:hover:bg-slate-800",
          isDropTarget && "bg-indigo-50 ring-2 ring-indigo-300 ring-inset dark:bg-indigo-950/60 dark:ring-indigo-500/60",
        )}
      >
        {/* The button's ::after covers the strip, so a click anywhere on it unfolds the column. */}
        <FoldButton
          folded
          columnLabel={status.label}
          onToggle={onToggleCollapsed}
          className="rounded p-0.5 text-slate-400 after:absolute dark:text-slate-400 dark:hover:text-slate-200 after:inset-0 after:rounded-xl hover:text-slate-700 focus-visible:outline-none focus-visible:after:ring-2 focus-visible:after:ring-indigo-600"
        />
        <span aria-hidden="true" className={`mt-2 size-2 rounded-full ${status.className}`} />
        <span data-testid="column-count" aria-label={countLabel} className="mt-2 text-xs font-medium text-slate-600 tabular-nums dark:text-slate-300">
          {count}
        </span>
        <h2 id={headingId} className="mt-2 text-sm font-semibold whitespace-nowrap text-slate-700 [writing-mode:vertical-rl] dark:text-slate-200">
          {status.label}
        </h2>
      </section>
    );
  }

  // The cards, as either list shows them (a long column renders only those in view).
  const list: ListProps = { status: status.value, tasks, agentsByKey, unreadTaskIds, onOpenTask, columnMode, registerScroller, onLoadMore };
  // The board holds up to MAX_TASKS_PER_COLUMN cards of a column; past that the count says how many more there are.
  const capped = !truncated && tasks.length >= MAX_TASKS_PER_COLUMN && total > tasks.length;
  return (
    <section
      ref={setNodeRef}
      data-testid={`column-${status.value}`}
      aria-labelledby={headingId}
      className={cn(
        "flex shrink-0 flex-col rounded-xl bg-slate-100/80 transition-colors lg:max-h-full dark:bg-slate-900 dark:ring-1 dark:ring-slate-800 dark:ring-inset",
        columnMode === "single" ? "w-full snap-start snap-always" : "min-w-36 flex-1 basis-0",
        isDropTarget && "bg-indigo-50 ring-2 ring-indigo-300 ring-inset dark:bg-indigo-950/60 dark:ring-indigo-500/60",
      )}
    >
      <header className="group/header relative flex items-center gap-1.5 px-2 pt-2.5 pb-2">
        <span aria-hidden="true" className={`size-2 shrink-0 rounded-full ${status.className}`} />
        <h2 id={headingId} className="truncate text-sm font-semibold text-slate-700 dark:text-slate-200" title={status.label}>
          {status.label}
        </h2>
        <span
          data-testid="column-count"
          aria-label={countLabel}
          className="ml-auto rounded-full bg-white px-1.5 py-0.5 text-xs font-medium text-slate-600 tabular-nums ring-1 ring-slate-200 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-700"
        >
          {count}
        </span>
        {onToggleCollapsed !== undefined && columnMode === "all" && (
          <FoldButton
            folded={false}
            columnLabel={status.label}
            onToggle={onToggleCollapsed}
            // Over the count, shown on hover or focus (always on touch screens), so it costs the title no width.
            className="absolute top-2.5 right-2 rounded-full bg-white p-0.5 text-slate-500 opacity-0 ring-1 ring-slate-200 group-hover/header:opacity-100 hover:text-slate-800 focus-visible:opacity-100 focus-visible:outline-2 focus-visible:outline-indigo-600 pointer-coarse:opacity-100 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-700 dark:hover:text-white"
          />
        )}
      </header>

      <SortableContext id={status.value} items={tasks.map((task) => task._id)} strategy={verticalListSortingStrategy}>
        {tasks.length === 0 ? (
          <p
            className={cn(
              "mx-2.5 mb-2.5 rounded-lg border border-dashed px-3 py-6 text-center text-xs",
              isDropTarget ? "border-indigo-300 text-indigo-700 dark:border-indigo-500/60 dark:text-indigo-300" : "border-slate-300 text-slate-600 dark:border-slate-700 dark:text-slate-400",
            )}
          >
            {isDropTarget ? "Drop here" : "No tasks"}
          </p>
        ) : total > VIRTUALIZE_OVER || onLoadMore !== undefined ? (
          <VirtualCards {...list} activeId={activeId} />
        ) : (
          <PlainCards {...list} />
        )}
      </SortableContext>

      {truncated && <p className="px-2.5 pb-2.5 text-xs text-slate-500 dark:text-slate-400">Showing the first {total} tasks in this column.</p>}
      {capped && (
        <p className="px-2.5 pb-2.5 text-xs text-slate-500 dark:text-slate-400">
          Showing the first {tasks.length} of {total} tasks in this column.
        </p>
      )}
    </section>
  );
}

/** Unfolds a folded column (a chevron pointing out) or folds an open one; its label says which. */
function FoldButton({ folded, columnLabel, onToggle, className }: { folded: boolean; columnLabel: string; onToggle?: () => void; className: string }) {
  const label = `${folded ? "Show" : "Fold"} the ${columnLabel} column`;
  return (
    <button type="button" onClick={onToggle} aria-expanded={!folded} aria-label={label} title={label} className={className}>
      {folded ? <ChevronRightIcon /> : <ChevronLeftIcon />}
    </button>
  );
}

type ListProps = Pick<Props, "tasks" | "agentsByKey" | "unreadTaskIds" | "onOpenTask" | "columnMode" | "registerScroller" | "onLoadMore"> & {
  status: TaskStatus;
};

// Below lg the page scrolls, so a column's list needs its own height limit to scroll (and virtualise) in.
const listClass = (columnMode: ColumnMode) =>
  cn("min-h-12 px-2.5 pb-2.5 overflow-y-auto overscroll-contain lg:min-h-0", columnMode === "single" ? "max-h-[calc(100dvh-13rem)]" : "max-h-[70vh] lg:max-h-none");

function PlainCards({ status, tasks, agentsByKey, unreadTaskIds, onOpenTask, columnMode = "all", registerScroller }: ListProps) {
  const listRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    // Every card is rendered: scrolling to one is the browser's job.
    registerScroller?.(status, () => {});
    return () => registerScroller?.(status, null);
  }, [registerScroller, status]);
  return (
    // min-h keeps a strip under the last card to drop onto.
    <ol ref={listRef} className={cn("flex flex-col gap-2", listClass(columnMode))}>
      {tasks.map((task) => (
        <SortableTaskCard key={task._id} task={task} agentsByKey={agentsByKey} unread={unreadTaskIds.has(task._id)} onOpen={onOpenTask} />
      ))}
    </ol>
  );
}

function VirtualCards({
  status,
  tasks,
  agentsByKey,
  unreadTaskIds,
  onOpenTask,
  activeId,
  columnMode = "all",
  registerScroller,
  onLoadMore,
}: ListProps & { activeId: string | null }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [scrollToFn] = useState(scrollAfterMount);
  const activeIndex = activeId === null ? -1 : tasks.findIndex((task) => task._id === activeId);
  // The dragged card stays mounted while scrolled away, so dnd-kit keeps its node.
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      if (activeIndex !== -1 && !indexes.includes(activeIndex)) indexes.push(activeIndex);
      return indexes.sort((a, b) => a - b);
    },
    [activeIndex],
  );
  const virtualizer = useVirtualizer({
    count: tasks.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_CARD_PX,
    getItemKey: (index) => tasks[index]._id,
    gap: CARD_GAP_PX,
    overscan: 6,
    rangeExtractor,
    measureElement: cardHeight,
    observeElementRect: observeListRect,
    initialRect: initialListRect(),
    scrollToFn,
  });
  useEffect(() => {
    registerScroller?.(status, (index) => virtualizer.scrollToIndex(index, { align: "auto" }));
    return () => registerScroller?.(status, null);
  }, [registerScroller, status, virtualizer]);
  const items = virtualizer.getVirtualItems();
  // The last card in view (a dragged card kept mounted out of view aside): near the end of those held, the next page is asked for.
  const lastShown = items.findLast((item) => item.index !== activeIndex)?.index ?? -1;
  useEffect(() => {
    if (onLoadMore !== undefined && lastShown >= 0 && nearEnd(lastShown, tasks.length)) onLoadMore(status, tasks.length);
  }, [onLoadMore, lastShown, status, tasks.length]);
  return (
    <div ref={scrollRef} className={listClass(columnMode)}>
      <ol className="relative" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const task = tasks[item.index];
          return (
            <SortableTaskCard
              key={task._id}
              task={task}
              agentsByKey={agentsByKey}
              unread={unreadTaskIds.has(task._id)}
              onOpen={onOpenTask}
              virtual={{ index: item.index, start: item.start, measure: virtualizer.measureElement }}
            />
          );
        })}
      </ol>
    </div>
  );
}
