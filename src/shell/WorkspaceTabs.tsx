import type { KeyboardEvent } from "react";
import { cn } from "../lib/cn";

export const WORKSPACE_TABS = [
  { id: "board", label: "Board" },
  { id: "chat", label: "Chat" },
  { id: "activity", label: "Activity" },
  { id: "roster", label: "Roster" },
] as const;

export type WorkspaceTab = (typeof WORKSPACE_TABS)[number]["id"];

type Props = {
  /** The ids of the tabs and their panels start with it (see `tabPanelProps`). */
  id: string;
  active: WorkspaceTab;
  onSelect: (tab: WorkspaceTab) => void;
};

/**
 * Narrow screens: one part of the department at a time, picked by tabs
 * (arrow keys move between them, as WAI-ARIA tabs do). The panels are the
 * caller's, each given `tabPanelProps`.
 */
export function WorkspaceTabList({ id, active, onSelect }: Props) {
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const index = WORKSPACE_TABS.findIndex((tab) => tab.id === active);
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = WORKSPACE_TABS[(index + step + WORKSPACE_TABS.length) % WORKSPACE_TABS.length];
    onSelect(next.id);
    document.getElementById(`${id}-tab-${next.id}`)?.focus();
  }
  return (
    <div
      role="tablist"
      aria-label="Department"
      onKeyDown={onKeyDown}
      className="sticky top-0 z-10 -mx-4 flex border-b border-slate-200 bg-slate-50/95 px-2 backdrop-blur sm:-mx-6 dark:border-slate-700 dark:bg-slate-950/95"
    >
      {WORKSPACE_TABS.map((tab) => (
        <button
          key={tab.id}
          id={`${id}-tab-${tab.id}`}
          type="button"
          role="tab"
          aria-selected={tab.id === active}
          aria-controls={`${id}-panel-${tab.id}`}
          tabIndex={tab.id === active ? 0 : -1}
          onClick={() => onSelect(tab.id)}
          className={cn(
            "flex-1 border-b-2 px-2 py-2.5 text-sm font-medium focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600",
            tab.id === active
              ? "border-indigo-600 text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
              : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100",
          )}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

/** A tab's panel: only the active one shows, the others stay mounted (and live). */
export function tabPanelProps(id: string, tab: WorkspaceTab, active: WorkspaceTab) {
  return {
    id: `${id}-panel-${tab}`,
    role: "tabpanel",
    "aria-labelledby": `${id}-tab-${tab}`,
    hidden: tab !== active,
    "data-testid": `tab-panel-${tab}`,
    className: "flex min-h-0 flex-1 flex-col",
  };
}
