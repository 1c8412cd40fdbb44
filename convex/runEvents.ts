/**
 * A run's event stream: appending (one sequence per run) and reading. The run
 * action writes through the internal mutations below; each answers "aborted"
 * once the run is no longer this attempt's to write (stopped by a person,
 * ended by the sweeper, or taken over by a retry), which is how the action
 * learns to stop.
 */
import { v, type Infer } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import { env, internalMutation, type MutationCtx, type QueryCtx } from "./_generated/server";
import { userQuery } from "./functions";
import { requireMember } from "./lib/auth";
import { MaestroError } from "./lib/errors";
import { boundedText, eventKind, vRunEvent, type RunEventPayload } from "./lib/runEvents";
import { leaseNeedsRenewal, runLeaseMs } from "./lib/runLease";
import { advanceCursor } from "./chat";
import { markInjectionSeen } from "./tools/messaging";

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
  payload: RunEventPayload,
  options: { clientMessageId?: string; run?: Doc<"runs"> } = {},
): Promise<number> {
  const { clientMessageId } = options;
  if (clientMessageId !== undefined) {
    const same = await ctx.db
      .query("runEvents")
      .withIndex("by_run_and_clientMessageId", (q) => q.eq("runId", runId).eq("clientMessageId", clientMessageId))
      .first();
    if (same !== null) return same.seq;
  }
  const seq = await nextSeq(ctx, runId, payload.type === "message_start", options.run);
  await ctx.db.insert("runEvents", {
    runId,
    seq,
    kind: eventKind(payload),
    timestamp: Date.now(),
    ...(clientMessageId === undefined ? {} : { clientMessageId }),
    payload,
  });
  return seq;
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

const vVerdict = v.union(v.literal("ok"), v.literal("aborted"));
const vWriter = { runId: v.id("runs"), attempt: v.number() };

/** The action's pulse while a model call is quiet: renews the lease, and says whether to go on. */
export const keepAlive = internalMutation({
  args: vWriter,
  returns: vVerdict,
  handler: async (ctx, { runId, attempt }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    await heartbeat(ctx, run);
    return "ok";
  },
});

/** An assistant message begins (one per model call); renews the lease. */
export const beginMessage = internalMutation({
  args: { ...vWriter, round: v.number() },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, round }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    await appendRunEvent(ctx, runId, { type: "message_start", round }, { run });
    await heartbeat(ctx, run);
    return "ok";
  },
});

/** A batch of streamed text. */
export const appendDelta = internalMutation({
  args: { ...vWriter, delta: v.string() },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, delta }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    await appendRunEvent(ctx, runId, { type: "message_update", delta }, { run });
    await heartbeat(ctx, run);
    return "ok";
  },
});

/** The message is complete (or cut short), with the model's usage. */
export const endMessage = internalMutation({
  args: { ...vWriter, model: v.string(), promptTokens: v.number(), completionTokens: v.number(), interrupted: v.boolean() },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, ...end }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    await appendRunEvent(ctx, runId, { type: "message_end", ...end }, { run });
    return "ok";
  },
});

/** A tool call about to run, announced by a `tool_call` event. */
const vToolStart = v.object({ index: v.number(), name: v.string(), args: v.string() });

/**
 * The end of a model reply and what follows it in one transaction instead of
 * up to four (each queued behind every other run's writes): `message_end`;
 * the injected inbox messages the model saw count as read (and the blocking
 * ones as handled); the #maestro cursor moves past what it saw; and the
 * reply's first tool call is announced (as `beginToolCall` would). Nothing is
 * written when the run is no longer this attempt's.
 */
export const endReply = internalMutation({
  args: {
    ...vWriter,
    model: v.string(),
    promptTokens: v.number(),
    completionTokens: v.number(),
    seen: v.optional(v.object({ shown: v.array(v.string()), blocking: v.array(v.string()) })),
    chat: v.optional(v.object({ newPointer: v.number(), chatOnlyTurn: v.boolean() })),
    firstCall: v.optional(vToolStart),
  },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, seen, chat, firstCall, ...end }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    await appendRunEvent(ctx, runId, { type: "message_end", ...end, interrupted: false }, { run });
    if (seen !== undefined && seen.shown.length + seen.blocking.length > 0) await markInjectionSeen(ctx, runId, seen.shown, seen.blocking);
    // Only now, after the model has seen them, do the messages count as read.
    if (chat !== undefined) await advanceCursor(ctx, run.agentSessionKey, chat.newPointer, chat.chatOnlyTurn);
    if (firstCall !== undefined) await startToolCall(ctx, run, firstCall);
    return "ok";
  },
});

async function startToolCall(ctx: MutationCtx, run: Doc<"runs">, { index, name, args }: Infer<typeof vToolStart>) {
  await appendRunEvent(ctx, run._id, { type: "tool_call", index, name, args: boundedText(args) }, { run });
  await heartbeat(ctx, run, run.toolStarted ? {} : { toolStarted: true });
}

/**
 * Written just before a tool runs; "aborted" means it must not run. Marks the
 * run as having started a side effect, so the sweeper will not retry it.
 */
export const beginToolCall = internalMutation({
  args: { ...vWriter, ...vToolStart.fields },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, index, name, args }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    await startToolCall(ctx, run, { index, name, args });
    return "ok";
  },
});

/**
 * A tool's result; its outcome is the one the dispatcher recorded on the run
 * for that call. With `next`, the reply's next call is announced in the same
 * transaction (as `beginToolCall` would), unless the run was stopped.
 */
export const endToolCall = internalMutation({
  args: { ...vWriter, index: v.number(), name: v.string(), observation: v.string(), next: v.optional(vToolStart) },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, index, name, observation, next }) => {
    const run = await ctx.db.get("runs", runId);
    if (run === null) return "aborted";
    const recorded = run.toolCalls.at(-1);
    const outcome = recorded !== undefined && recorded.name === name ? recorded.outcome : "ok";
    // A result is written even when the run was stopped meanwhile: the tool did run.
    await appendRunEvent(ctx, runId, { type: "tool_result", index, name, outcome, observation: boundedText(observation) }, { run });
    const live = await liveRun(ctx, runId, attempt);
    if (live === null) return "aborted";
    if (next !== undefined) await startToolCall(ctx, live, next);
    return "ok";
  },
});

/** A run's events in order, from `afterSeq` on (for the run view and its replay). */
export const listForRun = userQuery({
  args: { runId: v.id("runs"), afterSeq: v.optional(v.number()) },
  returns: v.array(vRunEvent),
  handler: async (ctx, { runId, afterSeq }) => {
    const run = await ctx.db.get("runs", runId);
    if (run === null) throw new MaestroError("NOT_FOUND", "Run not found.");
    await requireMember(ctx, run.departmentId, "viewer", ctx.viewer);
    const rows = await ctx.db
      .query("runEvents")
      .withIndex("by_run_and_seq", (q) => q.eq("runId", runId).gt("seq", afterSeq ?? 0))
      .take(MAX_EVENTS_PER_READ);
    return rows.map(({ runId, seq, kind, timestamp, clientMessageId, payload }) => ({
      runId,
      seq,
      kind,
      timestamp,
      ...(clientMessageId === undefined ? {} : { clientMessageId }),
      payload,
    }));
  },
});

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
