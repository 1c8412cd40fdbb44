/** Set by /mode and /model: the lead's plan mode and a task's model override, shown where they apply. */
export function ModeBadges({ leadMode, model }: { leadMode?: "plan" | "act"; model?: string }) {
  if (leadMode !== "plan" && model === undefined) return null;
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      {leadMode === "plan" && (
        <span data-testid="plan-mode-badge" title="The lead proposes a plan for approval before delegating (/mode act to change)" className="rounded-full bg-amber-100 px-2 py-0.5 text-[11px] font-medium text-amber-900 dark:bg-amber-900/40 dark:text-amber-300">
          Plan mode
        </span>
      )}
      {model !== undefined && (
        <span data-testid="model-badge" title="Agents on this task use this model (/model default to clear)" className="rounded-full bg-slate-100 px-2 py-0.5 font-mono text-[11px] text-slate-700 dark:bg-slate-800 dark:text-slate-200">
          {model}
        </span>
      )}
    </span>
  );
}
