import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";
import type { RunEvent } from "../../convex/lib/runEvents";
import { replayRun } from "../../convex/lib/runTimeline";
import type { ToolCallRecord } from "../../convex/validators";
import { listOf } from "../activity/describe";
import { STATUS_OPTIONS, type Option } from "../board/options";
import { BADGE_TONES } from "../components/ui/Badge";

/** One run as `runs.listForTask` returns it. */
export type RunView = FunctionReturnType<typeof api.runs.listForTask>[number];
export type RunStatus = RunView["status"];
/** What a tool call came to; `pending` while it runs or waits (for a person, or for an external tool's output). */
export type ToolCallOutcome = ToolCallRecord["outcome"] | "pending";
/** One tool call of a run, replayed from its `tool_call` / `tool_result` events. */
export interface ToolCallView {
  /** The call's `tool_call` index within its run. */
  index: number;
  name: string;
  args: string;
  outcome: ToolCallOutcome;
  observation: string;
}

/** Runs shown in full; older ones wait behind "Show earlier runs". */
export const RECENT_RUNS_SHOWN = 3;

/** The reason a run ends with when it simply answered; not worth showing. */
const PLAIN_REASON = "replied";

/** How each tool call outcome reads. `className` colours the icon. */
export const OUTCOME_OPTIONS: ReadonlyArray<Option<ToolCallOutcome> & { icon: string }> = [
  { value: "ok", label: "Done", icon: "✓", className: "text-emerald-600 dark:text-emerald-300" },
  { value: "denied", label: "Permission denied", icon: "⊘", className: "text-rose-600 dark:text-rose-300" },
  { value: "invalid", label: "Invalid call", icon: "⚠", className: "text-amber-600 dark:text-amber-300" },
  { value: "error", label: "Failed", icon: "⚠", className: "text-rose-600 dark:text-rose-300" },
  { value: "refused", label: "Stopped by a guard", icon: "■", className: "text-amber-600 dark:text-amber-300" },
  { value: "pending", label: "Under way", icon: "…", className: "text-indigo-600 dark:text-indigo-300" },
];

/** Run statuses. `className` colours the badge. */
export const RUN_STATUS_OPTIONS: ReadonlyArray<Option<RunStatus>> = [
  { value: "queued", label: "Queued", className: BADGE_TONES.neutral },
  { value: "running", label: "Running", className: BADGE_TONES.busy },
  { value: "waiting", label: "Waiting", className: BADGE_TONES.attention },
  { value: "completed", label: "Completed", className: BADGE_TONES.success },
  { value: "error", label: "Error", className: BADGE_TONES.failure },
  { value: "aborted", label: "Aborted", className: BADGE_TONES.ended },
];

/** What woke the agent, as a short phrase after the headline. */
const TRIGGER_LABELS: Record<RunView["trigger"]["kind"], string> = {
  assigned: "after being assigned",
  mentioned: "after a mention",
  delegation_result: "after a delegated task reported back",
  answer: "after a human answered",
  message: "after a message",
  nudge: "to review what arrived while it worked",
};

/** Queued, running and waiting runs are still in progress (Stop applies). */
export function isActive(run: Pick<RunView, "status">): boolean {
  return run.status === "queued" || run.status === "running" || run.status === "waiting";
}

/** "Jarvis is thinking…", "Jarvis replied": the run's one-line headline. */
export function runHeadline(run: Pick<RunView, "agentName" | "status" | "reason" | "waitingOnTool">): string {
  const who = run.agentName;
  switch (run.status) {
    case "queued":
      return `${who} is queued…`;
    case "running":
      return `${who} is thinking…`;
    case "waiting":
      return run.waitingOnTool === undefined ? `${who} is waiting for a person` : `${who} is waiting for ${run.waitingOnTool}'s output`;
    case "completed":
      return run.reason === undefined || run.reason === PLAIN_REASON ? `${who} replied` : `${who} finished`;
    case "error":
      return `${who} could not finish`;
    case "aborted":
      return `${who} stopped`;
  }
}

