import { useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { optionFor } from "../board/options";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Badge } from "../components/ui/Badge";
import { RUN_STATUS_OPTIONS } from "../task/runs";
import { triggerName, tokenTotal, type RunSummary } from "./runViews";
import { RelativeTime } from "../components/ui/RelativeTime";

type TableProps = {
  runs: readonly RunSummary[];
  now: number;
  /** Called with a run's id when its row is chosen (the UI opens `RunView`). */
  onOpenRun?: (runId: Id<"runs">) => void;
  /** Hide the agent column (an agent's own page). */
  hideAgent?: boolean;
};

/** Runs as a table: title, agent, status, trigger, last active, tokens. */
export function RunsTable({ runs, now, onOpenRun, hideAgent = false }: TableProps) {
  if (runs.length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">No runs yet.</p>;
  return (
    <table className="w-full text-left text-sm">
      <thead className="text-xs text-slate-500 dark:text-slate-400">
        <tr>
          <th className="py-1 font-medium">Task</th>
          {!hideAgent && <th className="py-1 font-medium">Agent</th>}
          <th className="py-1 font-medium">Status</th>
          <th className="py-1 font-medium">Trigger</th>
          <th className="py-1 font-medium">Last active</th>
          <th className="py-1 text-right font-medium">Tokens</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => {
          const status = optionFor(RUN_STATUS_OPTIONS, run.status);
          return (
            <tr key={run._id} data-testid="run-row" data-run-status={run.status} className="border-t border-slate-100 dark:border-slate-800">
              <td className="py-1.5 pr-2">
                {onOpenRun === undefined ? (
                  run.title
                ) : (
                  <button type="button" onClick={() => onOpenRun(run._id)} className="text-left text-indigo-700 hover:underline dark:text-indigo-300">
                    {run.title}
                  </button>
                )}
              </td>
              {!hideAgent && <td className="py-1.5 pr-2">{run.agentName}</td>}
              <td className="py-1.5 pr-2">
                <Badge className={status.className} title={run.reason}>
                  {status.label}
                </Badge>
              </td>
              <td className="py-1.5 pr-2 text-slate-600 dark:text-slate-300">{triggerName(run.trigger)}</td>
              <td className="py-1.5 pr-2 text-slate-600 dark:text-slate-300">
                <RelativeTime at={run.lastActiveAt} now={now} />
              </td>
              <td className="py-1.5 text-right text-slate-600 dark:text-slate-300">{tokenTotal(run) ?? "—"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

type Scope = { departmentId: Id<"departments">; agentId?: never } | { agentId: Id<"agents">; departmentId?: never };

function LiveRunsList({ scope, now, onOpenRun }: { scope: Scope; now: number; onOpenRun?: (runId: Id<"runs">) => void }) {
  const byDepartment = useQuery(api.runs.listForDepartment, scope.departmentId === undefined ? "skip" : { departmentId: scope.departmentId });
  const byAgent = useQuery(api.runs.listForAgent, scope.agentId === undefined ? "skip" : { agentId: scope.agentId });
  const runs = scope.departmentId === undefined ? byAgent : byDepartment;
  if (runs === undefined) return <p className="text-sm text-slate-500 dark:text-slate-400">Loading runs…</p>;
  return <RunsTable runs={runs} now={now} onOpenRun={onOpenRun} hideAgent={scope.agentId !== undefined} />;
}

/** A department's runs (pass `departmentId`) or one agent's (pass `agentId`), newest first, live. */
export function RunsList(props: Scope & { now: number; onOpenRun?: (runId: Id<"runs">) => void }) {
  const { now, onOpenRun, ...scope } = props;
  return (
    <ErrorBoundary key={scope.departmentId ?? scope.agentId}>
      <LiveRunsList scope={scope as Scope} now={now} onOpenRun={onOpenRun} />
    </ErrorBoundary>
  );
}
