/**
 * The brain's writes to its run, one internal mutation per step of the run
 * action (brain/run.ts): start, stream, the end of a reply, each tool call
 * and its result, a pause for a person, and the end. Every write names the
 * action's attempt and answers "aborted" once the run is no longer that
 * attempt's (stopped by a person, ended by the sweeper, taken over by a
 * retry): that is how the action learns to stop.
 */
import { v, type Infer } from "convex/values";
import { internalMutation, type MutationCtx } from "../_generated/server";
import type { Doc } from "../_generated/dataModel";
import { errorMessage } from "../lib/errors";
import { vPauseRequest, vResumePoint } from "../lib/pauses";
import { boundedText } from "../lib/runEvents";
import { finishAttempt, sayRunReply } from "../reactions/runEnd";
import { pauseRun, takeResumePoint } from "../reactions/pauses";
import { advanceCursor } from "../records/chat";
import { markInjectionSeen } from "../records/inbox";
import { appendRunEvent, heartbeat, liveRun, redactStreamedMessage } from "../records/runEvents";
import { addModelCall, addToolCall, markRunning, vModelCall } from "../records/runs";
import { vRunPause, vToolCallRecord } from "../validators";
import { dispatchScopeOf, vDispatchScope } from "./context";

const vVerdict = v.union(v.literal("ok"), v.literal("aborted"));
const vWriter = { runId: v.id("runs"), attempt: v.number() };
/** A dispatched call's record on the run (brain/dispatch CallRecord). */
const vCallRecord = v.object({ record: vToolCallRecord, delegated: v.boolean(), guard: v.optional(v.string()) });
/** A tool call about to run, announced by a `tool_call` event. */
const vToolStart = v.object({ index: v.number(), name: v.string(), args: v.string(), callId: v.optional(v.string()) });

/**
 * The action's first write: queued → running as the next attempt, holding a
 * fresh lease (`agent_start`), and, for a run that paused for a person, where
 * it goes on. Null when the run is not queued (already started, or ended).
 */
export const start = internalMutation({
  args: { runId: v.id("runs") },
  returns: v.union(v.object({ attempt: v.number(), resume: v.union(v.null(), vResumePoint), failure: v.optional(v.string()) }), v.null()),
  handler: async (ctx, { runId }) => {
    const started = await markRunning(ctx, runId);
    if (started === null) return null;
    try {
      return { attempt: started.attempt, resume: await takeResumePoint(ctx, runId, started.attempt) };
    } catch (error) {
      // It only reads before it fails: the run has started, and the action ends it with the reason.
      return { attempt: started.attempt, resume: null, failure: errorMessage(error) };
    }
  },
});

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

/**
 * An assistant message begins (one per model call); renews the lease. With
 * `modelCall`, the previous round's model call (whose tools have run) is
 * recorded first, whatever the attempt, as `recordModelCall` would: one
 * write, not two.
 */
export const beginMessage = internalMutation({
  args: { ...vWriter, round: v.number(), modelCall: v.optional(v.object(vModelCall)) },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, round, modelCall }) => {
    if (modelCall !== undefined) await addModelCall(ctx, runId, modelCall);
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

/** The message is cut short (the model failed mid-stream), with what usage is known. */
export const endMessage = internalMutation({
  args: { ...vWriter, model: v.string(), promptTokens: v.number(), completionTokens: v.number(), interrupted: v.boolean() },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, ...end }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    await redactStreamedMessage(ctx, run);
    await appendRunEvent(ctx, runId, { type: "message_end", ...end }, { run });
    return "ok";
  },
});

/**
 * The end of a model reply and what follows it in one transaction instead of
 * up to six (each queued behind every other run's writes): the reply's last
 * text not streamed yet (`delta`, as `appendDelta` would write it);
 * `message_end`; the injected inbox messages the model saw count as read
 * (and the blocking ones as handled); the #maestro cursor moves past what it
 * saw; a reply that calls tools says its words (`say`, where the run
 * answers, before its first call is announced); and either the reply's first
 * tool call is announced (as `beginToolCall` would) or, for a reply that
 * calls no tool, the run ends (`end`, as `finish` would with "completed").
 * Nothing is written when the run is no longer this attempt's.
 */
