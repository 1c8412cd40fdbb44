/**
 * The sweepers convex/crons.ts runs: what a crash, a restart or nobody's
 * attention leaves behind is ended, retried or forgotten, a bounded batch
 * per pass. Each is a thin internal mutation over its reaction or record.
 */
import { v } from "convex/values";
import { internal } from "./_generated/api";
import { env, internalMutation } from "./_generated/server";
import { expireExternalCall, expireOverdue } from "./reactions/pauses";
import { sweepLapsedRuns, sweepQueuedRuns } from "./reactions/runEnd";
import { deleteUnposted } from "./records/channelFiles";
import { EFFECT_SWEEP_BATCH, effectTtlMs, forgetEffectsBefore } from "./records/toolEffects";

/**
 * A running run whose lease lapsed lost its action. Without a side effect
 * yet it runs again as a new attempt; otherwise it ends `error` with the
 * reason "interrupted", said in the thread.
 */
export const lapsedRuns = internalMutation({
  args: {},
  returns: v.object({ retried: v.number(), interrupted: v.number() }),
  handler: async (ctx) => await sweepLapsedRuns(ctx),
});

/** A run queued for longer than MAESTRO_RUN_QUEUED_LIMIT_MS lost the action that should have started it: it ends `error`. */
export const queuedRuns = internalMutation({
  args: {},
  returns: v.number(),
  handler: async (ctx) => await sweepQueuedRuns(ctx),
});

/**
 * Pause cards nobody decided in time: an approval counts as denied, a
 * question as unanswered (it stops blocking its task), a plan as rejected
 * (nothing is delegated); their runs go on with that as the call's result.
 */
export const overdueCards = internalMutation({
  args: {},
  returns: v.object({ approvals: v.number(), questions: v.number(), plans: v.number() }),
  handler: async (ctx) => ({
    approvals: await expireOverdue(ctx, "approvals"),
    questions: await expireOverdue(ctx, "questions"),
    plans: await expireOverdue(ctx, "plans"),
  }),
});

/**
 * An external tool's call nobody handed back in time (scheduled when its run
 * paused on it, lib/limits externalCallTimeoutMs): the run goes on with the
 * timeout as the call's error, and a late output is refused. A call answered,
 * stopped or moved on meanwhile is left alone. Whether it expired.
 */
export const expiredExternalCall = internalMutation({
  args: { runId: v.id("runs"), toolCallId: v.string() },
  returns: v.boolean(),
  handler: async (ctx, { runId, toolCallId }) => await expireExternalCall(ctx, runId, toolCallId),
});

/** Files uploaded but never posted within a day: blob and row deleted; a fuller backlog schedules the next pass at once. */
export const unpostedFiles = internalMutation({
  args: {},
  returns: v.object({ files: v.number(), uploads: v.number() }),
  handler: async (ctx) => {
    const { files, uploads, more } = await deleteUnposted(ctx);
    if (more) await ctx.scheduler.runAfter(0, internal.sweeps.unpostedFiles, {});
    return { files, uploads };
  },
});

/** Tool effects older than a week (twice the pause TTL at least): no retry or resume comes that late. */
export const oldToolEffects = internalMutation({
  args: {},
  returns: v.object({ deleted: v.number() }),
  handler: async (ctx) => {
    const deleted = await forgetEffectsBefore(ctx, Date.now() - effectTtlMs(env));
    if (deleted === EFFECT_SWEEP_BATCH) await ctx.scheduler.runAfter(0, internal.sweeps.oldToolEffects, {});
    return { deleted };
  },
});
