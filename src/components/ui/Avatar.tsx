import { cn } from "../../lib/cn";

/** Colours by who it stands for; kept here so callers never fight over `bg-` classes. */
const TONES = {
  agent: "bg-indigo-100 text-indigo-700 dark:bg-indigo-900/40 dark:text-indigo-300",
  member: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-300",
  muted: "bg-slate-100 text-slate-600 dark:bg-slate-800 dark:text-slate-300",
} as const;

type Props = {
  initials: string;
  /** What screen readers and tooltips get; omit when a name is written next to it anyway. */
  label?: string;
  /** Agents indigo (the default), humans green, unknowns grey. */
  tone?: keyof typeof TONES;
  /** Size, spacing and ring; not colours (use `tone`). */
  className?: string;
};

/** Initials in a circle. Without a `label` it is decorative and hidden from screen readers. */
export function Avatar({ initials, label, tone = "agent", className }: Props) {
  return (
    <span
      title={label}
      aria-label={label}
      role={label === undefined ? undefined : "img"}
      aria-hidden={label === undefined ? true : undefined}
      className={cn(
        "inline-flex size-6 shrink-0 items-center justify-center rounded-full text-[10px] font-semibold ring-2 ring-white dark:ring-slate-900",
        TONES[tone],
        className,
      )}
    >
      {initials}
    </span>
  );
}
