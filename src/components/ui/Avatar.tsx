import { cn } from "../../lib/cn";

/** Initials in a circle; `label` is what screen readers and tooltips get. */
export function Avatar({ initials, label, className }: { initials: string; label: string; className?: string }) {
  return (
    <span
      title={label}
      aria-label={label}
      role="img"
      className={cn(
        "inline-flex size-6 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-[10px] font-semibold text-indigo-700 ring-2 ring-white",
        className,
      )}
    >
      {initials}
    </span>
  );
}
