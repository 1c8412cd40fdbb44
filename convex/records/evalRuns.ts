/**
 * Eval runs started from the app (convex/evals.ts) and their throwaway
 * departments: the run's row, a department made for one scenario (no
 * members: nothing a person can list, search or open reaches it), what
 * happened in it read as the eval's snapshot (tools/eval/observe.ts), and its
 * deletion, a bounded batch at a time.
 */
import type { Doc, Id, TableNames } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { taskSnapshot, type DepartmentSnapshot, type TaskSnapshot } from "../lib/evalResults";
import { cardsOfTask } from "./pauseCards";

export type EvalRun = Doc<"evalRuns">;

/** The department's eval run that is still going, or null. */
export async function runningEval(ctx: QueryCtx, departmentId: Id<"departments">): Promise<EvalRun | null> {
  return (
    (await ctx.db
      .query("evalRuns")
      .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
      .order("desc")
      .take(5)
      .then((rows) => rows.find((row) => row.status === "running"))) ?? null
  );
}

/** The department's newest eval run, or null. */
export async function newestEval(ctx: QueryCtx, departmentId: Id<"departments">): Promise<EvalRun | null> {
  return await ctx.db
    .query("evalRuns")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .order("desc")
    .first();
}

export async function insertEvalRun(ctx: MutationCtx, row: Omit<EvalRun, "_id" | "_creationTime">): Promise<Id<"evalRuns">> {
  return await ctx.db.insert("evalRuns", row);
}

export async function patchEvalRun(ctx: MutationCtx, id: Id<"evalRuns">, fields: Partial<Omit<EvalRun, "_id" | "_creationTime">>): Promise<void> {
  await ctx.db.patch("evalRuns", id, { ...fields, updatedAt: Date.now() });
}

/** Eval runs marked running, oldest first (the sweep's look for stalled ones). */
export async function runningEvals(ctx: QueryCtx, limit: number): Promise<EvalRun[]> {
  return await ctx.db
    .query("evalRuns")
    .withIndex("by_status", (q) => q.eq("status", "running"))
    .take(limit);
}

/** A department for one scenario of an eval run in `evalOf`: a slug no name gives, no members, a fresh #maestro session. */
export async function insertEvalDepartment(ctx: MutationCtx, evalOf: Id<"departments">, name: string): Promise<Doc<"departments">> {
  const id = await ctx.db.insert("departments", { name, slug: `eval-${crypto.randomUUID()}`, chatSessionId: crypto.randomUUID(), chat: {}, evalOf });
  return (await ctx.db.get("departments", id))!;
}

/** Throwaway departments of any eval run (the sweep's look for leftovers). */
export async function evalDepartments(ctx: QueryCtx, limit: number): Promise<Array<Doc<"departments">>> {
  return await ctx.db
    .query("departments")
    .withIndex("by_evalOf", (q) => q.gt("evalOf", undefined as unknown as Id<"departments">))
    .take(limit);
}

/** Runs of a department, up to `limit`: how many and whether any is still queued or running. */
export async function runsSettling(ctx: QueryCtx, departmentId: Id<"departments">, limit: number): Promise<{ count: number; busy: boolean }> {
  const runs = await ctx.db
    .query("runs")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .take(limit);
  return { count: runs.length, busy: runs.some((run) => run.status === "queued" || run.status === "running") };
}

/** What happened in a throwaway department, as the eval reads it: every task with its cards and runs, and the scenario task's thread. */
export async function departmentSnapshot(ctx: QueryCtx, departmentId: Id<"departments">, taskId: Id<"tasks"> | undefined, limit: number): Promise<DepartmentSnapshot> {
  const agents = await ctx.db
    .query("agents")
    .withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId))
    .take(limit);
  const nameOf = new Map<string, string>(agents.flatMap((a) => [[a.sessionKey, a.name] as [string, string], [a._id as string, a.name] as [string, string]]));
  const rows = await ctx.db
    .query("tasks")
    .withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", departmentId))
    .take(limit);
  const tasks: TaskSnapshot[] = [];
  for (const task of rows.filter((t) => t.deletedAt === undefined)) {
    const runs = await ctx.db
      .query("runs")
      .withIndex("by_task", (q) => q.eq("taskId", task._id))
      .take(limit);
    const [approvals, plans] = [await cardsOfTask(ctx, "approvals", task._id), await cardsOfTask(ctx, "plans", task._id)];
    tasks.push(taskSnapshot({ task, approvals, plans, runs: runs.map((run) => ({ ...run, agentName: nameOf.get(run.agentId) ?? run.agentSessionKey })) }, nameOf));
  }
  const thread =
    taskId === undefined
      ? []
      : await ctx.db
          .query("messages")
          .withIndex("by_task", (q) => q.eq("taskId", taskId))
          .take(limit);
  return { tasks, thread: thread.map((m) => ({ authorKind: m.author.kind, authorName: m.author.kind === "system" ? "" : m.author.name, content: m.content })) };
}

