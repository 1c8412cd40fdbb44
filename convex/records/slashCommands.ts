/**
 * A department's own slash commands (admins edit them in settings; each
 * overrides a global command of the same name) and the records of
 * invocations and failures that involved no run (those land in the run's
 * event stream instead).
 */
import type { PaginationOptions } from "convex/server";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { COMMAND_LIMITS } from "../lib/slashCommands";

export type CommandPayload = Doc<"commandEvents">["payload"];

/** The department's own commands, by name. */
export async function departmentCommands(ctx: QueryCtx, departmentId: Id<"departments">): Promise<Array<Doc<"slashCommands">>> {
  return await ctx.db
    .query("slashCommands")
    .withIndex("by_department_and_name", (q) => q.eq("departmentId", departmentId))
    .take(COMMAND_LIMITS.perDepartment);
}

export async function commandNamed(ctx: QueryCtx, departmentId: Id<"departments">, name: string): Promise<Doc<"slashCommands"> | null> {
  return await ctx.db
    .query("slashCommands")
    .withIndex("by_department_and_name", (q) => q.eq("departmentId", departmentId).eq("name", name))
    .unique();
}

/** Adds a department command, or replaces the one of the same name. */
export async function saveCommand(
  ctx: MutationCtx,
  departmentId: Id<"departments">,
  name: string,
  fields: Omit<Doc<"slashCommands">, "_id" | "_creationTime" | "departmentId" | "name">,
): Promise<Id<"slashCommands">> {
  const existing = await commandNamed(ctx, departmentId, name);
  if (existing !== null) {
    await ctx.db.patch("slashCommands", existing._id, fields);
    return existing._id;
  }
  return await ctx.db.insert("slashCommands", { departmentId, name, ...fields });
}

export async function deleteCommand(ctx: MutationCtx, commandId: Id<"slashCommands">): Promise<void> {
  await ctx.db.delete("slashCommands", commandId);
}

/** Where a command was typed: a task's thread, a channel or DM, or (neither) #maestro. */
export interface CommandPlace {
  taskId?: Id<"tasks">;
  channelId?: Id<"channels">;
}

/** Records an invocation or failure that involved no run, with where it was typed. */
export async function insertCommandEvent(ctx: MutationCtx, departmentId: Id<"departments">, place: CommandPlace, userId: Id<"users">, payload: CommandPayload): Promise<void> {
  const { taskId, channelId } = place;
  await ctx.db.insert("commandEvents", { departmentId, ...(taskId === undefined ? {} : { taskId }), ...(channelId === undefined ? {} : { channelId }), userId, payload });
}

/** Where command records are read from: one task's thread, one channel, #maestro, or the whole department. */
export type CommandScope = { taskId: Id<"tasks"> } | { channelId: Id<"channels"> } | "chat" | "department";

/** One page of command records that involved no run, newest first, in `scope`. */
export async function commandEventPage(ctx: QueryCtx, departmentId: Id<"departments">, scope: CommandScope, paginationOpts: PaginationOptions) {
  const events = ctx.db.query("commandEvents");
  const rows =
    scope === "department"
      ? events.withIndex("by_department", (q) => q.eq("departmentId", departmentId))
      : scope === "chat"
        ? events.withIndex("by_department_and_task_and_channel", (q) => q.eq("departmentId", departmentId).eq("taskId", undefined).eq("channelId", undefined))
        : "channelId" in scope
          ? events.withIndex("by_channel", (q) => q.eq("channelId", scope.channelId))
          : events.withIndex("by_task", (q) => q.eq("taskId", scope.taskId));
  return await rows.order("desc").paginate(paginationOpts);
}
