/**
 * A run's event stream: appending, one sequence per run (counted on its
 * `runStreams` row), and reading it back. Whether a writer may still write
 * is `liveRun`: once the run is no longer its attempt's (stopped, ended by
 * the sweeper, taken over by a retry) every write answers "aborted".
 */
import type { PaginationOptions } from "convex/server";
import type { Doc, Id } from "../_generated/dataModel";
import { env, type MutationCtx, type QueryCtx } from "../_generated/server";
import { eventKind, type RunEventPayload } from "../lib/runEvents";
import { leaseNeedsRenewal, runLeaseMs } from "../lib/runLease";
import { REDACTION_NOTE } from "../lib/secrets/scanner";
import { redactForDepartment } from "./settings";

/** Most events one read returns: a run's whole stream, bounded. */
export const MAX_EVENTS_PER_READ = 2000;
/** Events scanned back from the newest to find the open message while streaming. */
const STREAM_SCAN = 400;

/**
 * Appends one event to a run's stream and returns its sequence number. With
 * a `clientMessageId` already in the stream, nothing is written and the
 * earlier event's number is returned (a retried submit). `run`, when the
 * caller has read it already, saves reading it again.
 */
export async function appendRunEvent(
  ctx: MutationCtx,
  runId: Id<"runs">,
  given: RunEventPayload,
  options: { clientMessageId?: string; run?: Doc<"runs"> } = {},
): Promise<number> {
  const { clientMessageId } = options;
  let payload = given;
  if (clientMessageId !== undefined) {
    const same = await ctx.db
      .query("runEvents")
      .withIndex("by_run_and_clientMessageId", (q) => q.eq("runId", runId).eq("clientMessageId", clientMessageId))
      .first();
    if (same !== null) return same.seq;
  }
  // Read once here: the stream counter and the correlation id both come from the run.
  const run = options.run ?? (await ctx.db.get("runs", runId)) ?? undefined;
  // What a run records is read by everyone who reads the board: it passes the scanner like any post.
  if (run !== undefined) payload = await redactPayload(ctx, run.departmentId, payload);
  const seq = await nextSeq(ctx, runId, payload.type === "message_start", run);
  const correlationId = run?.correlationId;
  await ctx.db.insert("runEvents", {
    runId,
    seq,
    kind: eventKind(payload),
    timestamp: Date.now(),
    ...(clientMessageId === undefined ? {} : { clientMessageId }),
    ...(correlationId === undefined ? {} : { correlationId }),
    payload,
  });
  return seq;
}

/**
 * `text` as a run may record it: every secret the department's scanner finds
 * replaced. `note` false for text read in pieces or as JSON (streamed
 * deltas, tool arguments), where the scanner's note would break the piece
 * or the JSON: the replacement itself says what happened.
 */
export async function redactRunText(ctx: QueryCtx, departmentId: Id<"departments">, field: string, text: string, note = true): Promise<string> {
  const out = await redactForDepartment(ctx, departmentId, field, text);
  return !note && out !== text && out.endsWith(REDACTION_NOTE) && !text.endsWith(REDACTION_NOTE) ? out.slice(0, -REDACTION_NOTE.length) : out;
}

/** Every text an event carries, through the scanner (redactRunText), before it is stored. */
async function redactPayload(ctx: QueryCtx, departmentId: Id<"departments">, payload: RunEventPayload): Promise<RunEventPayload> {
  const scan = (field: string, text: string, note = true) => redactRunText(ctx, departmentId, `run ${field}`, text, note);
  switch (payload.type) {
    case "user_message_submitted":
    case "tool_output_submitted":
      return { ...payload, content: await scan(payload.type, payload.content) };
    case "control_submitted":
      return payload.note === undefined ? payload : { ...payload, note: await scan("control note", payload.note) };
    case "message_update":
      return { ...payload, delta: await scan("streamed text", payload.delta, false) };
    case "tool_call":
    case "approval_requested":
      return { ...payload, args: await scan("tool arguments", payload.args, false) };
    case "tool_result":
      return { ...payload, observation: await scan("tool result", payload.observation) };
    case "question_asked":
      return { ...payload, question: await scan("question", payload.question) };
    case "plan_proposed":
      return { ...payload, steps: await Promise.all(payload.steps.map(async (step) => ({ ...step, title: await scan("plan step", step.title) }))) };
    case "agent_end":
      return { ...payload, detail: await scan("end", payload.detail) };
    default:
      return payload;
  }
}

