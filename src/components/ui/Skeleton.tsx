import { cn } from "../../lib/cn";

/** A grey placeholder block that pulses while data loads. */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cn("animate-pulse rounded-md bg-slate-200 dark:bg-slate-800", className)} />;
}
