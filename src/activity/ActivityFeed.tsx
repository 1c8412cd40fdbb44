import { usePaginatedQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { PanelBoundary } from "../components/ErrorBoundary";
import { useNow } from "../lib/relativeTime";
import { ActivityFrame, ActivityList } from "./ActivityList";

/** Entries per page, first and every "Show more". */
export const ACTIVITY_PAGE_SIZE = 20;

type Props = { departmentId: Id<"departments"> };

/**
 * The department's live activity feed, newest first. A failing query shows in
 * the panel with a retry, leaving the rest of the page alone.
 */
export function ActivityFeed({ departmentId }: Props) {
  return (
    <PanelBoundary key={departmentId} frame={(error) => <ActivityFrame>{error}</ActivityFrame>}>
      <LiveFeed departmentId={departmentId} />
    </PanelBoundary>
  );
}

function LiveFeed({ departmentId }: Props) {
  const { results, status, loadMore } = usePaginatedQuery(
    api.activities.list,
    { departmentId },
    { initialNumItems: ACTIVITY_PAGE_SIZE },
  );
  const now = useNow();
  return <ActivityList entries={results} status={status} now={now} onLoadMore={() => loadMore(ACTIVITY_PAGE_SIZE)} />;
}
