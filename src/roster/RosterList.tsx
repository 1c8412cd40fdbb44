import type { ReactNode } from "react";
import { Link } from "react-router";
import { initials } from "../board/initials";
import { AGENT_STATUS_OPTIONS, optionFor } from "../board/options";
import { Avatar } from "../components/ui/Avatar";
import { Badge } from "../components/ui/Badge";
import { Button } from "../components/ui/Button";
import { PlusIcon } from "../components/ui/icons";
import { SkeletonRows } from "../components/ui/Skeleton";
import { agentSlugOf } from "../shell/addresses";
import { WAITING_LABEL, waitingSentence, type WaitingItem } from "../shell/waiting";
import type { Agent } from "./types";

type Props = {
  /** `undefined` while loading. */
  agents: Agent[] | undefined;
  isAdmin: boolean;
  onNew: () => void;
  /** "Add A2A agent": an agent reached through its agent card (admins). */
  onAddA2a?: () => void;
  onEdit: (agent: Agent) => void;
  /** The agent page's address for an agent slug: names become links to it (inside the router). */
  agentHref?: (agentSlug: string) => string;
  /** Unread messages per agent session key (agents with none are absent); `more` past the counted bound. */
  unread?: ReadonlyMap<string, { unread: number; more: boolean }>;
  /** What each agent (by id) waits on a person for; agents waiting for nothing are absent. */
  waiting?: ReadonlyMap<string, readonly WaitingItem[]>;
  /** Shown to admins of a squad with no specialist: adds the demo specialists in one click. */
  specialists?: ReactNode;
};

/** Lead first, then by name, so the roster reads the same on every load. */
function byLeadThenName(a: Agent, b: Agent): number {
  if (a.isSquadLead !== b.isSquadLead) return a.isSquadLead ? -1 : 1;
  return a.name.localeCompare(b.name);
}

/**
 * The squad as pure props: each agent's avatar, name, role and live status,
 * with "New agent" and per-agent "Edit" for admins only.
 */
export function RosterList({ agents, isAdmin, onNew, onAddA2a, onEdit, agentHref, unread, waiting, specialists }: Props) {
  return (
    <RosterFrame
      count={agents?.length}
      action={
        isAdmin && (
          <span className="flex gap-1.5">
            {onAddA2a && (
              <Button variant="ghost" onClick={onAddA2a} className="px-2 py-1 text-xs">
                Add A2A agent
              </Button>
            )}
            <Button variant="secondary" onClick={onNew} className="gap-1 px-2 py-1 text-xs">
              <PlusIcon className="size-3.5" />
              New agent
            </Button>
          </span>
        )
      }
    >
      {agents === undefined ? (
        <RosterSkeleton />
      ) : agents.length === 0 ? (
        <>
          <p className="px-4 py-6 text-center text-xs text-slate-500 dark:text-slate-400">
            {isAdmin ? "No agents yet. Create the first one with New agent." : "No agents in this department yet."}
          </p>
          {isAdmin && specialists}
        </>
      ) : (
        <div className="min-h-0 lg:overflow-y-auto">
        <ul className="divide-y divide-slate-100 dark:divide-slate-800">
          {[...agents].sort(byLeadThenName).map((agent) => (
            <RosterRow
              key={agent._id}
              agent={agent}
              onEdit={isAdmin ? () => onEdit(agent) : undefined}
              agentHref={agentHref}
              unread={unread?.get(agent.sessionKey)}
              waiting={waiting?.get(agent._id)}
            />
          ))}
        </ul>
        {isAdmin && agents.every((agent) => agent.isSquadLead) && specialists}
        </div>
      )}
    </RosterFrame>
  );
}

type RowProps = Pick<Props, "agentHref"> & { agent: Agent; onEdit?: () => void; unread?: { unread: number; more: boolean }; waiting?: readonly WaitingItem[] };

