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
  message: "Blocking message",
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

/** A timeline item's one-line heading (the body shows text, arguments, results). */
export function itemHeading(item: TimelineItem): string {
  switch (item.kind) {
    case "user_message":
      return `${item.author} wrote`;
    case "control":
      return item.action === "stop" ? `${item.by} pressed Stop` : item.action === "resume" ? "Resumed after an interruption" : `Started (${item.note ?? "assigned"})`;
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
