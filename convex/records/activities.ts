/** The department's activity feed: what happened on the board, by whom, newest first. */
import type { PaginationOptions } from "convex/server";
import type { Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import type { ActivityData, ActivityType, Actor } from "../validators";

/** Appends an entry to the department's activity feed. */
export async function recordActivity(
  ctx: MutationCtx,
  entry: { departmentId: Id<"departments">; type: ActivityType; actor: Actor; taskId?: Id<"tasks">; data?: ActivityData },
): Promise<void> {
  await ctx.db.insert("activities", { ...entry, data: entry.data ?? {} });
}

/** One page of the feed, newest first. */
export async function activityPage(ctx: QueryCtx, departmentId: Id<"departments">, paginationOpts: PaginationOptions) {
  return await ctx.db
    .query("activities")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .order("desc")
    .paginate(paginationOpts);
}
