/** A department's newest delegation eval result (tools/eval): one row per department, replaced by each new one. */
import type { Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import type { EvalResult } from "../validators";

export async function latestEvalResult(ctx: QueryCtx, departmentId: Id<"departments">): Promise<EvalResult | null> {
  const row = await ctx.db
    .query("evalResults")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .unique();
  if (row === null) return null;
  const { _id, _creationTime, departmentId: _d, ...result } = row;
  return result;
}

/** Keeps `result` as the department's newest, in place of the one before. */
export async function saveEvalResult(ctx: MutationCtx, departmentId: Id<"departments">, result: EvalResult): Promise<void> {
  const row = await ctx.db
    .query("evalResults")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .unique();
  if (row === null) await ctx.db.insert("evalResults", { departmentId, ...result });
  else await ctx.db.replace("evalResults", row._id, { departmentId, ...result });
}
