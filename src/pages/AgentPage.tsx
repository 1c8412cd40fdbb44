// The agent route (`/d/:slug/agents/:agentSlug`): one agent's page, live.
import { useMutation, useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useEffect, useState, type ReactNode } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { initials } from "../board/initials";
import { AGENT_STATUS_OPTIONS, optionFor, STATUS_OPTIONS } from "../board/options";
import { PanelBoundary } from "../components/ErrorBoundary";
import { Avatar } from "../components/ui/Avatar";
import { Badge } from "../components/ui/Badge";
import { Button } from "../components/ui/Button";
import { InlineError } from "../components/ui/Field";
import { userMessage } from "../lib/errors";
import { isAdminRole } from "../shell/role";
import { Skeleton, SkeletonStack } from "../components/ui/Skeleton";
import { agentPath, agentSlugOf, departmentPath, runsPath, taskPath } from "../shell/addresses";
import { useDepartment } from "../shell/workspace";
import { RunsTable } from "../runs/RunsList";
import { formatUsd } from "../../convex/lib/pricing";
import { tokenTotal } from "../runs/runViews";
import { useNow } from "../lib/relativeTime";

export type AgentPageData = NonNullable<FunctionReturnType<typeof api.agents.getBySlug>>;

type Props = { departmentId: Id<"departments">; departmentSlug: string; agentSlug: string };

/** The agent the address names, in the department on screen; a failure shows inside the page's frame. */
export function AgentPage() {
  const { _id: departmentId, slug: departmentSlug } = useDepartment();
  const { agentSlug = "" } = useParams();
  return (
    <PanelBoundary key={agentSlug} frame={(error) => <AgentFrame departmentSlug={departmentSlug}>{error}</AgentFrame>}>
      <LiveAgentPage departmentId={departmentId} departmentSlug={departmentSlug} agentSlug={agentSlug} />
    </PanelBoundary>
  );
}

function LiveAgentPage({ departmentId, departmentSlug, agentSlug }: Props) {
  const data = useQuery(api.agents.getBySlug, { departmentId, agentSlug });
  const navigate = useNavigate();
  // `/agents/Writer` finds Writer; the address then shows the agent's own slug.
  const canonical = data ? agentSlugOf(data.agent.sessionKey) : agentSlug;
  useEffect(() => {
    if (canonical !== agentSlug) void navigate(agentPath(departmentSlug, canonical), { replace: true });
  }, [canonical, agentSlug, departmentSlug, navigate]);
  return (
    <AgentFrame departmentSlug={departmentSlug}>
      {data === undefined ? (
        <SkeletonStack label="Loading the agent…" className="p-5" blocks={["h-6 w-40", "h-4 w-64", "h-16 w-full"]} />
      ) : data === null ? (
        <p data-testid="agent-missing" className="p-5 text-sm text-slate-600 dark:text-slate-300">
          No agent at this address in this department. It may have been renamed or the link may be wrong.
        </p>
      ) : (
        <AgentDetails data={data} departmentSlug={departmentSlug} availability={<Availability agent={data.agent} />} />
      )}
    </AgentFrame>
  );
}

/**
 * For owners and admins: take the agent offline (no new run starts; the
 * squad lead sees it offline and delegates elsewhere) or bring it back.
 */
function Availability({ agent }: { agent: AgentPageData["agent"] }) {
  const { role } = useDepartment();
  const setStatus = useMutation(api.agents.setStatus);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!isAdminRole(role)) return null;
  const offline = agent.status === "offline";
  const change = () => {
    setBusy(true);
    setError(null);
    setStatus({ agentId: agent._id, status: offline ? "idle" : "offline" })
      .catch((e: unknown) => setError(userMessage(e)))
      .finally(() => setBusy(false));
  };
  return (
    <>
      <Button variant="secondary" disabled={busy} onClick={change} className="ml-3 px-2.5 py-1 text-xs">
        {offline ? "Bring back online" : "Take offline"}
      </Button>
      {offline && <span className="text-xs text-slate-500 dark:text-slate-400">No new runs start; the squad lead sees it offline.</span>}
      {error && <InlineError>{error}</InlineError>}
    </>
  );
}

