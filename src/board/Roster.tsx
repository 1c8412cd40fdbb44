import { Avatar } from "../components/ui/Avatar";
import { Badge } from "../components/ui/Badge";
import { initials } from "./initials";
import { AGENT_STATUS_OPTIONS, optionFor } from "./options";
import type { RosterAgent } from "./types";

/** Lead first, then by name, so the roster reads the same on every load. */
function byLeadThenName(a: RosterAgent, b: RosterAgent): number {
  if (a.isSquadLead !== b.isSquadLead) return a.isSquadLead ? -1 : 1;
  return a.name.localeCompare(b.name);
}

/** The department's squad: who is on it and what each is doing. */
export function Roster({ agents }: { agents: RosterAgent[] }) {
  const sorted = [...agents].sort(byLeadThenName);
  return (
    <aside
      data-testid="roster"
      aria-labelledby="roster-heading"
      className="flex flex-col rounded-xl border border-slate-200 bg-white lg:max-h-full lg:w-60 lg:shrink-0 lg:self-start"
    >
      <header className="flex items-center justify-between border-b border-slate-100 px-4 py-3">
        <h2 id="roster-heading" className="text-sm font-semibold text-slate-700">
          Squad
        </h2>
        <span className="text-xs text-slate-500 tabular-nums">{agents.length}</span>
      </header>
      {sorted.length === 0 ? (
        <p className="px-4 py-6 text-center text-xs text-slate-500">No agents in this department yet.</p>
      ) : (
        <ul className="divide-y divide-slate-100 lg:overflow-y-auto">
          {sorted.map((agent) => {
            const status = optionFor(AGENT_STATUS_OPTIONS, agent.status);
            return (
              <li key={agent._id} className="flex items-center gap-3 px-4 py-2.5">
                <span className="relative">
                  <Avatar initials={initials(agent.name)} label={agent.name} className="size-8 text-xs" />
                  <span
                    aria-hidden="true"
                    className={`absolute -right-0.5 -bottom-0.5 size-2.5 rounded-full ring-2 ring-white ${status.className}`}
                  />
                </span>
                <div className="min-w-0 flex-1">
                  <p className="flex items-center gap-1.5 truncate text-sm font-medium text-slate-900">
                    {agent.name}
                    {agent.isSquadLead && <Badge className="bg-indigo-50 text-indigo-700 ring-indigo-600/20">Squad lead</Badge>}
                  </p>
                  <p className="truncate text-xs text-slate-500">
                    {agent.role} · <span>{status.label}</span>
                  </p>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </aside>
  );
}