/**
 * The open message's streamed text scanned whole, once it ends: a secret
 * streamed across two deltas is in neither alone. When the whole text
 * redacts to more than its pieces did, the message's first delta holds
 * the redacted text and the others are emptied.
 */
export async function redactStreamedMessage(ctx: MutationCtx, run: Doc<"runs">): Promise<void> {
  const updates = (await openMessageEvents(ctx, run)).filter((event) => event.payload.type === "message_update");
  if (updates.length < 2) return;
  const whole = updates.map((event) => (event.payload.type === "message_update" ? event.payload.delta : "")).join("");
  const redacted = await redactRunText(ctx, run.departmentId, "run streamed text", whole, false);
  if (redacted === whole) return;
  for (const [i, event] of updates.entries()) {
    await ctx.db.patch("runEvents", event._id, { payload: { type: "message_update", delta: i === 0 ? redacted : "" } });
  }
}

/**
 * The run's next sequence number, counted on its `runStreams` row (read by
 * id). A run without one (its first event, or a run older than the counter)
 * gets it here, starting after its newest event.
 */
async function nextSeq(ctx: MutationCtx, runId: Id<"runs">, startsMessage: boolean, known?: Doc<"runs">): Promise<number> {
  const stream = await streamOf(ctx, runId, known);
  if (stream !== null) {
    const seq = stream.lastSeq + 1;
    await ctx.db.patch("runStreams", stream._id, { lastSeq: seq, ...(startsMessage ? { messageStartSeq: seq } : {}) });
    return seq;
  }
  const last = await ctx.db
    .query("runEvents")
    .withIndex("by_run_and_seq", (q) => q.eq("runId", runId))
    .order("desc")
    .first();
  const seq = (last?.seq ?? 0) + 1;
  const id = await ctx.db.insert("runStreams", { runId, lastSeq: seq, ...(startsMessage ? { messageStartSeq: seq } : {}) });
  await ctx.db.patch("runs", runId, { streamId: id });
  return seq;
}

/** The run's `runStreams` row, or null before its first event (or for a run older than the counter). */
async function streamOf(ctx: QueryCtx, runId: Id<"runs">, known?: Doc<"runs">): Promise<Doc<"runStreams"> | null> {
  // A stream id never changes once set, so a run read earlier in this transaction still names it.
  const streamId = known?.streamId ?? (await ctx.db.get("runs", runId))?.streamId;
  return streamId === undefined ? null : await ctx.db.get("runStreams", streamId);
}

/** The run's event written with `clientMessageId`, if any (one indexed read). */
export async function eventWithClientMessageId(ctx: QueryCtx, runId: Id<"runs">, clientMessageId: string): Promise<Doc<"runEvents"> | null> {
  return await ctx.db
    .query("runEvents")
    .withIndex("by_run_and_clientMessageId", (q) => q.eq("runId", runId).eq("clientMessageId", clientMessageId))
    .first();
}

/** The run, when it is running as this attempt (else the writer should stop). */
export async function liveRun(ctx: QueryCtx, runId: Id<"runs">, attempt: number): Promise<Doc<"runs"> | null> {
  const run = await ctx.db.get("runs", runId);
  return run !== null && run.status === "running" && (run.attempt ?? 1) === attempt ? run : null;
}