function RosterRow({ agent, onEdit, agentHref, unread, waiting }: RowProps) {
  const status = optionFor(AGENT_STATUS_OPTIONS, agent.status);
  const slug = agentSlugOf(agent.sessionKey);
  // Names may be cut to fit the panel; the tooltip always has the whole of them.
  const name =
    agentHref ? (
      <Link
        to={agentHref(slug)}
        title={agent.name}
        data-testid="roster-agent-name"
        className="truncate hover:text-indigo-700 hover:underline dark:hover:text-indigo-300"
      >
        {agent.name}
      </Link>
    ) : (
      <span title={agent.name} data-testid="roster-agent-name" className="truncate">
        {agent.name}
      </span>
    );
  return (
    <li data-testid="roster-agent" className="flex items-center gap-3 px-4 py-2">
      <span className="relative">
        <Avatar initials={initials(agent.name)} className="size-8 text-xs" />
        <span
          aria-hidden="true"
          className={`absolute -right-0.5 -bottom-0.5 size-2.5 rounded-full ring-2 ring-white dark:ring-slate-900 ${status.className}`}
        />
      </span>
      <div className="min-w-0 flex-1">
        <p className="flex items-center gap-1.5 text-sm font-medium text-slate-900 dark:text-slate-100">
          {name}
          {agent.isSquadLead && (
            <Badge className="shrink-0 bg-indigo-50 text-indigo-700 ring-indigo-600/20 dark:bg-indigo-950/40 dark:text-indigo-300 dark:ring-indigo-400/30">Squad lead</Badge>
          )}
          {agent.a2aRemote !== undefined && (
            <Badge title={`Reached over A2A at ${agent.a2aRemote.endpointUrl}`} className="shrink-0 bg-teal-50 text-teal-700 ring-teal-600/20 dark:bg-teal-950/40 dark:text-teal-300 dark:ring-teal-400/30">
              A2A
            </Badge>
          )}
          {unread !== undefined && unread.unread > 0 && (
            <span
              data-testid="agent-unread"
              aria-label={`${agent.name} has ${unread.unread}${unread.more ? "+" : ""} unread`}
              title="Messages its runs have not seen yet"
              className="ml-auto shrink-0 rounded-full bg-indigo-600 px-1.5 text-xs text-white tabular-nums"
            >
              {unread.more ? `${unread.unread}+` : unread.unread}
            </span>
          )}
        </p>
        {/* The status goes under the role when both do not fit: the role is cut only when it alone is wider than the panel. */}
        <p className="flex flex-wrap items-center gap-x-2 text-xs text-slate-500 dark:text-slate-400">
          <span data-testid="roster-agent-role" className="max-w-full truncate" title={agent.role}>
            {agent.role}
          </span>
          {waiting !== undefined && waiting.length > 0 ? (
            // A paused run leaves its agent idle; what it waits for is what a person needs to know.
            <span
              data-testid="agent-waiting"
              title={waiting.map((item) => `${waitingSentence(item)} — ${item.taskTitle}`).join("\n")}
              className="inline-flex shrink-0 items-center gap-1 font-medium text-amber-800 dark:text-amber-200"
            >
              <span aria-hidden="true" className="size-1.5 rounded-full bg-amber-500" />
              {WAITING_LABEL[waiting[0].kind]}
              {waiting.length > 1 && ` +${waiting.length - 1}`}
            </span>
          ) : (
            <span data-testid="agent-status" className="inline-flex shrink-0 items-center gap-1">
              <span aria-hidden="true" className={`size-1.5 rounded-full ${status.className}`} />
              {status.label}
            </span>
          )}
        </p>
        {agent.a2aRemote !== undefined && agent.a2aRemote.skills.length > 0 && (
          <p data-testid="roster-agent-skills" className="truncate text-xs text-slate-500 dark:text-slate-400" title={agent.a2aRemote.skills.map((s) => `${s.name || s.id}: ${s.description}`).join("\n")}>
            Skills: {agent.a2aRemote.skills.map((s) => s.name || s.id).join(", ")}
          </p>
        )}
      </div>
      {onEdit && (
        <Button variant="ghost" onClick={onEdit} aria-label={`Edit ${agent.name}`} className="shrink-0 px-2 py-1 text-xs">
          Edit
        </Button>
      )}
    </li>
  );
}

/** The roster's card and header; the error fallback reuses it so the panel keeps its place. */
export function RosterFrame({ count, action, children }: { count?: number; action?: ReactNode; children: ReactNode }) {
  return (
    <aside
      data-testid="roster"
      aria-labelledby="roster-heading"
      className="flex min-h-0 flex-col rounded-xl border border-slate-200 bg-white lg:max-h-full dark:border-slate-700 dark:bg-slate-900"
    >
      <header className="flex items-center justify-between gap-2 border-b border-slate-100 px-4 py-3 dark:border-slate-800">
        <div className="flex items-baseline gap-2">
          <h2 id="roster-heading" className="text-sm font-semibold text-slate-700 dark:text-slate-200">
            Squad
          </h2>
          {count !== undefined && (
            <span data-testid="roster-count" className="text-xs text-slate-500 tabular-nums dark:text-slate-400">
              {count}
            </span>
          )}
        </div>
        {action}
      </header>
      {children}
    </aside>
  );
}

function RosterSkeleton() {
  return <SkeletonRows label="Loading squad…" count={4} avatar="size-8" rowClassName="items-center" lines={() => ["h-3 w-24", "h-2.5 w-32"]} />;
}