/** The page as pure props: who the agent is, what it may do, what it is doing. */
export function AgentDetails({ data, departmentSlug, availability }: { data: AgentPageData; departmentSlug: string; availability?: ReactNode }) {
  const { agent, currentTask } = data;
  const status = optionFor(AGENT_STATUS_OPTIONS, agent.status);
  return (
    <div data-testid="agent-page" className="flex flex-col gap-6 p-5">
      <div className="flex items-center gap-4">
        <Avatar initials={initials(agent.name)} className="size-12 text-base" />
        <div className="min-w-0">
          <h1 className="flex flex-wrap items-center gap-2 text-lg font-semibold text-slate-900 dark:text-slate-100">
            <span className="break-words">{agent.name}</span>
            {agent.isSquadLead && <Badge className="bg-indigo-50 text-indigo-700 ring-indigo-600/20 dark:bg-indigo-950/40 dark:text-indigo-300 dark:ring-indigo-400/30">Squad lead</Badge>}
          </h1>
          <p className="text-sm text-slate-600 dark:text-slate-300">{agent.role}</p>
        </div>
      </div>
      <dl className="grid grid-cols-[8rem_1fr] gap-x-4 gap-y-3 text-sm">
        <dt className="text-slate-500 dark:text-slate-400">Status</dt>
        <dd data-testid="agent-page-status" className="inline-flex items-center gap-1.5 text-slate-900 dark:text-slate-100">
          <span aria-hidden="true" className={`size-2 rounded-full ${status.className}`} />
          <span>{status.label}</span>
          {availability}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Current task</dt>
        <dd data-testid="agent-current-task" className="min-w-0 text-slate-900 dark:text-slate-100">
          {currentTask === null ? (
            <span className="text-slate-500 dark:text-slate-400">None: not running now</span>
          ) : (
            <Link to={taskPath(departmentSlug, currentTask._id)} className="font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300">
              {currentTask.title}
            </Link>
          )}
          {currentTask !== null && (
            <span className="ml-2 text-xs text-slate-500 dark:text-slate-400">{optionFor(STATUS_OPTIONS, currentTask.status).label}</span>
          )}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Kind</dt>
        <dd className="text-slate-900 capitalize dark:text-slate-100">{agent.kind}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Model</dt>
        <dd className="font-mono text-xs text-slate-900 dark:text-slate-100">{agent.model ?? "The deployment's default"}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Session key</dt>
        <dd className="font-mono text-xs break-all text-slate-900 dark:text-slate-100">{agent.sessionKey}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Allowed tools</dt>
        <dd>
          {agent.allowedTools.length === 0 ? (
            <span className="text-slate-500 dark:text-slate-400">None</span>
          ) : (
            <ul data-testid="agent-tools" className="flex flex-wrap gap-1.5">
              {agent.allowedTools.map((tool) => (
                <li key={tool} className="rounded-md bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-200">
                  {tool}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      <AgentRuns agentId={agent._id} departmentSlug={departmentSlug} />
    </div>
  );
}

/** The agent's token totals and run history, each run one click from its timeline. */
function AgentRuns({ agentId, departmentSlug }: { agentId: Id<"agents">; departmentSlug: string }) {
  const now = useNow(30_000);
  const overview = useQuery(api.runs.agentOverview, { agentId });
  return (
    <section aria-label="Runs" className="flex flex-col gap-3">
      <h2 className="text-sm font-semibold text-slate-700 dark:text-slate-200">Runs</h2>
      {overview === undefined ? (
        <Skeleton className="h-16 w-full" />
      ) : (
        <>
          <p data-testid="agent-tokens" className="text-sm text-slate-600 dark:text-slate-300">
            {tokenTotal(overview.totals) ?? "No tokens used yet"} over {overview.totals.runs} run{overview.totals.runs === 1 ? "" : "s"}
          </p>
          <p data-testid="agent-cost" className="text-sm text-slate-600 dark:text-slate-300">
            Cost so far: {formatUsd(overview.totals.costMicros)}
          </p>
          <RunsTable runs={overview.runs} now={now} runHref={(runId) => runsPath(departmentSlug, runId)} hideAgent />
        </>
      )}
    </section>
  );
}

function AgentFrame({ departmentSlug, children }: { departmentSlug: string; children: ReactNode }) {
  return (
    <section className="flex min-h-0 min-w-0 flex-col rounded-xl border border-slate-200 bg-white lg:flex-1 lg:overflow-y-auto dark:border-slate-700 dark:bg-slate-900">
      <nav className="border-b border-slate-100 px-5 py-3 text-sm dark:border-slate-800">
        <Link to={departmentPath(departmentSlug)} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
          ← Board
        </Link>
      </nav>
      {children}
    </section>
  );
}
