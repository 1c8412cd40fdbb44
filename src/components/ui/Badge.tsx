import type { ReactNode } from "react";
import { cn } from "../../lib/cn";

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
