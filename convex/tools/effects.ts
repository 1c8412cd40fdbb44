/**
 * A side-effecting tool call acts once per idempotency key (tools/idempotency:
 * the run's cause, the tool, the canonical arguments). The tool's mutation
 * wraps its effect in `oncePerKey`: the first call acts and records its
 * result beside the effect, in the same transaction; a repeat — a retried or
 * resumed run, a duplicate trigger — gets that result back and changes
 * nothing. An effect that throws records nothing (the transaction rolls
 * back), so the next call tries again.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";

/** The recorded effect of `key`, if a call with it acted already. */
export async function effectOf(ctx: QueryCtx, key: string): Promise<Doc<"toolEffects"> | null> {
  return await ctx.db
    .query("toolEffects")
    .withIndex("by_key", (q) => q.eq("key", key))
    .first();
}

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
