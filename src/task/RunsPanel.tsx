import { useQuery } from "convex/react";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { Link } from "react-router";
import { api } from "../../convex/_generated/api";
import { formatUsd } from "../../convex/lib/pricing";
import type { Id } from "../../convex/_generated/dataModel";
import { optionFor } from "../board/options";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Badge } from "../components/ui/Badge";
import { Button } from "../components/ui/Button";
import { cn } from "../lib/cn";
import { userMessage } from "../lib/errors";
import { StopRunButton } from "../runs/StopRunButton";
import {
  describeToolCall,
  executorWaitNote,
  extraGuards,
  formatTokens,
  isActive,
  notableReason,
  outcomeOption,
  RUN_STATUS_OPTIONS,
  runDuration,
  runHeadline,
  splitRuns,
  toolCallsFromEvents,
  triggerLabel,
  type RunView,
  type ToolCallView,
} from "./runs";
import { RelativeTime } from "../components/ui/RelativeTime";

/** Longest argument JSON a tool call's tooltip repeats. */
const TOOLTIP_ARGS_CHARS = 300;

type PanelProps = {
  /** Newest first, as `runs.listForTask` returns them. */
  runs: readonly RunView[];
  /** The time relative times are measured from. */
  now: number;
  /** What every run of the task has cost (micro-dollars), when known. */
  costMicros?: number;
  /** The address of a run's own page, when the panel links to it. */
  runHref?: (runId: Id<"runs">) => string;
};

/**
 * "Agent activity": what agents are doing on this task and what their recent
 * runs did, newest first. Renders nothing while the task has no runs.
 */
export function RunsPanel({ runs, now, costMicros, runHref }: PanelProps) {
  const [showEarlier, setShowEarlier] = useState(false);
  const earlierId = useId();
  if (runs.length === 0) return null;
  const { recent, earlier } = splitRuns(runs);

  return (
    <section aria-label="Agent activity" className="flex flex-col gap-3 border-t border-slate-100 pt-5 dark:border-slate-800">
      <div className="flex items-baseline justify-between gap-2">
        <h3 className="text-sm font-semibold text-slate-700 dark:text-slate-200">Agent activity</h3>
        {costMicros !== undefined && (
          <span data-testid="task-cost" className="text-xs text-slate-500 dark:text-slate-400" title="What agents' runs on this task have cost">
            Cost {formatUsd(costMicros)}
          </span>
        )}
      </div>
      <ol className="flex flex-col gap-2">
        {recent.map((run) => (
          <RunItem key={run._id} run={run} now={now} runHref={runHref} />
        ))}
      </ol>
      {earlier.length > 0 && (
        <>
          <Button
            variant="ghost"
            aria-expanded={showEarlier}
            aria-controls={earlierId}
            onClick={() => setShowEarlier((shown) => !shown)}
            className="self-start px-2 py-1 text-xs"
          >
            {showEarlier ? "Hide earlier runs" : `Show earlier runs (${earlier.length})`}
          </Button>
          {/* Earlier runs subscribe to their events only once shown. */}
          <ol id={earlierId} hidden={!showEarlier} className="flex flex-col gap-2">
            {showEarlier && earlier.map((run) => <RunItem key={run._id} run={run} now={now} runHref={runHref} />)}
          </ol>
        </>
      )}
    </section>
  );
}

