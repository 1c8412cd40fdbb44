import { LoadingStatus, Skeleton } from "../components/ui/Skeleton";
import { STATUS_OPTIONS } from "./options";

/** Placeholder columns shaped like the board, so nothing jumps when data lands. */
export function BoardSkeleton() {
  return (
    <LoadingStatus label="Loading board…" className="flex min-h-0 min-w-0 items-start gap-3 overflow-x-auto pb-2 lg:flex-1">
      {STATUS_OPTIONS.map((status, i) => (
        <div key={status.value} className="flex w-60 shrink-0 flex-col gap-2 rounded-xl bg-slate-100/80 p-3 dark:bg-slate-900">
          <Skeleton className="h-4 w-24" />
          {Array.from({ length: 3 - (i % 3) }, (_, j) => (
            <Skeleton key={j} className="h-20 w-full rounded-lg bg-slate-200/80 dark:bg-slate-800" />
          ))}
        </div>
      ))}
    </LoadingStatus>
  );
}
