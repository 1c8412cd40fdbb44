/**
 * The squad as an A2A server, as plain values (issue 45): the limits of a
 * request, how a message's text becomes a card, and the one rule that reads
 * an A2A task's state from its card. The state is never stored: the card,
 * its subtasks, what waits on them and its runs say it, so it cannot drift.
 */
import { LIMITS } from "./limits";

/** The A2A task states Maestro reports (the protocol's names, lower-case as v0.3 writes them). */
export type A2AServerState = "submitted" | "working" | "input-required" | "completed" | "failed" | "canceled";

/** Largest JSON-RPC body read (file and data parts included, base64 and all). */
export const MAX_A2A_BODY_BYTES = 2 * 1024 * 1024;
/** Largest one file or data part, decoded. */
export const MAX_A2A_PART_BYTES = 1024 * 1024;
/** Most file and data parts one message brings (the most files one thread message carries). */
export const MAX_A2A_ATTACHMENTS = 10;
/** Thread messages a task's history holds at most. */
export const MAX_A2A_HISTORY = 50;
/** Subtasks whose deliverables are read as artifacts. */
export const MAX_A2A_ARTIFACTS = 20;

/** One part of a message or an artifact, as plain data (the HTTP action turns it into the protocol's Part). */
export type A2APartView = { kind: "text"; text: string } | { kind: "file"; name: string; mediaType: string; url: string | null };

export interface A2AMessageView {
  id: string;
  role: "user" | "agent";
  parts: A2APartView[];
  at: number;
}

/** An A2A task as Maestro reads it from its card. */
export interface A2ATaskView {
  id: string;
  contextId: string;
  state: A2AServerState;
  message: string | null;
  at: number;
  artifacts: Array<{ id: string; name: string; description: string; parts: A2APartView[] }>;
  history: A2AMessageView[];
}

/** What waits on the card or one of its subtasks: a question, an approval or a plan. */
export interface A2AWaiting {
  kind: "question" | "approval" | "plan";
  text: string;
  /** The card or subtask it waits on. */
  taskTitle: string;
}

/** What the state is read from. */
export interface A2ACardFacts {
  status: "inbox" | "assigned" | "in_progress" | "review" | "done" | "blocked";
  /** Cancelled through A2A (`tasks/cancel`). */
  canceled: boolean;
  /** Archived or deleted on the board by someone else. */
  archived: boolean;
  /** Pending questions, approvals and plans on the card and its subtasks, oldest first. */
  waiting: readonly A2AWaiting[];
  /** Whether any run on the card is queued, running or waiting. */
  active: boolean;
  /** The newest run on the card's status, if it had any. */
  lastRun: "queued" | "running" | "waiting" | "completed" | "error" | "aborted" | null;
}

/**
 * The A2A task's state and its status message: canceled when cancelled or
 * taken off the board; completed once the card reached Review or Done (the
 * squad lead handed the deliverables in and his run ended); input-required while a question,
 * approval or plan waits (the question is the message), or the card is
 * Blocked; failed when the lead's last run failed and nothing runs; submitted
 * until the lead first takes it up; else working.
 */
export function a2aTaskState(facts: A2ACardFacts): { state: A2AServerState; message: string | null } {
  if (facts.canceled) return { state: "canceled", message: "Cancelled by the client: the runs were stopped and the card archived." };
  if (facts.archived) return { state: "canceled", message: "The card was taken off the board in Maestro." };
  // Completed once the lead has handed it in and stopped talking: his last word is the summary artifact.
  if ((facts.status === "review" || facts.status === "done") && !facts.active) return { state: "completed", message: null };
  const [first] = facts.waiting;
  if (first !== undefined) {
    if (first.kind === "question") return { state: "input-required", message: first.text };
    return { state: "input-required", message: `Waiting for a person to approve a ${first.kind === "approval" ? "tool call" : "plan"} on "${first.taskTitle}": ${first.text}` };
  }
  if (facts.status === "blocked") return { state: "input-required", message: "The card is blocked: say how to go on." };
  if (!facts.active && facts.lastRun === "error") return { state: "failed", message: "The squad lead's run failed." };
  if (facts.lastRun === null && (facts.status === "inbox" || facts.status === "assigned")) return { state: "submitted", message: null };
  return { state: "working", message: null };
}

/** Whether the state is final: no message may follow and cancel refuses. */
export function isFinalA2AState(state: A2AServerState): boolean {
  return state === "completed" || state === "failed" || state === "canceled";
}

/** A card's title from the request's text: its first line, cut to the title limit; a request without text is named by its attachments. */
export function a2aCardTitle(text: string, attachments: number): string {
  const firstLine = text.trim().split("\n")[0].trim();
  if (firstLine === "") return attachments > 0 ? `A2A request with ${attachments} attachment${attachments === 1 ? "" : "s"}` : "A2A request";
  const max = Math.min(LIMITS.taskTitleChars, 120);
  return firstLine.length <= max ? firstLine : `${firstLine.slice(0, max - 1).trimEnd()}…`;
}