export const endReply = internalMutation({
  args: {
    ...vWriter,
    delta: v.optional(v.string()),
    model: v.string(),
    promptTokens: v.number(),
    completionTokens: v.number(),
    seen: v.optional(v.object({ shown: v.array(v.string()), blocking: v.array(v.string()) })),
    chat: v.optional(v.object({ newPointer: v.number(), chatOnlyTurn: v.boolean() })),
    /** The words of a reply that calls tools (or of the part not said yet), said where the run answers. */
    say: v.optional(v.string()),
    firstCall: v.optional(vToolStart),
    end: v.optional(v.object({ reason: v.string(), reply: v.optional(v.string()), modelCall: v.object(vModelCall) })),
  },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, delta, seen, chat, say, firstCall, end, ...usage }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    if (delta !== undefined && delta !== "") await appendRunEvent(ctx, runId, { type: "message_update", delta }, { run });
    // A secret streamed across two pieces is in neither: the message is scanned whole as it ends.
    await redactStreamedMessage(ctx, run);
    await appendRunEvent(ctx, runId, { type: "message_end", ...usage, interrupted: false }, { run });
    // Only now, after the model has seen them, do the messages count as read.
    if (seen !== undefined && seen.shown.length + seen.blocking.length > 0) {
      const agent = await ctx.db.get("agents", run.agentId);
      if (agent !== null) await markInjectionSeen(ctx, agent, seen.shown, seen.blocking);
    }
    if (chat !== undefined) await advanceCursor(ctx, run.agentSessionKey, chat.newPointer, chat.chatOnlyTurn);
    if (say !== undefined) {
      await sayRunReply(ctx, run, say);
      // A post is a side effect: a run that lost its action after it is not run again (it would say it twice).
      if (firstCall === undefined && run.toolStarted !== true) await heartbeat(ctx, run, { toolStarted: true });
    }
    if (firstCall !== undefined) await startToolCall(ctx, run, firstCall);
    if (end !== undefined) {
      await addModelCall(ctx, runId, end.modelCall);
      await finishAttempt(ctx, runId, attempt, "completed", end.reason, end.reply);
    }
    return "ok";
  },
});

async function startToolCall(ctx: MutationCtx, run: Doc<"runs">, { index, name, args, callId }: Infer<typeof vToolStart>) {
  await appendRunEvent(ctx, run._id, { type: "tool_call", index, name, args: boundedText(args), ...(callId === undefined ? {} : { callId }) }, { run });
  await heartbeat(ctx, run, run.toolStarted ? {} : { toolStarted: true });
}

/**
 * Written just before a tool runs; "aborted" means it must not run. Marks the
 * run as having started a side effect, so the sweeper will not retry it.
 * With `say`, the words the reply streamed before this call (a native call
 * dispatched while its reply streams) are said first, where the run answers.
 */
export const beginToolCall = internalMutation({
  args: {
    ...vWriter,
    ...vToolStart.fields,
    say: v.optional(v.string()),
    /** Answer with what the dispatcher reads of the run's agent before the call (brain/context agentForDispatch), read in this write: no read of its own. */
    withScope: v.optional(v.boolean()),
  },
  returns: v.union(vVerdict, v.object({ verdict: v.literal("ok"), scope: vDispatchScope })),
  handler: async (ctx, { runId, attempt, say, withScope, ...start }) => {
    const run = await liveRun(ctx, runId, attempt);
    if (run === null) return "aborted";
    if (say !== undefined) await sayRunReply(ctx, run, say);
    await startToolCall(ctx, run, start);
    return withScope === true ? { verdict: "ok" as const, scope: await dispatchScopeOf(ctx, runId) } : "ok";
  },
});

