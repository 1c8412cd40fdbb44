import { Avatar } from "../components/ui/Avatar";
import { initials } from "../board/initials";
import { AGENT_STATUS_OPTIONS, optionFor } from "../board/options";
import type { RosterAgent } from "../board/types";
import { cn } from "../lib/cn";

type Props = {
  agents: readonly RosterAgent[];
  /** Session keys of the chosen agents. */
  selected: readonly string[];
  onChange: (sessionKeys: string[]) => void;
  disabled?: boolean;
  /** Id of an element that labels the group. */
  labelledBy: string;
  className?: string;
};

/** Multi-select over the roster: one checkbox row per agent, with role and presence. */
export function AssigneePicker({ agents, selected, onChange, disabled = false, labelledBy, className }: Props) {
  if (agents.length === 0) {
    return <p className={cn("rounded-lg bg-slate-50 px-3 py-2 text-xs text-slate-500 dark:bg-slate-800/60 dark:text-slate-400", className)}>No agents in this department yet.</p>;
  }
  const chosen = new Set(selected);
  const sorted = [...agents].sort((a, b) => Number(b.isSquadLead) - Number(a.isSquadLead) || a.name.localeCompare(b.name));

  function toggle(key: string, on: boolean) {
    // Keep roster order, so the saved list doesn't depend on click order.
    onChange(sorted.filter((agent) => (agent.sessionKey === key ? on : chosen.has(agent.sessionKey))).map((agent) => agent.sessionKey));
  }

  return (
    // A group of checkboxes, not a list: `role="group"` on a <ul> would orphan its items.
    <div
      role="group"
      aria-labelledby={labelledBy}
      className={cn("max-h-48 divide-y divide-slate-100 overflow-y-auto rounded-lg ring-1 ring-slate-200 ring-inset dark:divide-slate-800 dark:ring-slate-700", className)}
    >
      {sorted.map((agent) => {
        const status = optionFor(AGENT_STATUS_OPTIONS, agent.status);
        return (
          <div key={agent._id}>
            <label className={cn("flex items-center gap-3 px-3 py-2", disabled ? "cursor-not-allowed opacity-60" : "cursor-pointer hover:bg-slate-50 dark:hover:bg-slate-800")}>
              <input
                type="checkbox"
                checked={chosen.has(agent.sessionKey)}
                disabled={disabled}
                onChange={(event) => toggle(agent.sessionKey, event.target.checked)}
                className="size-4 rounded border-slate-300 text-indigo-600 accent-indigo-600 dark:border-slate-600 dark:text-indigo-300"
              />
              <Avatar initials={initials(agent.name)} className="size-6" />
              <span className="min-w-0 flex-1">
                <span className="block truncate text-sm font-medium text-slate-900 dark:text-slate-100">{agent.name}</span>
                <span className="block truncate text-xs text-slate-500 dark:text-slate-400">
                  {agent.role} · {status.label}
                </span>
              </span>
            </label>
          </div>
        );
      })}
    </div>
  );
}