/**
 * For a run waiting on an external tool's call: that an outside executor must
 * answer it, and when the call times out ("expires in 9 min"); null otherwise.
 */
export function executorWaitNote(run: Pick<RunView, "status" | "waitingOnTool" | "waitingExpiresAt">, now: number): string | null {
  if (run.status !== "waiting" || run.waitingOnTool === undefined || run.waitingExpiresAt === undefined) return null;
  const left = run.waitingExpiresAt - now;
  const when = left <= 0 ? "expires now" : left < 60_000 ? "expires in under a minute" : `expires in ${Math.ceil(left / 60_000)} min`;
  return `Waits for an outside executor to run ${run.waitingOnTool}; the call ${when}.`;
}

/** The phrase for what started the run, e.g. "after a mention". */
export function triggerLabel(trigger: RunView["trigger"]): string {
  return TRIGGER_LABELS[trigger.kind];
}

/** Why the run ended, when that is more than "it replied"; null otherwise. */
export function notableReason(run: Pick<RunView, "reason">): string | null {
  const reason = run.reason?.trim();
  return reason === undefined || reason === "" || reason === PLAIN_REASON ? null : reason;
}

/** Loop guards the run hit that its reason does not already say. */
export function extraGuards(run: Pick<RunView, "reason" | "guards">): string[] {
  const reason = notableReason(run);
  return run.guards.filter((guard) => guard !== reason);
}

/** "1,234 tokens", or null before the first model call. */
export function formatTokens(run: Pick<RunView, "promptTokens" | "completionTokens">): string | null {
  const total = run.promptTokens + run.completionTokens;
  if (total <= 0) return null;
  return `${total.toLocaleString("en")} ${total === 1 ? "token" : "tokens"}`;
}

