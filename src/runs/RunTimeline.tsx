import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState } from "react";
import type { RunEvent } from "../../convex/lib/runEvents";
import { replayRun, type TimelineItem } from "../../convex/lib/runTimeline";
import { cardHeight, initialListRect, observeListRect, scrollAfterMount } from "../board/virtualScroll";
import { Button } from "../components/ui/Button";
import { cn } from "../lib/cn";
import { formatFullTime } from "../lib/relativeTime";
import { itemHeading } from "./runViews";

/** How a paged stream stands (convex/react's `usePaginatedQuery` status). */
export type EventsStatus = "LoadingFirstPage" | "CanLoadMore" | "LoadingMore" | "Exhausted";

type Props = {
  events: ReadonlyArray<Pick<RunEvent, "seq" | "timestamp" | "payload">>;
  /** Set when the events are one page of a longer stream: the timeline loads the next as its end comes into view. */
  paging?: { status: EventsStatus; loadMore: () => void };
};

/** A timeline row's height before it is measured. */
const ESTIMATED_ITEM_PX = 64;
const ITEM_GAP_PX = 8;
/** Rows from the end of what is loaded at which the next page is asked for. */
const LOAD_AHEAD_ITEMS = 20;

/**
 * A run replayed from its events alone: what was asked, what the agent said
 * and did, how it ended. Only the rows in view are rendered (a run can hold
 * any number of events), in their own scroll area; the next page of a longer
 * run loads as its end scrolls into view, or with "Load more events".
 */
export function RunTimeline({ events, paging }: Props) {
  const timeline = useMemo(() => replayRun(events), [events]);
  const items = timeline.items;
  const scrollRef = useRef<HTMLDivElement>(null);
  const [scrollToFn] = useState(scrollAfterMount);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_ITEM_PX,
    getItemKey: (index) => items[index].seq,
    gap: ITEM_GAP_PX,
    overscan: 8,
    measureElement: cardHeight,
    observeElementRect: observeListRect,
    initialRect: initialListRect(),
    scrollToFn,
  });
  const virtualItems = virtualizer.getVirtualItems();
  const lastShown = virtualItems.at(-1)?.index ?? -1;
  const canLoadMore = paging?.status === "CanLoadMore";
  const loadMore = paging?.loadMore;
  useEffect(() => {
    if (canLoadMore && loadMore !== undefined && lastShown >= items.length - LOAD_AHEAD_ITEMS) loadMore();
  }, [canLoadMore, loadMore, lastShown, items.length]);

  if (items.length === 0 && paging?.status !== "CanLoadMore" && paging?.status !== "LoadingMore") {
    return <p className="text-sm text-slate-500 dark:text-slate-400">Nothing has happened in this run yet.</p>;
  }
  const more = paging !== undefined && paging.status !== "Exhausted";
  return (
    <div
      ref={scrollRef}
      role="region"
      aria-label="Run events"
      tabIndex={0}
      data-testid="run-timeline-scroll"
      className="min-h-64 flex-1 overflow-y-auto rounded-lg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500"
    >
      <ol aria-label="Run timeline" className="relative" style={{ height: virtualizer.getTotalSize() }}>
        {virtualItems.map((row) => {
          const item = items[row.index];
          return (
            <li
              key={row.key}
              ref={virtualizer.measureElement}
              data-index={row.index}
              data-kind={item.kind}
              data-seq={item.seq}
              aria-setsize={more ? -1 : items.length}
              aria-posinset={row.index + 1}
              className={cn("absolute inset-x-0 top-0 rounded-lg border px-3 py-2 text-sm", TONE[item.kind])}
              style={{ transform: `translateY(${row.start}px)` }}
            >
              <div className="flex items-baseline gap-2">
                <p className="flex-1 text-xs font-medium text-slate-700 dark:text-slate-200">{itemHeading(item)}</p>
                <time dateTime={new Date(item.timestamp).toISOString()} className="shrink-0 text-[11px] text-slate-500 dark:text-slate-400">
                  {formatFullTime(item.timestamp)}
                </time>
              </div>
              <ItemBody item={item} />
            </li>
          );
        })}
      </ol>
      <p role="status" className="flex flex-wrap items-center gap-2 py-2 text-xs text-slate-500 dark:text-slate-400">
        <span data-testid="run-events-loaded">
          {events.length.toLocaleString("en")} event{events.length === 1 ? "" : "s"}
          {more ? " loaded so far" : ""}
        </span>
        {more && paging !== undefined && (
          <Button variant="ghost" disabled={paging.status !== "CanLoadMore"} onClick={paging.loadMore} className="px-2 py-1 text-xs">
            {paging.status === "CanLoadMore" ? "Load more events" : "Loading…"}
          </Button>
        )}
      </p>
    </div>
  );
}

const TONE: Record<TimelineItem["kind"], string> = {
  user_message: "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900",
  control: "border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-800/60",
  tool_output: "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900",
  slash_command: "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900",
  agent_start: "border-indigo-100 bg-indigo-50/40 dark:border-indigo-800 dark:bg-indigo-950/40",
  message: "border-indigo-100 bg-white dark:border-indigo-800 dark:bg-slate-900",
  tool: "border-amber-100 bg-amber-50/40 dark:border-amber-800 dark:bg-amber-950/40",
  approval: "border-amber-200 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40",
  question: "border-amber-200 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40",
  plan: "border-amber-200 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40",
  end: "border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-800/60",
};

function Text({ children }: { children: string }) {
  return <p className="mt-1 whitespace-pre-wrap break-words text-slate-700 dark:text-slate-200">{children}</p>;
}

function ItemBody({ item }: { item: TimelineItem }) {
  switch (item.kind) {
    case "user_message":
    case "tool_output":
      return <Text>{item.content}</Text>;
    case "message":
      return item.text === "" ? null : <Text>{item.text}</Text>;
    case "tool":
      return (
        <>
          <code className="mt-1 block break-all text-xs text-slate-600 dark:text-slate-300">{item.args}</code>
          {item.result !== undefined && <Text>{item.result.observation}</Text>}
        </>
      );
    case "slash_command":
      return item.error === undefined ? null : <Text>{item.error}</Text>;
    case "approval":
      return <code className="mt-1 block break-all text-xs text-slate-600 dark:text-slate-300">{item.args}</code>;
    case "question":
      return <Text>{item.question}</Text>;
    case "plan":
      return (
        <ol className="mt-1 list-decimal pl-5 text-slate-700 dark:text-slate-200">
          {item.steps.map((step, index) => (
            <li key={index}>
              {step.title}
              {step.assignee !== undefined && <span className="text-slate-500 dark:text-slate-400"> — {step.assignee}</span>}
            </li>
          ))}
        </ol>
      );
    default:
      return null;
  }
}
