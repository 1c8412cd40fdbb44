import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { RunsTable } from "./RunsList";
import { tokenTotal } from "./runViews";

export type AgentOverviewData = FunctionReturnType<typeof api.runs.agentOverview>;

/** An agent's page body: role, tools, what it is on now, its run history and token totals. */
export function AgentOverviewView({ data, now, runHref }: { data: AgentOverviewData; now: number; runHref?: (runId: Id<"runs">) => string }) {
  return (
    <section aria-label={`${data.name}'s overview`} className="flex flex-col gap-4">
      <header>
        <h2 className="text-lg font-semibold text-slate-900 dark:text-slate-100">{data.name}</h2>
        <p className="text-sm text-slate-600 dark:text-slate-300">
          {data.role}
          {data.isSquadLead && " · squad lead"}
          {data.model !== undefined && ` · ${data.model}`}
        </p>
      </header>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-500 dark:text-slate-400">Tools</dt>
        <dd>{data.allowedTools.length === 0 ? "none" : data.allowedTools.join(", ")}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Working on</dt>
        <dd>{data.currentTask === null ? "nothing right now" : data.currentTask.title}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Tokens</dt>
        <dd>
          {tokenTotal(data.totals) ?? "none yet"} over {data.totals.runs} run{data.totals.runs === 1 ? "" : "s"}
        </dd>
      </dl>
      <RunsTable runs={data.runs} now={now} runHref={runHref} hideAgent />
    </section>
  );
}

function LiveAgentOverview({ agentId, now, runHref }: { agentId: Id<"agents">; now: number; runHref?: (runId: Id<"runs">) => string }) {
  const data = useQuery(api.runs.agentOverview, { agentId });
  return data === undefined ? <p className="text-sm text-slate-500 dark:text-slate-400">Loading…</p> : <AgentOverviewView data={data} now={now} runHref={runHref} />;
}

/** The agent page's data, live. */
export function AgentOverview(props: { agentId: Id<"agents">; now: number; runHref?: (runId: Id<"runs">) => string }) {
  return (
    <ErrorBoundary key={props.agentId}>
      <LiveAgentOverview {...props} />
    </ErrorBoundary>
  );
}
