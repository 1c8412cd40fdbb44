/**
 * A side-effecting tool call acts once per idempotency key (lib/idempotency:
 * the run's cause, the tool, the canonical arguments). The tool's mutation
 * wraps its effect in `oncePerKey`: the first call acts and records its
 * result beside the effect, in the same transaction; a repeat — a retried or
 * resumed run, a duplicate trigger — gets that result back and changes
 * nothing. An effect that throws records nothing (the transaction rolls
 * back), so the next call tries again.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { pauseTtlMs } from "../lib/pauses";
import { taskByDelegationKey } from "./tasks";

/**
 * How long an effect is remembered: a repeat comes from a retry (minutes), a
 * resume after a card was decided (up to the pause TTL) or a re-delivered
 * trigger, so a week, and never less than twice the pause TTL.
 */
export const MIN_EFFECT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function effectTtlMs(source: Record<string, string | undefined>): number {
  return Math.max(MIN_EFFECT_TTL_MS, 2 * pauseTtlMs(source));
}

/** Effects one sweep deletes; a full batch means more are due. */
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
export async function alreadyActed(ctx: QueryCtx, key: string): Promise<boolean> {
  return (await effectOf(ctx, key)) !== null || (await taskByDelegationKey(ctx, key)) !== null;
}

/**
 * Runs `effect` unless a call with the same key already did, and returns the
 * first call's result either way. Without a key (an agent outside Maestro,
 * calling over the HTTP API) it simply acts. Results must be JSON values.
 */
export async function oncePerKey<T>(ctx: MutationCtx, call: { key: string | undefined; tool: string; runId?: Id<"runs"> }, effect: () => Promise<T>): Promise<T> {
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

/** Forgets effects created before `cutoff`, oldest first, a sweep's worth; returns how many. */
export async function forgetEffectsBefore(ctx: MutationCtx, cutoff: number): Promise<number> {
  const expired = await ctx.db
    .query("toolEffects")
    .withIndex("by_creation_time", (q) => q.lt("_creationTime", cutoff))
    .take(EFFECT_SWEEP_BATCH);
  for (const effect of expired) await ctx.db.delete("toolEffects", effect._id);
  return expired.length;
}
