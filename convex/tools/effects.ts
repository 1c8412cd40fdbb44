/**
 * A side-effecting tool call acts once per idempotency key (tools/idempotency:
 * the run's cause, the tool, the canonical arguments). The tool's mutation
 * wraps its effect in `oncePerKey`: the first call acts and records its
 * result beside the effect, in the same transaction; a repeat — a retried or
 * resumed run, a duplicate trigger — gets that result back and changes
 * nothing. An effect that throws records nothing (the transaction rolls
 * back), so the next call tries again.
 */
import { v } from "convex/values";
import { internal } from "../_generated/api";
import type { Doc, Id } from "../_generated/dataModel";
import { env, internalMutation, internalQuery, type MutationCtx, type QueryCtx } from "../_generated/server";
import { pauseTtlMs } from "../pauses";

/**
 * How long an effect is remembered: a repeat comes from a retry (minutes), a
 * resume after a card was decided (up to the pause TTL) or a re-delivered
 * trigger, so a week, and never less than twice the pause TTL.
 */
export const MIN_EFFECT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function effectTtlMs(source: Record<string, string | undefined>): number {
  return Math.max(MIN_EFFECT_TTL_MS, 2 * pauseTtlMs(source));
}

/** Effects one sweep deletes; a full batch schedules the next at once. */
export const EFFECT_SWEEP_BATCH = 200;

/** The recorded effect of `key`, if a call with it acted already. */
export async function effectOf(ctx: QueryCtx, key: string): Promise<Doc<"toolEffects"> | null> {
  return await ctx.db
    .query("toolEffects")
    .withIndex("by_key", (q) => q.eq("key", key))
    .first();
}

/**
 * Whether a call with this key already acted: a recorded effect, or the task
 * delegate_task made for it (delegate_task keeps its key on the task).
 */
export const alreadyActed = internalQuery({
  args: { key: v.string() },
  returns: v.boolean(),
  handler: async (ctx, { key }) => {
    if ((await effectOf(ctx, key)) !== null) return true;
    const delegated = await ctx.db
      .query("tasks")
      .withIndex("by_delegationKey", (q) => q.eq("delegationKey", key))
      .first();
    return delegated !== null;
  },
});

/**
 * Runs `effect` unless a call with the same key already did, and returns the
 * first call's result either way. Without a key (an agent outside Maestro,
 * calling over the HTTP API) it simply acts. Results must be JSON values.
 */
export async function oncePerKey<T>(
  ctx: MutationCtx,
  call: { key: string | undefined; tool: string; runId?: Id<"runs"> },
  effect: () => Promise<T>,
): Promise<T> {
  if (call.key === undefined) return await effect();
  const done = await effectOf(ctx, call.key);
  if (done !== null) return JSON.parse(done.result) as T;
  const result = await effect();
  await ctx.db.insert("toolEffects", {
    key: call.key,
    tool: call.tool,
    ...(call.runId === undefined ? {} : { runId: call.runId }),
    result: JSON.stringify(result ?? null),
  });
  return result;
}

/** Forgets effects older than `effectTtlMs`, oldest first, so the table does not grow without end. */
export const sweepExpired = internalMutation({
  args: {},
  returns: v.object({ deleted: v.number() }),
  handler: async (ctx) => {
    const cutoff = Date.now() - effectTtlMs(env);
    const expired = await ctx.db
      .query("toolEffects")
      .withIndex("by_creation_time", (q) => q.lt("_creationTime", cutoff))
      .take(EFFECT_SWEEP_BATCH);
    for (const effect of expired) await ctx.db.delete("toolEffects", effect._id);
    if (expired.length === EFFECT_SWEEP_BATCH) await ctx.scheduler.runAfter(0, internal.tools.effects.sweepExpired, {});
    return { deleted: expired.length };
  },
});
