import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";
import type { AgentEndReason } from "../../convex/lib/runEvents";
import type { TimelineItem } from "../../convex/lib/runTimeline";

/** One row of a runs list, as `runs.listForDepartment` / `runs.listForAgent` return it. */
export type RunSummary = FunctionReturnType<typeof api.runs.listForDepartment>[number];
/** One streaming run, as `runs.streamingForTask` returns it. */
export type StreamingRun = FunctionReturnType<typeof api.runs.streamingForTask>[number];

const TRIGGERS: Record<RunSummary["trigger"], string> = {
  assigned: "Assigned",
  mentioned: "Mention",
  delegation_result: "Delegated result",
  answer: "Answer",
  // A DM or a plain message wakes an agent as well as a blocking one does.
  message: "Message",
  nudge: "Inbox nudge",
};

/** The trigger as a list cell shows it. */
export function triggerName(trigger: RunSummary["trigger"]): string {
  return TRIGGERS[trigger];
}

const END_LABELS: Record<AgentEndReason, string> = { complete: "Completed", aborted: "Aborted", error: "Ended with an error" };

/** How an `agent_end` reads in a timeline. */
export function endLabel(reason: AgentEndReason, detail: string): string {
  return reason === "complete" || detail === "" ? END_LABELS[reason] : `${END_LABELS[reason]}: ${detail}`;
}

/** "1.2k tokens", or null for a run that used none. */
export function tokenTotal(run: Pick<RunSummary, "promptTokens" | "completionTokens">): string | null {
  const total = run.promptTokens + run.completionTokens;
  if (total === 0) return null;
  return total >= 1000 ? `${(total / 1000).toFixed(1)}k tokens` : `${total} tokens`;
}

/** What the run-end sweeper's resume says (reactions/runEnd): the one resume that follows an interruption. */
const INTERRUPTED_NOTE = "the run's action stopped; running it again";

/** How a resume reads: after an interruption, after a person decided (an approval, an answer, a plan), or as Maestro noted it (an expiry). */
function resumeHeading(by: string, note: string | undefined): string {
  if (note === INTERRUPTED_NOTE) return "Resumed after an interruption";
  if (by !== "Maestro") return `Resumed after ${by} decided`;
  return note === undefined ? "Resumed" : `Resumed: ${note}`;
}

/** A timeline item's one-line heading (the body shows text, arguments, results). */
export function itemHeading(item: TimelineItem): string {
  switch (item.kind) {
    case "user_message":
      return `${item.author} wrote`;
    case "control":
      return item.action === "stop" ? `${item.by} pressed Stop` : item.action === "resume" ? resumeHeading(item.by, item.note) : `Started (${item.note ?? "assigned"})`;
    case "tool_output":
      return `Result from ${item.tool}`;
    case "slash_command":
      return item.error === undefined ? `Command ${item.invokedAs}` : `Command ${item.invokedAs} failed`;
    case "agent_start":
      return item.attempt > 1 ? `${item.agentName} started again (attempt ${item.attempt})` : `${item.agentName} started`;
    case "message":
      return item.streaming ? "Typing…" : item.interrupted ? "Reply (cut short)" : "Reply";
    case "tool":
      return item.result === undefined ? `Calling ${item.name}…` : `${item.name}: ${item.result.outcome}`;
    case "approval":
      return `Approval requested for ${item.tool}`;
    case "question":
      return "Question";
    case "plan":
      return `Plan with ${item.steps.length} step${item.steps.length === 1 ? "" : "s"}`;
    case "end":
      return endLabel(item.reason, item.detail);
  }
}