/** "850 ms", "3.2 s", "42 s", "2 min 5 s": how long `ms` milliseconds is. */
export function formatDuration(ms: number): string {
  const elapsed = Math.max(0, Math.round(ms));
  if (elapsed < 1000) return `${elapsed} ms`;
  if (elapsed < 10_000) return `${(elapsed / 1000).toFixed(1)} s`;
  const seconds = Math.round(elapsed / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

/** How long a finished run took from start (or, if it never started, from being queued) to end; null while it runs. */
export function runDuration(run: Pick<RunView, "_creationTime" | "startedAt" | "endedAt">): string | null {
  if (run.endedAt === undefined) return null;
  return formatDuration(run.endedAt - (run.startedAt ?? run._creationTime));
}

/** The newest `shown` runs and the rest; `runs` is newest first. */
export function splitRuns<T>(runs: readonly T[], shown = RECENT_RUNS_SHOWN): { recent: T[]; earlier: T[] } {
  return { recent: runs.slice(0, shown), earlier: runs.slice(shown) };
}

// Runs recorded before the JSON result: `[DELEGATED_TASK] created “Title” (taskId) assigned to A, B; the first instruction …`
const DELEGATED = /^\[DELEGATED_TASK\] created “(.+)” \([^)]*\) assigned to (.+?);/s;
// `moved the task from in_progress to review` / `the task was already review`
const MOVED = /^moved the task from (\w+) to (\w+)$/;
const ALREADY = /^the task was already (\w+)$/;

/**
 * A delegate_task result: the spec's JSON (`{ok, taskId, title,
 * assigneesResolved, …}`), or the prose of runs recorded before it.
 */
function delegationOf(observation: string): { title: string; assignees: string[]; existed: boolean } | null {
  if (observation.startsWith("{")) {
    try {
      const json = JSON.parse(observation) as { ok?: unknown; title?: unknown; assigneesResolved?: unknown; alreadyExisted?: unknown };
      if (json.ok !== true || typeof json.title !== "string") return null;
      const assignees = Array.isArray(json.assigneesResolved) ? json.assigneesResolved.filter((n): n is string => typeof n === "string") : [];
      return { title: json.title, assignees, existed: json.alreadyExisted === true };
    } catch {
      return null;
    }
  }
  const prose = DELEGATED.exec(observation);
  if (prose === null) return null;
  return { title: prose[1], assignees: prose[2].split(",").map((name) => name.trim()).filter(Boolean), existed: false };
}

/** Longest quoted argument a tool call line repeats. */
const PREVIEW_CHARS = 80;

/**
 * The sentence a tool call line shows: a friendly summary for the results the
 * dispatcher words in a known way ("Delegated “Hero copy” to Dev Bot"), else
 * the observation itself, named by its tool when the text does not say which.
 */
export function describeToolCall(call: Pick<ToolCallView, "name" | "args" | "outcome" | "observation">): string {
  if (call.outcome === "pending") return `Calling ${call.name}…`;
  const observation = call.observation.trim();
  if (call.outcome !== "ok") return observation.includes(call.name) ? observation : `${call.name}: ${observation}`;

  const delegated = call.name === "delegate_task" ? delegationOf(observation) : null;
  if (delegated !== null) {
    const { title, assignees, existed } = delegated;
    if (existed) return `“${title}” was already delegated${assignees.length > 0 ? ` to ${listOf(assignees)}` : ""}; nothing new was created`;
    return assignees.length > 0 ? `Delegated “${title}” to ${listOf(assignees)}` : `Delegated “${title}”`;
  }
  const moved = MOVED.exec(observation);
  if (call.name === "update_task_status" && moved !== null) return `Moved the task from ${statusLabel(moved[1])} to ${statusLabel(moved[2])}`;
  const already = ALREADY.exec(observation);
  if (call.name === "update_task_status" && already !== null) return `Left the task in ${statusLabel(already[1])}`;
  if (call.name === "post_message") {
    const content = preview(argument(call.args, "content"));
    return content === undefined ? "Posted in the thread" : `Posted in the thread: “${content}”`;
  }
  if (call.name === "ask_question") {
    const question = preview(argument(call.args, "question"));
    return question === undefined ? "Asked the humans a question; the task is blocked until one answers" : `Asked: “${question}” (the task is blocked until a human answers)`;
  }
  return `${call.name}: ${observation}`;
}

/**
 * A run's tool calls, in order, from its events (the stream is the record:
 * a call shows as soon as its `tool_call` is written, its outcome once its
 * `tool_result` is; once the run has ended, a call with no result failed).
 */
export function toolCallsFromEvents(events: ReadonlyArray<Pick<RunEvent, "seq" | "timestamp" | "payload">>, runEnded = false): ToolCallView[] {
  const calls: ToolCallView[] = [];
  for (const item of replayRun(events).items) {
    if (item.kind !== "tool") continue;
    if (item.result !== undefined) {
      calls.push({ index: item.index, name: item.name, args: item.args, outcome: item.result.outcome as ToolCallRecord["outcome"], observation: item.result.observation });
    } else {
      // A call without a result in a run that has ended will not get one: it is not "under way".
      calls.push({ index: item.index, name: item.name, args: item.args, ...(runEnded ? { outcome: "error", observation: UNFINISHED } : { outcome: "pending", observation: "" }) });
    }
  }
  return calls;
}

/** What a call without a result says once its run has ended. */
export const UNFINISHED = "did not finish (the run ended first)";

/** The option for a tool call's outcome; an outcome newer than this client reads as a failure. */
export function outcomeOption(outcome: ToolCallOutcome): (typeof OUTCOME_OPTIONS)[number] {
  const find = (value: ToolCallOutcome) => OUTCOME_OPTIONS.find((option) => option.value === value);
  return find(outcome) ?? find("error")!;
}

function statusLabel(value: string): string {
  return STATUS_OPTIONS.find((option) => option.value === value)?.label ?? value.replaceAll("_", " ");
}

/** A string argument from the recorded JSON; the server cuts long JSON, which then no longer parses. */
function argument(args: string, key: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed === null || typeof parsed !== "object") return undefined;
    const value = (parsed as Record<string, unknown>)[key];
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  } catch {
    return undefined;
  }
}

function preview(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = text.replace(/\s+/g, " ");
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1).trimEnd()}…` : line;
}
