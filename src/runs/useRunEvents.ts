import { useConvex, useQuery } from "convex/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { RunEvent } from "../../convex/lib/runEvents";
import type { EventsStatus } from "./RunTimeline";

/** Events per page of a run's history (at most runEvents.MAX_RUN_EVENTS_PAGE). */
export const RUN_EVENTS_PAGE = 500;
/** Live events kept in the subscription before they move into the history (its query stays small). */
export const TAIL_FOLD = 200;

type History = { events: RunEvent[]; cursor: string | null; done: boolean; loading: boolean; error: unknown };

/**
 * Every event of a run, paged: what is already written never changes, so
 * earlier pages are read once (runEvents.pageForRun), not held as
 * subscriptions; once the history is read to its end, one subscription on
 * the events after it (runEvents.listForRun from the last seq) keeps the view
 * live, and moves into the history as it grows. A run of any length costs one
 * small subscription.
 */
export function useRunEvents(runId: Id<"runs">): { events: RunEvent[]; status: EventsStatus; loadMore: () => void } {
  const convex = useConvex();
  const [history, setHistory] = useState<History>({ events: [], cursor: null, done: false, loading: true, error: null });
  const loading = useRef(false);

  const loadPage = useCallback(
    (cursor: string | null) => {
      if (loading.current) return;
      loading.current = true;
      setHistory((h) => ({ ...h, loading: true }));
      convex
        .query(api.runEvents.pageForRun, { runId, paginationOpts: { numItems: RUN_EVENTS_PAGE, cursor } })
        .then((page) => {
          loading.current = false;
          setHistory((h) => ({ events: [...h.events, ...page.page], cursor: page.continueCursor, done: page.isDone, loading: false, error: null }));
        })
        .catch((error: unknown) => {
          loading.current = false;
          setHistory((h) => ({ ...h, loading: false, error }));
        });
    },
    [convex, runId],
  );

  useEffect(() => loadPage(null), [loadPage]);

  const afterSeq = history.events.at(-1)?.seq ?? 0;
  const tail = useQuery(api.runEvents.listForRun, history.done ? { runId, afterSeq } : "skip");
  useEffect(() => {
    if (tail !== undefined && tail.length >= TAIL_FOLD) setHistory((h) => (h.events.at(-1)?.seq === afterSeq ? { ...h, events: [...h.events, ...tail] } : h));
  }, [tail, afterSeq]);

  // A failed read shows in the view's error boundary.
  if (history.error !== null) throw history.error;
  const events = useMemo(() => (tail === undefined || tail.length === 0 ? history.events : [...history.events, ...tail]), [history.events, tail]);
  const status: EventsStatus = history.events.length === 0 && history.loading ? "LoadingFirstPage" : history.loading ? "LoadingMore" : history.done ? "Exhausted" : "CanLoadMore";
  const loadMore = useCallback(() => {
    if (!history.done) loadPage(history.cursor);
  }, [history.done, history.cursor, loadPage]);
  return { events, status, loadMore };
}
