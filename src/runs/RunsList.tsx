import { useQuery } from "convex/react";
import { Link } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { optionFor } from "../board/options";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { cn } from "../lib/cn";
import { Badge } from "../components/ui/Badge";
import { RUN_STATUS_OPTIONS } from "../task/runs";
import { triggerName, tokenTotal, type RunSummary } from "./runViews";
import { RelativeTime } from "../components/ui/RelativeTime";

type TableProps = {
  runs: readonly RunSummary[];
  now: number;
  /** The address of a run's timeline: each run's title links there (a real link: middle-click, copy, open in a tab). */
  runHref?: (runId: Id<"runs">) => string;
  /** Hide the agent column (an agent's own page). */
  hideAgent?: boolean;
};

// Below `sm` a row is a card: the header row is only for screen readers and each cell names itself.
const CELL = "py-1.5 pr-2 max-sm:flex max-sm:gap-2 max-sm:p-0 max-sm:before:w-24 max-sm:before:shrink-0 max-sm:before:text-xs max-sm:before:text-slate-500 max-sm:before:content-[attr(data-label)] dark:max-sm:before:text-slate-400";

/** Runs as a table: title, agent, status, trigger, last active, tokens; on a phone, one card per run. */
export function RunsTable({ runs, now, runHref, hideAgent = false }: TableProps) {
  if (runs.length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">No runs yet.</p>;
  return (
    <table data-testid="runs-table" className="w-full text-left text-sm max-sm:block">
      <thead className="text-xs text-slate-500 max-sm:sr-only dark:text-slate-400">
        <tr>
          <th className="py-1 font-medium">Task</th>
          {!hideAgent && <th className="py-1 font-medium">Agent</th>}
          <th className="py-1 font-medium">Status</th>
          <th className="py-1 font-medium">Trigger</th>
          <th className="py-1 font-medium">Last active</th>
          <th className="py-1 text-right font-medium">Tokens</th>
        </tr>
      </thead>
      <tbody className="max-sm:flex max-sm:flex-col max-sm:gap-2">
        {runs.map((run) => {
          const status = optionFor(RUN_STATUS_OPTIONS, run.status);
          return (
            <tr
              key={run._id}
              data-testid="run-row"
              data-run-status={run.status}
              className="border-t border-slate-100 max-sm:flex max-sm:flex-col max-sm:gap-1 max-sm:rounded-lg max-sm:border max-sm:p-3 dark:border-slate-800"
            >
              <td className="py-1.5 pr-2 max-sm:p-0 max-sm:font-medium">
                {runHref === undefined ? (
                  run.title
                ) : (
                  <Link to={runHref(run._id)} className="text-indigo-700 hover:underline dark:text-indigo-300">
                    {run.title}
                  </Link>
                )}
              </td>
              {!hideAgent && (
                <td data-label="Agent" className={CELL}>
                  {run.agentName}
                </td>
              )}
              <td data-label="Status" className={CELL}>
                <Badge className={status.className} title={run.reason}>
                  {status.label}
                </Badge>
              </td>
              <td data-label="Trigger" className={cn(CELL, "text-slate-600 dark:text-slate-300")}>
                {triggerName(run.trigger)}
              </td>
              <td data-label="Last active" className={cn(CELL, "text-slate-600 dark:text-slate-300")}>
                <RelativeTime at={run.lastActiveAt} now={now} />
              </td>
              <td data-label="Tokens" className={cn(CELL, "text-right text-slate-600 sm:pr-0 dark:text-slate-300")}>
                {tokenTotal(run) ?? "—"}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

type Scope = { departmentId: Id<"departments">; agentId?: never } | { agentId: Id<"agents">; departmentId?: never };

function LiveRunsList({ scope, now, runHref }: { scope: Scope; now: number; runHref?: (runId: Id<"runs">) => string }) {
  const byDepartment = useQuery(api.runs.listForDepartment, scope.departmentId === undefined ? "skip" : { departmentId: scope.departmentId });
  const byAgent = useQuery(api.runs.listForAgent, scope.agentId === undefined ? "skip" : { agentId: scope.agentId });
  const runs = scope.departmentId === undefined ? byAgent : byDepartment;
  if (runs === undefined) return <p className="text-sm text-slate-500 dark:text-slate-400">Loading runs…</p>;
  return <RunsTable runs={runs} now={now} runHref={runHref} hideAgent={scope.agentId !== undefined} />;
}

/** A department's runs (pass `departmentId`) or one agent's (pass `agentId`), newest first, live. */
export function RunsList(props: Scope & { now: number; runHref?: (runId: Id<"runs">) => string }) {
  const { now, runHref, ...scope } = props;
  return (
    <ErrorBoundary key={scope.departmentId ?? scope.agentId}>
      <LiveRunsList scope={scope as Scope} now={now} runHref={runHref} />
    </ErrorBoundary>
  );
}
