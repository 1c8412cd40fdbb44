/** The tasks Maestro handed A2A agents (`a2aRemoteTasks`): one per card and agent at a time, its phase, ids and counters. */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";

type ReadCtx = Pick<QueryCtx, "db">;

/** Rows kept per card and agent: a card handed out again and again is refused long before. */
const MAX_ROWS_PER_CARD = 50;

/** The newest row of `agentId`'s work on `taskId`, ended or not. */
export async function latestRemoteTask(ctx: ReadCtx, taskId: Id<"tasks">, agentId: Id<"agents">): Promise<Doc<"a2aRemoteTasks"> | null> {
  return await ctx.db
    .query("a2aRemoteTasks")
    .withIndex("by_task_and_agent", (q) => q.eq("taskId", taskId).eq("agentId", agentId))
    .order("desc")
    .first();
}

/** The remote tasks on a card not yet ended (any agent's), newest first. */
export async function openRemoteTasksOfTask(ctx: ReadCtx, taskId: Id<"tasks">): Promise<Array<Doc<"a2aRemoteTasks">>> {
  const rows = await ctx.db
    .query("a2aRemoteTasks")
    .withIndex("by_task_and_agent", (q) => q.eq("taskId", taskId))
    .order("desc")
    .take(MAX_ROWS_PER_CARD);
  return rows.filter((row) => row.endedAt === undefined);
}

export async function insertRemoteTask(ctx: MutationCtx, row: Omit<Doc<"a2aRemoteTasks">, "_id" | "_creationTime">): Promise<Id<"a2aRemoteTasks">> {
  return await ctx.db.insert("a2aRemoteTasks", row);
}

export async function getRemoteTask(ctx: ReadCtx, id: Id<"a2aRemoteTasks">): Promise<Doc<"a2aRemoteTasks"> | null> {
  return await ctx.db.get("a2aRemoteTasks", id);
}

export async function patchRemoteTask(ctx: MutationCtx, id: Id<"a2aRemoteTasks">, fields: Partial<Omit<Doc<"a2aRemoteTasks">, "_id" | "_creationTime" | "departmentId" | "taskId" | "agentId">>): Promise<void> {
  await ctx.db.patch("a2aRemoteTasks", id, fields);
}
