import type { PaginationStatus } from "convex/react";
import type { ReactNode } from "react";
import { initials } from "../board/initials";
import { Avatar } from "../components/ui/Avatar";
import { SkeletonRows } from "../components/ui/Skeleton";
import { actorName, describeActivity } from "./describe";
import type { ActivityEntry } from "./types";
import { RelativeTime } from "../components/ui/RelativeTime";
import { LoadMore } from "../components/ui/LoadMore";

type Props = {
  entries: ActivityEntry[];
  status: PaginationStatus;
  /** The time relative times are measured from, in ms since the epoch. */
  now: number;
  onLoadMore: () => void;
};

/** The feed as pure props: one sentence per entry, newest first, and "Show more" while older pages remain. */
export function ActivityList({ entries, status, now, onLoadMore }: Props) {
  if (status === "LoadingFirstPage") {
    return (
      <ActivityFrame>
        <ActivitySkeleton />
      </ActivityFrame>
    );
  }
  return (
    <ActivityFrame>
      {entries.length === 0 ? (
        <p className="px-4 py-6 text-center text-xs text-slate-500 dark:text-slate-400">Nothing has happened here yet.</p>
      ) : (
        // Scrolls on its own on wide screens, so it takes focus for keyboard scrolling.
        <ol tabIndex={0} aria-label="Activity entries" className="divide-y divide-slate-100 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600 lg:overflow-y-auto dark:divide-slate-800">
          {entries.map((entry) => (
            <ActivityRow key={entry._id} entry={entry} now={now} />
          ))}
        </ol>
      )}
      <LoadMore
        status={status}
        onLoadMore={onLoadMore}
        label="Show more"
        variant="ghost"
        className="w-full py-1 text-xs"
        rowClassName="border-t border-slate-100 px-4 py-2 dark:border-slate-800"
      />
    </ActivityFrame>
  );
}

function ActivityRow({ entry, now }: { entry: ActivityEntry; now: number }) {
  const who = actorName(entry.actor);
  return (
    <li data-testid="activity-entry" className="flex gap-3 px-4 py-2.5">
      <Avatar initials={initials(who)} className="mt-0.5" />
      <div className="min-w-0 flex-1">
        <p className="text-sm break-words text-slate-700 dark:text-slate-200">{describeActivity(entry)}</p>
        <RelativeTime at={entry._creationTime} now={now} className="text-xs text-slate-500 dark:text-slate-400" />
      </div>
    </li>
  );
}

/** The feed's card and header; the error fallback reuses it so the panel keeps its place. */
export function ActivityFrame({ children }: { children: ReactNode }) {
  return (
    <section
      data-testid="activity-feed"
      aria-labelledby="activity-heading"
      className="flex min-h-0 flex-col rounded-xl border border-slate-200 bg-white lg:max-h-full dark:bg-slate-900 dark:border-slate-700"
    >
      <header className="border-b border-slate-100 px-4 py-3 dark:border-slate-800">
        <h2 id="activity-heading" className="text-sm font-semibold text-slate-700 dark:text-slate-200">
          Activity
        </h2>
      </header>
      {children}
    </section>
  );
}

function ActivitySkeleton() {
  return <SkeletonRows label="Loading activity…" count={5} avatar="size-6" lines={() => ["h-3 w-full", "h-2.5 w-16"]} />;
}