/**
 * A tool's result, with the call's record on the run (`recorded`; or the
 * one recordToolCall wrote for that call) whose outcome it takes. With `next`, the reply's next call is announced in the same
 * transaction (as `beginToolCall` would), unless the run was stopped.
 */
export const endToolCall = internalMutation({
  args: { ...vWriter, index: v.number(), name: v.string(), observation: v.string(), next: v.optional(vToolStart), recorded: v.optional(vCallRecord) },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, index, name, observation, next, recorded: given }) => {
    const run = await ctx.db.get("runs", runId);
    if (run === null) return "aborted";
    // The call's record on the run, in the same write as its result (recordToolCall when written apart).
    if (given !== undefined) await addToolCall(ctx, runId, given.record, given.delegated, given.guard);
    const recorded = given?.record ?? run.toolCalls.at(-1);
    const outcome = recorded !== undefined && recorded.name === name ? recorded.outcome : "ok";
    // A result is written even when the run was stopped meanwhile: the tool did run.
    await appendRunEvent(ctx, runId, { type: "tool_result", index, name, outcome, observation: boundedText(observation) }, { run });
    const live = await liveRun(ctx, runId, attempt);
    if (live === null) return "aborted";
    if (next !== undefined) await startToolCall(ctx, live, next);
    return "ok";
  },
});

/** Adds one model call's usage and timings. */
export const recordModelCall = internalMutation({
  args: { runId: v.id("runs"), ...vModelCall },
  returns: v.null(),
  handler: async (ctx, { runId, ...call }) => {
    await addModelCall(ctx, runId, call);
    return null;
  },
});

/** Records one dispatched tool call's result (also when it failed or was denied). */
export const recordToolCall = internalMutation({
  args: { runId: v.id("runs"), ...vCallRecord.fields },
  returns: v.null(),
  handler: async (ctx, { runId, record, delegated, guard }) => {
    await addToolCall(ctx, runId, record, delegated, guard);
    return null;
  },
});

/**
 * The run reached a call that needs a person (reactions/pauses): the card,
 * its event, and the run waits. "aborted" when the run is no longer this
 * attempt's (then nothing is written).
 */
export const pause = internalMutation({
  args: {
    ...vWriter,
    request: vPauseRequest,
    state: vRunPause.omit("kind", "id", "output"),
    /** The model call whose reply paused, recorded in the same write (as `recordModelCall` would, whatever the attempt). */
    modelCall: v.optional(v.object(vModelCall)),
  },
  returns: vVerdict,
  handler: async (ctx, { runId, attempt, request, state, modelCall }) => {
    if (modelCall !== undefined) await addModelCall(ctx, runId, modelCall);
    return await pauseRun(ctx, runId, attempt, request, state);
  },
});

/**
 * Ends a run (reactions/runEnd): its reply said in the thread (or, on error,
 * what went wrong), the agent back to idle when it has no other work, and
 * one more run if a trigger arrived meanwhile.
 */
export const finish = internalMutation({
  args: {
    runId: v.id("runs"),
    /** The attempt finishing: a stale attempt (the run was retried or stopped meanwhile) changes nothing. */
    attempt: v.optional(v.number()),
    status: v.union(v.literal("completed"), v.literal("error"), v.literal("aborted")),
    reason: v.string(),
    reply: v.optional(v.string()),
    /** The run's last model call, recorded in the same write (as `recordModelCall` would, whatever the attempt). */
    modelCall: v.optional(v.object(vModelCall)),
  },
  returns: v.null(),
  handler: async (ctx, { runId, attempt, status, reason, reply, modelCall }) => {
    if (modelCall !== undefined) await addModelCall(ctx, runId, modelCall);
    await finishAttempt(ctx, runId, attempt, status, reason, reply);
    return null;
  },
});
