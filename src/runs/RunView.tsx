import { useQuery } from "convex/react";
import { useMemo } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { optionFor } from "../board/options";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Badge } from "../components/ui/Badge";
import { isActive, RUN_STATUS_OPTIONS } from "../task/runs";
import { PauseCards } from "../task/PauseCards";
import { RunTimeline } from "./RunTimeline";
import { formatUsd } from "../../convex/lib/pricing";
import { triggerName, tokenTotal, type RunSummary } from "./runViews";
import { StopRunButton } from "./StopRunButton";
import { useRunEvents } from "./useRunEvents";

/** A run's header: task, agent, status, trigger, tokens and cost, and Stop while it is active. */
export function RunHeader({ run }: { run: RunSummary }) {
  const status = optionFor(RUN_STATUS_OPTIONS, run.status);
  const tokens = tokenTotal(run);
  const active = isActive(run);
  return (
    <header className="flex flex-wrap items-center gap-2">
      <h2 className="min-w-0 flex-1 truncate text-base font-semibold text-slate-900 dark:text-slate-100">
        {run.agentName} on “{run.title}”
      </h2>
      <Badge className={status.className}>{status.label}</Badge>
      <span className="text-xs text-slate-500 dark:text-slate-400">{triggerName(run.trigger)}</span>
      {tokens !== null && <span className="text-xs text-slate-500 dark:text-slate-400">{tokens}</span>}
      <span data-testid="run-cost" className="text-xs text-slate-500 dark:text-slate-400" title="What this run's model calls cost, at the department's prices">
        {formatUsd(run.costMicros)}
      </span>
      {active && <StopRunButton taskId={run.taskId} runId={run._id} />}
    </header>
  );
}

function LiveRun({ runId }: { runId: Id<"runs"> }) {
  const run = useQuery(api.runs.get, { runId });
  const { events, status, loadMore } = useRunEvents(runId);
  const paging = useMemo(() => ({ status, loadMore }), [status, loadMore]);
  if (run === undefined || status === "LoadingFirstPage") return <p className="text-sm text-slate-500 dark:text-slate-400">Loading the run…</p>;
  return (
    <section aria-label="Run" className="flex min-h-0 flex-1 flex-col gap-3">
      <RunHeader run={run} />
      {run.reason !== undefined && run.status !== "completed" && <p className="text-xs text-slate-600 dark:text-slate-300">{run.reason}</p>}
      <PauseCards taskId={run.taskId} runId={run._id} now={Date.now()} />
      {run.stepsDeletedAt !== undefined && <StepsDeletedNote at={run.stepsDeletedAt} />}
      <RunTimeline events={events} paging={paging} />
    </section>
  );
}

/** Where an old run's timeline went: the department's history retention deleted its steps (convex/retention.ts). */
export function StepsDeletedNote({ at }: { at: number }) {
  return (
    <p className="text-xs text-slate-600 dark:text-slate-300" data-testid="run-steps-deleted">
      This run’s steps were deleted on {new Date(at).toLocaleDateString("en", { dateStyle: "medium" })} by the department’s history retention (Settings →
      Retention); its reply, tool calls and cost are kept.
    </p>
  );
}

/** One run, live, rebuilt from its events. */
export function RunView({ runId }: { runId: Id<"runs"> }) {
  return (
    <ErrorBoundary key={runId}>
      <LiveRun runId={runId} />
    </ErrorBoundary>
  );
}
