// A delegation's trace in words: its events and runs (events.trace) as one list of steps, oldest first.
import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";
import { actorLabel, eventSummary } from "./eventLog";

export type Trace = FunctionReturnType<typeof api.events.trace>;

/** One step: when, who, what, and the card and run it is about (ids, when it names them). */
export type TraceStep = {
  key: string;
  at: number;
  kind: "event" | "run";
  /** The event's type (`a2a.delegate`, `messaging.posted`, …) or "run". */
  type: string;
  who: string;
  what: string;
  taskId?: string;
  runId?: string;
};

/** What a run's status reads as in a trace. */
const RUN_WORDS: Record<string, string> = {
  queued: "is queued to work on the card",
  running: "is working on the card",
  waiting: "is waiting on the card",
  completed: "worked on the card",
  error: "worked on the card and failed",
  aborted: "was stopped working on the card",
};

/**
 * The trace's steps in time order (a run at its start): each event in the
 * event log's words, each run as its agent's work on its card. `agentName`
 * names an agent by its session key (its key when it is gone).
 */
export function traceSteps(trace: Trace, agentName: (sessionKey: string) => string): TraceStep[] {
  const events: TraceStep[] = trace.events.map((event) => {
    const taskId = typeof event.data.task_id === "string" ? event.data.task_id : undefined;
    return {
      key: event._id,
      at: event._creationTime,
      kind: "event",
      type: event.type,
      who: actorLabel(event.actor),
      what: eventSummary(event),
      ...(taskId === undefined ? {} : { taskId }),
    };
  });
  const runs: TraceStep[] = trace.runs.map((run) => ({
    key: run.runId,
    at: run.createdAt,
    kind: "run",
    type: "run",
    who: agentName(run.agentSessionKey),
    what: RUN_WORDS[run.status] ?? `ran on the card (${run.status.replace(/_/g, " ")})`,
    taskId: run.taskId,
    runId: run.runId,
  }));
  return [...events, ...runs].sort((a, b) => a.at - b.at);
}

/** The correlation id of the delegation that made a card (convex/reactions/a2a: `a2a:<taskId>`). */
export function cardCorrelationId(taskId: string): string {
  return `a2a:${taskId}`;
}

const stepTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** When a step happened, to the second (a delegation's steps are seconds apart). */
export function formatStepTime(at: number): string {
  return stepTime.format(at);
}