/** Renews the run's lease when half of it is used (see leaseNeedsRenewal). */
export async function heartbeat(ctx: MutationCtx, run: Doc<"runs">, extra: Partial<Doc<"runs">> = {}) {
  const now = Date.now();
  const leaseMs = runLeaseMs(env);
  if (leaseNeedsRenewal(run.leaseExpiresAt, now, leaseMs) || Object.keys(extra).length > 0) {
    await ctx.db.patch("runs", run._id, { leaseExpiresAt: now + leaseMs, lastActiveAt: now, ...extra });
  }
}

/** The newest events of a run back to (and including) its latest `message_start`, oldest first. */
export async function openMessageEvents(ctx: QueryCtx, run: Doc<"runs">) {
  const runId = run._id;
  // The stream knows where the newest message starts: read from there, not a window of the newest events
  // (which is left for a run before its first message, or older than the stream row).
  const start = (await streamOf(ctx, runId, run))?.messageStartSeq;
  if (start !== undefined) {
    return await ctx.db
      .query("runEvents")
      .withIndex("by_run_and_seq", (q) => q.eq("runId", runId).gte("seq", start))
      .take(MAX_EVENTS_PER_READ);
  }
  const newest = await ctx.db
    .query("runEvents")
    .withIndex("by_run_and_seq", (q) => q.eq("runId", runId))
    .order("desc")
    .take(STREAM_SCAN);
  const opened = newest.findIndex((event) => event.payload.type === "message_start");
  return (opened === -1 ? newest : newest.slice(0, opened + 1)).reverse();
}

/** A run's events in order, after `afterSeq`, bounded. */
export async function eventsOfRun(ctx: QueryCtx, runId: Id<"runs">, afterSeq: number): Promise<Array<Doc<"runEvents">>> {
  return await ctx.db
    .query("runEvents")
    .withIndex("by_run_and_seq", (q) => q.eq("runId", runId).gt("seq", afterSeq))
    .take(MAX_EVENTS_PER_READ);
}

/** One page of a run's events in order: a run of any length is read through, a page at a time. */
export async function runEventsPage(ctx: QueryCtx, runId: Id<"runs">, paginationOpts: PaginationOptions) {
  return await ctx.db
    .query("runEvents")
    .withIndex("by_run_and_seq", (q) => q.eq("runId", runId))
    .paginate(paginationOpts);
}

/**
 * A run's newest `limit` tool calls and their results, in order, read from
 * the index by event type (none of the run's streamed text is read), and
 * whether it made more calls than that. A result whose call is older than
 * the window is left out with it.
 */
export async function recentToolEvents(ctx: QueryCtx, runId: Id<"runs">, limit: number): Promise<{ events: Array<Doc<"runEvents">>; more: boolean }> {
  const newest = (type: "tool_call" | "tool_result") =>
    ctx.db
      .query("runEvents")
      .withIndex("by_run_and_type_and_seq", (q) => q.eq("runId", runId).eq("payload.type", type))
      .order("desc")
      .take(limit + 1);
  const [calls, results] = await Promise.all([newest("tool_call"), newest("tool_result")]);
  const kept = calls.slice(0, limit);
  const firstSeq = kept.at(-1)?.seq ?? Infinity;
  const events = [...kept, ...results.filter((result) => result.seq > firstSeq)].sort((a, b) => a.seq - b.seq);
  return { events, more: calls.length > limit };
}

/**
 * Deletes up to `limit` of a run's events (its steps), oldest first;
 * `done` once none is left (history retention: only for runs that ended).
 */
export async function deleteRunSteps(ctx: MutationCtx, runId: Id<"runs">, limit: number): Promise<{ deleted: number; done: boolean }> {
  const steps = await ctx.db
    .query("runEvents")
    .withIndex("by_run_and_seq", (q) => q.eq("runId", runId))
    .take(limit + 1);
  const now = steps.slice(0, limit);
  for (const step of now) await ctx.db.delete("runEvents", step._id);
  return { deleted: now.length, done: steps.length <= limit };
}
