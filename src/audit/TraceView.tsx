// One delegation's trace for admins: every step its correlation id spans (events.trace), oldest first, with links to its cards and runs.
import { useQuery } from "convex/react";
import { useMemo } from "react";
import { Link } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Badge } from "../components/ui/Badge";
import { SkeletonStack } from "../components/ui/Skeleton";
import { eventsPath, runsPath, taskPath } from "../shell/addresses";
import { formatStepTime, traceSteps } from "./trace";

const LINK = "font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300";

/** Whether the trace query takes this id (1 to 200 characters, as events.trace checks). */
export function isCorrelationId(value: string): boolean {
  return value.trim() !== "" && value.length <= 200;
}

/** The steps of `correlationId` in the department; "not found" when it spans nothing there (another department's id included). */
export function TraceView({ departmentId, slug, correlationId }: { departmentId: Id<"departments">; slug: string; correlationId: string }) {
  const valid = isCorrelationId(correlationId);
  const trace = useQuery(api.events.trace, valid ? { departmentId, correlationId } : "skip");
  const agents = useQuery(api.agents.list, { departmentId });
  const steps = useMemo(() => {
    if (trace === undefined) return undefined;
    const names = new Map((agents ?? []).map((a) => [a.sessionKey, a.name]));
    return traceSteps(trace, (key) => names.get(key) ?? key);
  }, [trace, agents]);
  // A card's title, as the delegation named it.
  const titles = useMemo(() => {
    const byTask = new Map<string, string>();
    for (const event of trace?.events ?? []) {
      const { task_id: taskId, title } = event.data;
      if (typeof taskId === "string" && typeof title === "string" && title !== "") byTask.set(taskId, title);
    }
    return byTask;
  }, [trace]);

  const heading = (
    <p className="text-sm text-slate-600 dark:text-slate-300">
      Correlation id <code className="font-mono text-xs break-all text-slate-800 dark:text-slate-100">{correlationId}</code>
    </p>
  );
  if (valid && steps === undefined) return <SkeletonStack label="Loading the trace…" blocks={["h-10", "h-10", "h-10"]} />;
  if (!valid || steps === undefined || steps.length === 0) {
    return (
      <div data-testid="trace-not-found" className="flex flex-col gap-2">
        {heading}
        <p className="text-sm text-slate-700 dark:text-slate-200">Trace not found: nothing in this department carries this correlation id.</p>
        <Link to={eventsPath(slug)} className={`text-sm ${LINK}`}>
          Back to the event log
        </Link>
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        {heading}
        <Link to={eventsPath(slug, correlationId)} className={`text-sm ${LINK}`}>
          These events in the event log
        </Link>
      </div>
      <ol data-testid="trace-steps" aria-label="Steps, oldest first" className="flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
        {steps.map((step) => (
          <li key={step.key} data-testid="trace-step" data-step-type={step.type} className="flex flex-wrap items-baseline gap-x-2 gap-y-1 py-2 text-sm">
            <time dateTime={new Date(step.at).toISOString()} className="w-40 shrink-0 text-xs text-slate-500 tabular-nums dark:text-slate-400">
              {formatStepTime(step.at)}
            </time>
            <span className="min-w-0 flex-1 text-slate-800 max-sm:order-last max-sm:basis-full dark:text-slate-200">
              <span className="font-semibold">{step.who}</span> {step.what}
              {(step.taskId !== undefined || step.runId !== undefined) && (
                <span className="ml-1 inline-flex flex-wrap gap-x-3">
                  {step.taskId !== undefined && (
                    <Link to={taskPath(slug, step.taskId)} className={`break-words ${LINK}`}>
                      {titles.has(step.taskId) ? `Card “${titles.get(step.taskId)}”` : "Open the card"}
                    </Link>
                  )}
                  {step.runId !== undefined && (
                    <Link to={runsPath(slug, step.runId)} className={LINK}>
                      Open the run
                    </Link>
                  )}
                </span>
              )}
            </span>
            <Badge className="ml-auto bg-slate-50 font-mono text-slate-600 ring-slate-500/20 dark:bg-slate-800/60 dark:text-slate-300">{step.type}</Badge>
          </li>
        ))}
      </ol>
    </div>
  );
}