function RunItem({ run, now, runHref }: { run: RunView; now: number; runHref?: (runId: Id<"runs">) => string }) {
  const active = isActive(run);
  const status = optionFor(RUN_STATUS_OPTIONS, run.status);
  const reason = notableReason(run);
  const guards = extraGuards(run);
  const tokens = formatTokens(run);
  const duration = runDuration(run);
  const executorWait = executorWaitNote(run, now);
  const details = [
    run.model && <span key="model">{run.model}</span>,
    tokens && (
      <span key="tokens" title={`${run.promptTokens.toLocaleString("en")} prompt + ${run.completionTokens.toLocaleString("en")} completion`}>
        {tokens}
      </span>
    ),
    run.costMicros !== undefined && run.costMicros > 0 && <span key="cost">{formatUsd(run.costMicros)}</span>,
    duration && <span key="duration">{duration}</span>,
    run.iterations > 1 && <span key="iterations">{run.iterations} model calls</span>,
  ].filter(Boolean);

  return (
    <li
      data-testid="run"
      data-run-status={run.status}
      className={cn("flex flex-col gap-2 rounded-lg border px-3 py-2.5", active ? "border-indigo-200 bg-indigo-50/40 dark:border-indigo-800 dark:bg-indigo-950/40" : "border-slate-200 bg-slate-50/60 dark:border-slate-700 dark:bg-slate-800/60")}
    >
      <div className="flex items-center gap-2">
        {run.status === "running" && <ThinkingDots />}
        {run.status === "queued" && <span aria-hidden="true" className="size-2 shrink-0 rounded-full bg-slate-400 motion-safe:animate-pulse" />}
        {/* The live region that announces a run is beside the composer (RunsNow); this is its record. */}
        <p data-testid="run-headline" className="min-w-0 flex-1 text-sm font-medium text-slate-800 dark:text-slate-200">
          {runHeadline(run)} <span className="font-normal text-slate-500 dark:text-slate-400">{triggerLabel(run.trigger)}</span>
        </p>
        {/* An active run's Stop sits beside the composer (RunsNow), where the reader is. */}
        {!active && <Badge className={status.className}>{status.label}</Badge>}
        <RelativeTime at={run._creationTime} now={now} className="shrink-0 text-xs text-slate-500 dark:text-slate-400" />
      </div>

      {executorWait !== null && (
        <p data-testid="executor-wait" className="text-xs text-amber-700 dark:text-amber-300">
          {executorWait}
        </p>
      )}

      <RunToolCalls runId={run._id} ended={!active} href={runHref?.(run._id)} />

      {reason && <p className={cn("text-xs", run.status === "error" ? "text-rose-700 dark:text-rose-300" : "text-amber-700 dark:text-amber-300")}>{reason}</p>}
      {guards.map((guard) => (
        <p key={guard} className="text-xs text-amber-700 dark:text-amber-300">
          Guard: {guard}
        </p>
      ))}

      {details.length > 0 && (
        <p className="flex flex-wrap gap-x-2 text-[11px] text-slate-500 [&>span+span]:before:mr-2 [&>span+span]:before:content-['·'] dark:text-slate-400">{details}</p>
      )}
    </li>
  );
}

/**
 * A run's tool calls, live from its event stream (runEvents.toolCallsForRun):
 * a call appears when it starts and gets its outcome when its result is
 * written. The newest calls of a long run show here; its page has them all.
 */
function RunToolCalls({ runId, ended, href }: { runId: Id<"runs">; ended: boolean; href?: string }) {
  const stream = useQuery(api.runEvents.toolCallsForRun, { runId });
  const calls = useMemo(() => (stream === undefined ? [] : toolCallsFromEvents(stream.events, ended)), [stream, ended]);
  if (calls.length === 0) return null;
  return (
    <>
      {stream?.more === true && (
        <p className="flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-300">
          <span>The latest {calls.length} tool calls of this run.</span>
          {href !== undefined && (
            <Link to={href} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
              See them all
            </Link>
          )}
        </p>
      )}
      <ul aria-label="Tool calls" className="flex flex-col gap-1">
        {calls.map((call) => (
          <ToolCallLine key={call.index} call={call} />
        ))}
      </ul>
    </>
  );
}

function ToolCallLine({ call }: { call: ToolCallView }) {
  const outcome = outcomeOption(call.outcome);
  const args = call.args.length > TOOLTIP_ARGS_CHARS ? `${call.args.slice(0, TOOLTIP_ARGS_CHARS)}…` : call.args;
  return (
    <li data-outcome={call.outcome} title={`${call.name} ${args}`} className="flex items-start gap-2 text-xs leading-5">
      <span aria-hidden="true" className={cn("w-4 shrink-0 text-center", outcome.className)}>
        {outcome.icon}
      </span>
      <span className="sr-only">{outcome.label}: </span>
      <span className="min-w-0 break-words text-slate-700 dark:text-slate-200">{describeToolCall(call)}</span>
    </li>
  );
}

/** Three dots taking turns, for a run that is thinking; still when the reader prefers less motion. */
function ThinkingDots() {
  return (
    <span aria-hidden="true" className="flex shrink-0 items-center gap-0.5">
      {[0, 150, 300].map((delay) => (
        <span key={delay} className="size-1.5 rounded-full bg-indigo-500 motion-safe:animate-bounce" style={{ animationDelay: `${delay}ms` }} />
      ))}
    </span>
  );
}

/**
 * The live "Agent activity" for a task. It sits under its own error boundary
 * so a failure here leaves the rest of the drawer usable.
 */
