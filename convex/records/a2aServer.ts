/**
 * The squad as an A2A server's tables: whether a department publishes its
 * agent card (`a2aServerSettings`), and which card each A2A task follows
 * (`a2aServerTasks`).
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";

/** Whether the department publishes its agent card (off unless an owner or admin turned it on). */
export async function a2aServerEnabled(ctx: QueryCtx, departmentId: Id<"departments">): Promise<boolean> {
  const row = await ctx.db
    .query("a2aServerSettings")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .unique();
  return row?.enabled ?? false;
}

/** Turns publishing on or off. */
export async function setA2aServerEnabled(ctx: MutationCtx, departmentId: Id<"departments">, enabled: boolean, updatedBy: Id<"users">): Promise<void> {
  const row = await ctx.db
    .query("a2aServerSettings")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .unique();
  if (row === null) await ctx.db.insert("a2aServerSettings", { departmentId, enabled, updatedBy });
  else await ctx.db.patch("a2aServerSettings", row._id, { enabled, updatedBy });
}

/** The A2A task that follows `taskId`, if the card was opened over A2A. */
export async function a2aServerTaskOf(ctx: QueryCtx, taskId: Id<"tasks">): Promise<Doc<"a2aServerTasks"> | null> {
  return await ctx.db
    .query("a2aServerTasks")
    .withIndex("by_task", (q) => q.eq("taskId", taskId))
    .unique();
}

/** Records that the card `taskId` is followed as an A2A task. */
export async function insertA2aServerTask(ctx: MutationCtx, row: Omit<Doc<"a2aServerTasks">, "_id" | "_creationTime">): Promise<Doc<"a2aServerTasks">> {
  const id = await ctx.db.insert("a2aServerTasks", row);
  return (await ctx.db.get("a2aServerTasks", id))!;
}

/** The client cancelled the task (the card is archived too; this says why). */
export async function markA2aServerTaskCanceled(ctx: MutationCtx, row: Doc<"a2aServerTasks">, at: number): Promise<void> {
  await ctx.db.patch("a2aServerTasks", row._id, { canceledAt: at });
}

/** Sets (or with undefined, removes) where the task's updates are pushed; a new target is pushed the current state again. */
export async function setA2aServerPush(ctx: MutationCtx, row: Doc<"a2aServerTasks">, push: Doc<"a2aServerTasks">["push"]): Promise<void> {
  await ctx.db.patch("a2aServerTasks", row._id, { push, pushedState: undefined });
}

/** Records the state last pushed. */
export async function setA2aServerPushedState(ctx: MutationCtx, row: Doc<"a2aServerTasks">, state: string): Promise<void> {
  await ctx.db.patch("a2aServerTasks", row._id, { pushedState: state });
}