type AnyRow = { _id: Id<TableNames> };
type LooseDb = {
  query(table: string): { withIndex(index: string, range: (q: { eq(field: string, value: unknown): unknown }) => unknown): { take(n: number): Promise<AnyRow[]> } };
  delete(table: string, id: Id<TableNames>): Promise<void>;
};

/** The tables a department's rows are in, each by an index whose first field is the department. */
const BY_DEPARTMENT: ReadonlyArray<readonly [TableNames, string]> = [
  ["approvals", "by_department_and_status"],
  ["questions", "by_department_and_status"],
  ["plans", "by_department_and_status"],
  ["activities", "by_department"],
  ["taskColumnCounts", "by_department_and_status"],
  ["modelPrices", "by_department_and_model"],
  ["costTotals", "by_department_scope_and_key"],
  ["slashCommands", "by_department_and_name"],
  ["commandEvents", "by_department"],
  ["evalResults", "by_department"],
  ["settings", "by_department"],
  ["summariserKeys", "by_department"],
  ["channelMessages", "by_department"],
  ["channelFiles", "by_department"],
  ["taskFiles", "by_department"],
  ["inbox", "by_department_and_readAt"],
  ["events", "by_department"],
  ["webhooks", "by_department"],
  ["invites", "by_department"],
  ["members", "by_department_and_user"],
];

/**
 * Deletes up to `budget` rows of a throwaway department (children before
 * their parents: a run's events before the run, a task's thread before the
 * task, an agent's cursor and notifications before the agent), the
 * department last. True once nothing of it is left.
 */
export async function purgeEvalDepartment(ctx: MutationCtx, department: Doc<"departments">, budget: number): Promise<boolean> {
  if (department.evalOf === undefined) throw new Error("Only an eval's throwaway department is ever purged");
  const db = ctx.db as unknown as LooseDb;
  let left = budget;
  const drain = async (table: string, index: string, field: string, value: unknown): Promise<boolean> => {
    while (left > 0) {
      const rows = await db.query(table).withIndex(index, (q) => q.eq(field, value)).take(Math.min(left, 100));
      for (const row of rows) await db.delete(table, row._id);
      left -= rows.length;
      if (rows.length === 0) return true;
    }
    return false;
  };
  const departmentId = department._id;
  for (const run of await ctx.db.query("runs").withIndex("by_department", (q) => q.eq("departmentId", departmentId)).take(20)) {
    if (!(await drain("runEvents", "by_run_and_seq", "runId", run._id))) return false;
    if (run.streamId !== undefined && (await ctx.db.get("runStreams", run.streamId)) !== null) await ctx.db.delete("runStreams", run.streamId);
    await ctx.db.delete("runs", run._id);
    left -= 1;
  }
  if ((await ctx.db.query("runs").withIndex("by_department", (q) => q.eq("departmentId", departmentId)).first()) !== null) return false;
  for (const task of await ctx.db.query("tasks").withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", departmentId)).take(20)) {
    if (!(await drain("messages", "by_task", "taskId", task._id))) return false;
    if (!(await drain("agentTriggers", "by_task", "taskId", task._id))) return false;
    await ctx.db.delete("tasks", task._id);
    left -= 1;
  }
  if ((await ctx.db.query("tasks").withIndex("by_department_and_status_and_order", (q) => q.eq("departmentId", departmentId)).first()) !== null) return false;
  for (const agent of await ctx.db.query("agents").withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId)).take(20)) {
    if (!(await drain("notifications", "by_recipient_and_readAt", "recipientKey", agent.sessionKey))) return false;
    if (!(await drain("chatCursors", "by_agentId", "agentId", agent._id))) return false;
    if (!(await drain("agentApiKeys", "by_agent", "agentId", agent._id))) return false;
    await ctx.db.delete("agents", agent._id);
    left -= 1;
  }
  if ((await ctx.db.query("agents").withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId)).first()) !== null) return false;
  for (const channel of await ctx.db.query("channels").withIndex("by_department_and_kind_and_name", (q) => q.eq("departmentId", departmentId)).take(20)) {
    if (!(await drain("channelMembers", "by_channel_and_key", "channelId", channel._id))) return false;
    await ctx.db.delete("channels", channel._id);
    left -= 1;
  }
  if ((await ctx.db.query("channels").withIndex("by_department_and_kind_and_name", (q) => q.eq("departmentId", departmentId)).first()) !== null) return false;
  if (!(await drain("chat", "by_session_and_chat_id", "sessionId", department.chatSessionId))) return false;
  for (const [table, index] of BY_DEPARTMENT) if (!(await drain(table, index, "departmentId", departmentId))) return false;
  if (left <= 0) return false;
  await ctx.db.delete("departments", departmentId);
  return true;
}
