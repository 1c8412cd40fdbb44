import type { Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import type { ActivityData, ActivityType, Actor } from "../validators";

/** Appends an entry to the department's activity feed. */
export async function recordActivity(
  ctx: MutationCtx,
  entry: { departmentId: Id<"departments">; type: ActivityType; actor: Actor; taskId?: Id<"tasks">; data?: ActivityData },
): Promise<void> {
  await ctx.db.insert("activities", { ...entry, data: entry.data ?? {} });
}
