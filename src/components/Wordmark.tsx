import { cn } from "../lib/cn";

/** The Maestro logo mark (three board columns) and name. */
export function Wordmark({ size = "md" }: { size?: "md" | "lg" }) {
  return (
    <span className={cn("inline-flex items-center gap-2 font-semibold tracking-tight text-slate-900 dark:text-slate-100", size === "lg" ? "text-3xl" : "text-lg")}>
      <svg viewBox="0 0 32 32" aria-hidden="true" className={size === "lg" ? "size-9" : "size-6"}>
        <rect width="32" height="32" rx="8" className="fill-indigo-600" />
        <rect x="7" y="8" width="4.5" height="16" rx="2" fill="white" />
        <rect x="13.75" y="8" width="4.5" height="11" rx="2" fill="white" fillOpacity="0.85" />
        <rect x="20.5" y="8" width="4.5" height="7" rx="2" fill="white" fillOpacity="0.7" />
      </svg>
      Maestro
    </span>
  );
}