export function AgentActivity({ taskId, now, runHref }: { taskId: Id<"tasks">; now: number; runHref?: (runId: Id<"runs">) => string }) {
  return (
    <ErrorBoundary
      key={taskId}
      fallback={(error, retry) => (
        <div role="alert" className="flex items-center gap-2 border-t border-slate-100 pt-5 text-xs text-slate-600 dark:border-slate-800 dark:text-slate-300">
          <span className="flex-1">Agent activity is unavailable: {userMessage(error)}</span>
          <Button variant="secondary" onClick={retry} className="px-2 py-1 text-xs">
            Try again
          </Button>
        </div>
      )}
    >
      <LiveRuns taskId={taskId} now={now} runHref={runHref} />
    </ErrorBoundary>
  );
}

function LiveRuns({ taskId, now, runHref }: { taskId: Id<"tasks">; now: number; runHref?: (runId: Id<"runs">) => string }) {
  const runs = useQuery(api.runs.listForTask, { taskId });
  const cost = useQuery(api.costs.ofTask, { taskId });
  // Nothing while loading, as when there are no runs: the section only appears once there is activity.
  if (runs === undefined) return null;
  return <RunsPanel runs={runs} now={now} costMicros={cost} runHref={runHref} />;
}

/** What one active run shows beside the composer. */
export type RunNow = Pick<RunView, "_id" | "agentName" | "status" | "reason" | "waitingOnTool"> & {
  /** The reply streamed so far ("" before the first word). */
  text: string;
};

/** The task's active runs, oldest first, with what each has streamed. */
export function runsNow(runs: readonly RunView[], streams: ReadonlyArray<{ runId: Id<"runs">; text: string }>): RunNow[] {
  const texts = new Map(streams.map((stream) => [stream.runId as string, stream.text]));
  return runs
    .filter(isActive)
    .reverse()
    .map((run) => ({ _id: run._id, agentName: run.agentName, status: run.status, reason: run.reason, waitingOnTool: run.waitingOnTool, text: texts.get(run._id) ?? "" }));
}

/**
 * A run's life where the reader is, as chat apps show it: beside the
 * composer, each active run's "is thinking…" (or "is typing…" once text
 * streams, with the text so far) and its Stop. Renders nothing when no agent
 * is at work on the task.
 */
export function RunsNowView({ runs, taskId }: { runs: readonly RunNow[]; taskId: Id<"tasks"> }) {
  if (runs.length === 0) return null;
  return (
    <ul aria-label="Agents at work" data-testid="runs-now" className="flex flex-col gap-2">
      {runs.map((run) => (
        <RunNowItem key={run._id} run={run} taskId={taskId} />
      ))}
    </ul>
  );
}

function RunNowItem({ run, taskId }: { run: RunNow; taskId: Id<"tasks"> }) {
  const textRef = useRef<HTMLParagraphElement>(null);
  // The newest words stay in view as the reply grows.
  useEffect(() => {
    const box = textRef.current;
    if (box !== null) box.scrollTop = box.scrollHeight;
  }, [run.text]);
  const typing = run.status === "running" && run.text !== "";
  const headline = typing ? `${run.agentName} is typing…` : runHeadline(run);
  return (
    <li
      data-testid="run-now"
      data-run-status={run.status}
      className="flex flex-col gap-1 rounded-lg border border-indigo-200 bg-indigo-50/60 px-3 py-2 dark:border-indigo-800 dark:bg-indigo-950/40"
    >
      <div className="flex items-center gap-2">
        {run.status === "running" && <ThinkingDots />}
        {run.status === "queued" && <span aria-hidden="true" className="size-2 shrink-0 rounded-full bg-slate-400 motion-safe:animate-pulse" />}
        <p role="status" aria-live="polite" className="min-w-0 flex-1 text-xs font-medium text-indigo-800 dark:text-indigo-200">
          {headline}
        </p>
        <StopRunButton taskId={taskId} runId={run._id} />
      </div>
      {typing && (
        <p ref={textRef} data-testid="typing" tabIndex={0} className="max-h-24 overflow-y-auto whitespace-pre-wrap break-words text-sm text-slate-700 dark:text-slate-200">
          {run.text}
        </p>
      )}
    </li>
  );
}

function LiveRunsNow({ taskId }: { taskId: Id<"tasks"> }) {
  const runs = useQuery(api.runs.listForTask, { taskId });
  const streams = useQuery(api.runs.streamingForTask, { taskId });
  const now = useMemo(() => (runs === undefined ? [] : runsNow(runs, streams ?? [])), [runs, streams]);
  return <RunsNowView runs={now} taskId={taskId} />;
}

/** The task's active runs beside the composer, live; a failure here hides them and leaves the composer alone. */
export function RunsNow({ taskId }: { taskId: Id<"tasks"> }) {
  return (
    <ErrorBoundary key={taskId} fallback={() => null}>
      <LiveRunsNow taskId={taskId} />
    </ErrorBoundary>
  );
}
