/**
 * Replay: a run's timeline rebuilt from its events alone. Streamed text is
 * joined into its message, a tool result is attached to its call, and the
 * run's state (running, or how it ended) falls out of the last events. A call
 * that waited for a person (an approval, a question, a plan, an outside
 * executor's output) moves below what it waited on when its result comes, so
 * a denial or an answer is never listed above its request. Pure, so the
 * server and the browser replay the same way.
 */
import type { AgentEndReason, RunEvent, RunEventPayload } from "./runEvents";
import { typingPreview } from "./toolCalls";

type Base = { seq: number; timestamp: number };

export type TimelineItem =
  | (Base & { kind: "user_message"; author: string; content: string })
  | (Base & { kind: "control"; action: "start" | "stop" | "resume"; by: string; note?: string })
  | (Base & { kind: "tool_output"; tool: string; content: string })
  | (Base & { kind: "slash_command"; invokedAs: string; error?: string })
  | (Base & { kind: "agent_start"; agentName: string; model: string; attempt: number })
  | (Base & {
      kind: "message";
      round: number;
      /** What the agent said: its calls are tool items of their own, never `[TOOL: …]` markup here. */
      text: string;
      /** Still receiving text: no `message_end` yet. */
      streaming: boolean;
      interrupted: boolean;
      model?: string;
      tokens?: number;
    })
  | (Base & {
      kind: "tool";
      index: number;
      name: string;
      args: string;
      result?: { outcome: string; observation: string };
    })
  | (Base & { kind: "approval"; tool: string; args: string })
  | (Base & { kind: "question"; question: string })
  | (Base & { kind: "plan"; steps: Array<{ title: string; assignee?: string }> })
  | (Base & { kind: "end"; reason: AgentEndReason; detail: string });

export type TimelineState = { status: "idle" | "running" } | { status: "ended"; reason: AgentEndReason; detail: string };

export interface Timeline {
  items: TimelineItem[];
  state: TimelineState;
  promptTokens: number;
  completionTokens: number;
}

type Envelope = Pick<RunEvent, "seq" | "timestamp" | "payload">;

/** The timeline of one run from its events (any order; duplicates of a seq count once). */
export function replayRun(events: readonly Envelope[]): Timeline {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  const items: TimelineItem[] = [];
  const tools = new Map<number, Extract<TimelineItem, { kind: "tool" }>>();
  let open: Extract<TimelineItem, { kind: "message" }> | null = null;
  /** Each message's text as streamed, `[TOOL: …]` lines included; its item shows it without them. */
  const streamed = new Map<Extract<TimelineItem, { kind: "message" }>, string>();
  let state: TimelineState = { status: "idle" };
  let promptTokens = 0;
  let completionTokens = 0;
  let lastSeq = -Infinity;
  /** Requests a call may wait on (WAITED_ON) so far, and how many there were when each call was made. */
  let waits = 0;
  const waitsAtCall = new Map<Extract<TimelineItem, { kind: "tool" }>, number>();

  for (const { seq, timestamp, payload } of sorted) {
    if (seq === lastSeq) continue;
    lastSeq = seq;
    const base = { seq, timestamp };
    const event: RunEventPayload = payload;
    switch (event.type) {
      case "user_message_submitted":
        items.push({ ...base, kind: "user_message", author: event.author, content: event.content });
        break;
      case "control_submitted":
        items.push({ ...base, kind: "control", action: event.action, by: event.by, ...(event.note === undefined ? {} : { note: event.note }) });
        break;
      case "tool_output_submitted":
        waits += 1;
        items.push({ ...base, kind: "tool_output", tool: event.tool, content: event.content });
        break;
      case "slash_command_invoked":
        items.push({ ...base, kind: "slash_command", invokedAs: event.invokedAs });
        break;
      case "slash_command_failed":
        items.push({ ...base, kind: "slash_command", invokedAs: event.invokedAs, error: event.error });
        break;
      case "agent_start":
        state = { status: "running" };
        items.push({ ...base, kind: "agent_start", agentName: event.agentName, model: event.model, attempt: event.attempt });
        break;
      case "message_start":
        open = { ...base, kind: "message", round: event.round, text: "", streaming: true, interrupted: false };
        items.push(open);
        break;
      case "message_update":
        if (open === null) {
          // Text without a start (a stream cut before its first event): still shown.
          open = { ...base, kind: "message", round: 0, text: "", streaming: true, interrupted: false };
          items.push(open);
        }
        streamed.set(open, (streamed.get(open) ?? "") + event.delta);
        open.text = streamed.get(open)!.includes("[TOOL:") ? typingPreview(streamed.get(open)!) : streamed.get(open)!;
        break;
      case "message_end":
        if (open !== null) {
          open.streaming = false;
          open.interrupted = event.interrupted;
          open.model = event.model;
          open.tokens = event.promptTokens + event.completionTokens;
          open = null;
        }
        promptTokens += event.promptTokens;
        completionTokens += event.completionTokens;
        break;
      case "tool_call": {
        const item = { ...base, kind: "tool" as const, index: event.index, name: event.name, args: event.args };
        tools.set(event.index, item);
        waitsAtCall.set(item, waits);
        items.push(item);
        break;
      }
      case "tool_result": {
        const call = tools.get(event.index);
        const result = { outcome: event.outcome, observation: event.observation };
        if (call === undefined) {
          items.push({ ...base, kind: "tool", index: event.index, name: event.name, args: "", result });
          break;
        }
        call.result = result;
        // The call waited for a person or an executor: its result (a denial, an answer) comes after that request.
        if (waits > (waitsAtCall.get(call) ?? waits)) {
          items.splice(items.indexOf(call), 1);
          items.push(call);
        }
        break;
      }
      case "approval_requested":
        waits += 1;
        items.push({ ...base, kind: "approval", tool: event.tool, args: event.args });
        break;
      case "question_asked":
        waits += 1;
        items.push({ ...base, kind: "question", question: event.question });
        break;
      case "plan_proposed":
        waits += 1;
        items.push({ ...base, kind: "plan", steps: event.steps });
        break;
      case "agent_end":
        if (open !== null) {
          open.streaming = false;
          open.interrupted = true;
          open = null;
        }
        state = { status: "ended", reason: event.reason, detail: event.detail };
        items.push({ ...base, kind: "end", reason: event.reason, detail: event.detail });
        break;
    }
  }
  return { items, state, promptTokens, completionTokens };
}

/** The text still streaming in the run's open message, or null when none is open. */
export function streamingText(events: readonly Envelope[]): string | null {
  const { items, state } = replayRun(events);
  if (state.status === "ended") return null;
  const last = items.at(-1);
  return last?.kind === "message" && last.streaming ? last.text : null;
}
