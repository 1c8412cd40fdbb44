/**
 * The events of one agent run, as the durable-sessions spec names them:
 * `submit` events (what people and Maestro asked of the run, written before
 * the model is called) and `harness` events (what the agent did, in order).
 * One `runEvents` row per event; the run id is the spec's session id.
 */
import { v, type Infer } from "convex/values";

/** Why a run ended, as `agent_end.reason`. */
export const vAgentEndReason = v.union(v.literal("complete"), v.literal("aborted"), v.literal("error"));
export type AgentEndReason = Infer<typeof vAgentEndReason>;

/** What a `control_submitted` event asked: start (assigned), stop (a person pressed Stop), resume (the sweeper retried an interrupted run). */
export const vControlAction = v.union(v.literal("start"), v.literal("stop"), v.literal("resume"));

export const vSubmitEvent = v.union(
  v.object({
    type: v.literal("user_message_submitted"),
    /** The thread message that mentioned the agent or answered it. */
    messageId: v.optional(v.id("messages")),
    /** A channel message or DM sent to the agent (a blocking one starts or interrupts its run). */
    channelMessageId: v.optional(v.id("channelMessages")),
    author: v.string(),
    content: v.string(),
    blocking: v.optional(v.boolean()),
  }),
  v.object({ type: v.literal("control_submitted"), action: vControlAction, by: v.string(), note: v.optional(v.string()) }),
  /**
   * A result handed back to the run from outside it (a delegated task's outcome, an answer, an external
   * tool's output); `toolCallId` names the call an external tool's output is for.
   */
  v.object({
    type: v.literal("tool_output_submitted"),
    tool: v.string(),
    toolCallId: v.optional(v.string()),
    content: v.string(),
    /** Maestro wrote it: no outside executor handed back the external call's output in time, so the run goes on with the timeout as its error. */
    expired: v.optional(v.boolean()),
  }),
  v.object({ type: v.literal("slash_command_invoked"), name: v.string(), invokedAs: v.string(), args: v.string() }),
  v.object({ type: v.literal("slash_command_failed"), name: v.string(), invokedAs: v.string(), error: v.string() }),
);

export const vHarnessEvent = v.union(
  v.object({ type: v.literal("agent_start"), agentName: v.string(), model: v.string(), attempt: v.number() }),
  /** An assistant message begins: one per model call. */
  v.object({ type: v.literal("message_start"), round: v.number() }),
  /** A batch of streamed text, appended to the open message. */
  v.object({ type: v.literal("message_update"), delta: v.string() }),
  v.object({
    type: v.literal("message_end"),
    model: v.string(),
    promptTokens: v.number(),
    completionTokens: v.number(),
    /** The message was cut short (the run was stopped or the model failed mid-stream). */
    interrupted: v.boolean(),
  }),
  /** `index` numbers the calls of one run, so a result finds its call. */
  v.object({
    type: v.literal("tool_call"),
    index: v.number(),
    name: v.string(),
    args: v.string(),
    /** A native call's id (`tool_calls[].id`): its result is paired with it when the conversation is replayed. */
    callId: v.optional(v.string()),
  }),
  v.object({
    type: v.literal("tool_result"),
    index: v.number(),
    name: v.string(),
    outcome: v.union(v.literal("ok"), v.literal("error"), v.literal("denied"), v.literal("invalid"), v.literal("refused")),
    observation: v.string(),
  }),
  v.object({ type: v.literal("approval_requested"), approvalId: v.string(), tool: v.string(), args: v.string() }),
  v.object({ type: v.literal("question_asked"), questionId: v.string(), question: v.string() }),
  v.object({
    type: v.literal("plan_proposed"),
    planId: v.string(),
    steps: v.array(v.object({ title: v.string(), assignee: v.optional(v.string()) })),
  }),
  v.object({ type: v.literal("agent_end"), reason: vAgentEndReason, detail: v.string() }),
);

const ALL_EVENTS = [...vSubmitEvent.members, ...vHarnessEvent.members];
const isUpdate = (member: (typeof ALL_EVENTS)[number]) => member.fields.type.value === "message_update";

/**
 * Every event, the most frequent first: a union is checked member by member,
 * and a run is mostly `message_update` rows, so reading a long run stays cheap.
 */
export const vRunEventPayload = v.union(...ALL_EVENTS.filter(isUpdate), ...ALL_EVENTS.filter((member) => !isUpdate(member)));
export type SubmitEvent = Infer<typeof vSubmitEvent>;
export type HarnessEvent = Infer<typeof vHarnessEvent>;
export type RunEventPayload = Infer<typeof vRunEventPayload>;
export type RunEventType = RunEventPayload["type"];

export const vRunEventKind = v.union(v.literal("submit"), v.literal("harness"));
export type RunEventKind = Infer<typeof vRunEventKind>;

const SUBMIT_TYPES: ReadonlySet<string> = new Set(vSubmitEvent.members.map((member) => member.fields.type.value));

/** Which stream half an event belongs to, from its type alone (so no caller can mislabel one). */
export function eventKind(payload: Pick<RunEventPayload, "type">): RunEventKind {
  return SUBMIT_TYPES.has(payload.type) ? "submit" : "harness";
}

/** A stored event's fields (the `runEvents` table), which is also the envelope clients read. */
export const runEventFields = {
  runId: v.id("runs"),
  /** 1, 2, 3… within the run; unique per run (appends are serialized transactions). */
  seq: v.number(),
  kind: vRunEventKind,
  /** ms since the epoch. */
  timestamp: v.number(),
  /** A retried submit carrying the same id is written once. */
  clientMessageId: v.optional(v.string()),
  /**
   * The run's A2A correlation id (a run on a delegated task, runs.correlationId),
   * so one id traces a delegation from its envelope through messaging to each
   * event of the work (messaging spec, "Tracing").
   */
  correlationId: v.optional(v.string()),
  payload: vRunEventPayload,
};

/** The envelope as clients read it. */
export const vRunEvent = v.object(runEventFields);
export type RunEvent = Infer<typeof vRunEvent>;

/** Longest text one event keeps (a thread message, an observation, tool arguments). */
export const MAX_EVENT_TEXT_CHARS = 4000;

/** `text` cut to `max` characters with a marker, for event fields that must stay bounded. */
export function boundedText(text: string, max = MAX_EVENT_TEXT_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… [truncated]` : text;
}
