import type { ReactNode } from "react";
import { cn } from "../../lib/cn";

/**
 * The colours a status badge takes, by what the status means: the run
 * statuses and the pause cards' states pick from these, so "done" reads the
 * same everywhere. Full class literals, so Tailwind finds them.
 */
export const BADGE_TONES = {
  neutral: "bg-slate-50 text-slate-600 ring-slate-500/20 dark:bg-slate-800/60 dark:text-slate-300",
  busy: "bg-indigo-50 text-indigo-700 ring-indigo-600/20 dark:bg-indigo-950/40 dark:text-indigo-300 dark:ring-indigo-400/30",
  attention: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-950/40 dark:text-amber-300 dark:ring-amber-400/30",
  success: "bg-emerald-50 text-emerald-700 ring-emerald-600/20 dark:bg-emerald-950/40 dark:text-emerald-300 dark:ring-emerald-400/30",
  failure: "bg-rose-50 text-rose-700 ring-rose-600/20 dark:bg-rose-950/40 dark:text-rose-300 dark:ring-rose-400/30",
  ended: "bg-slate-100 text-slate-600 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300",
} as const;

/** A small pill; colours come from the caller (usually from option data). */
export function Badge({ className, children, title }: { className?: string; children: ReactNode; title?: string }) {
  return (
    <span
      title={title}
      className={cn(
        "inline-flex items-center rounded-md px-1.5 py-0.5 text-[11px] leading-4 font-medium ring-1 ring-inset",
        className ?? "bg-slate-50 text-slate-600 ring-slate-500/20 dark:bg-slate-800/60 dark:text-slate-300",
      )}
    >
      {children}
    </span>
  );
}
