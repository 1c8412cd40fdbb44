/**
 * Slash commands in the task thread, channel and #maestro composers (the durable-
 * sessions spec, "Slash Command Model"): the registry a department sees
 * (`getSlashCommands`), what a command would do (`previewSlashCommand`) and
 * doing it (`resolveSlashCommand`), plus the admins' department commands.
 * What each command does is convex/slash/registry.ts; planning is shared by
 * preview and resolve, so a preview's error is exactly the error sending
 * would give, and a failed command changes nothing but its failure record.
 */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import { env, type MutationCtx, type QueryCtx } from "./_generated/server";
import { departmentMutation, departmentQuery } from "./functions";
import { memberKey } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { DEFAULT_MODEL } from "./lib/modelConfig";
import { ARGUMENT_KINDS, COMMAND_LIMITS, commandNameProblem, modelChoices } from "./lib/slashCommands";
import { checkPageSize } from "./lib/validate";
import { departmentAgents } from "./records/agents";
import { mayRead, readableChannelX } from "./records/channels";
import { findMembership } from "./records/members";
import { appendRunEvent } from "./records/runEvents";
import { taskRunWithStatus } from "./records/runs";
import { leadModeFor, redactForDepartment } from "./records/settings";
import { commandEventPage, deleteCommand, departmentCommands, insertCommandEvent, saveCommand, type CommandPayload } from "./records/slashCommands";
import { departmentTaskX } from "./records/tasks";
import { BUILTIN_COMMANDS, placesOf, planCommand, registryFor, SLASH_PLACES, type Where } from "./slash/registry";
import schema from "./schema";
import { vLeadMode } from "./validators";

/** The task a command is typed in, which must be of this department. */
async function taskIn(ctx: QueryCtx, departmentId: Id<"departments">, taskId: Id<"tasks"> | undefined): Promise<Doc<"tasks"> | null> {
  return taskId === undefined ? null : await departmentTaskX(ctx, departmentId, taskId);
}

/**
 * Where a command is typed: a task's thread, a channel or DM of this
 * department the member may read (another department's, or a private one of
 * others, is refused before anything is planned), or #maestro.
 */
async function whereOf(
  ctx: QueryCtx & { member: Doc<"members">; department: Doc<"departments"> },
  departmentId: Id<"departments">,
  { taskId, channelId }: { taskId?: Id<"tasks">; channelId?: Id<"channels"> },
): Promise<Where> {
  if (taskId !== undefined && channelId !== undefined) throw new MaestroError("INVALID_ARGUMENT", "A command is typed in a task's thread or in a channel, not both.");
  const task = await taskIn(ctx, departmentId, taskId);
  const channel = channelId === undefined ? null : await readableChannelX(ctx, departmentId, memberKey(ctx.member.userId), channelId, "such conversation");
  return { departmentId, task, channel, member: ctx.member, department: ctx.department };
}

/** The record with its typed text (`invokedAs`, `args`, `error`, which may quote it) through the department's secret scanner. */
async function redactedPayload(ctx: QueryCtx, departmentId: Id<"departments">, payload: CommandPayload): Promise<CommandPayload> {
  const invokedAs = await redactForDepartment(ctx, departmentId, "slash command", payload.invokedAs);
  if (payload.type === "slash_command_invoked") return { ...payload, invokedAs, args: await redactForDepartment(ctx, departmentId, "slash command arguments", payload.args) };
  return { ...payload, invokedAs, error: await redactForDepartment(ctx, departmentId, "slash command error", payload.error) };
}

/**
 * Writes an invocation or failure, secrets redacted (whoever reads the
 * department's records, and its write-ahead log, sees no token): into the
 * run's stream when a run is involved, else a command record.
 */
async function record(ctx: MutationCtx, where: Where, runId: Id<"runs"> | null, payload: CommandPayload): Promise<void> {
  const redacted = await redactedPayload(ctx, where.departmentId, payload);
  if (runId !== null) await appendRunEvent(ctx, runId, redacted);
  else await insertCommandEvent(ctx, where.departmentId, { taskId: where.task?._id, channelId: where.channel?._id }, where.member.userId, redacted);
}

const vCommandView = v.object({
  name: v.string(),
  description: v.string(),
  argumentHint: v.string(),
  kind: v.union(v.literal("action"), v.literal("prompt")),
  source: v.union(v.literal("builtin"), v.literal("global"), v.literal("department")),
  /** What the first argument names, for completion (built-ins only). */
  argument: v.optional(v.union(...ARGUMENT_KINDS.map((kind) => v.literal(kind)))),
  /** The composers it runs in: a channel's hides the task-only ones. */
  places: v.array(v.union(...SLASH_PLACES.map((place) => v.literal(place)))),
});

/** The commands the composers offer, the models /model lists, the agents' names (argument completion), and the #maestro lead mode (for its badge). */
export const getSlashCommands = departmentQuery({
  args: {},
  returns: v.object({ commands: v.array(vCommandView), errors: v.array(v.string()), models: v.array(v.string()), agents: v.array(v.string()), chatLeadMode: vLeadMode }),
  handler: async (ctx, { departmentId }) => {
    const { commands, errors } = await registryFor(ctx, departmentId);
    return {
      commands: commands.map((c) => ({
        name: c.name,
        description: c.description,
        argumentHint: c.argumentHint,
        kind: c.action === undefined ? ("prompt" as const) : ("action" as const),
        source: c.source,
        ...(c.argument === undefined ? {} : { argument: c.argument }),
        places: [...placesOf(c)],
      })),
      errors,
      models: modelChoices(env, DEFAULT_MODEL),
      agents: (await departmentAgents(ctx, departmentId)).map((agent) => agent.name),
      chatLeadMode: await leadModeFor(ctx, departmentId, null),
    };
  },
});

const vWhereArgs = { text: v.string(), taskId: v.optional(v.id("tasks")), channelId: v.optional(v.id("channels")) };

/** What sending `text` would do: the rendered prompt or the action's effect, or why it cannot be sent (sending needs a member). */
export const previewSlashCommand = departmentQuery({
  args: vWhereArgs,
  returns: v.union(
    v.object({ ok: v.literal(true), kind: v.union(v.literal("prompt"), v.literal("action")), text: v.string(), target: v.union(v.string(), v.null()) }),
    v.object({ ok: v.literal(false), error: v.string() }),
  ),
  handler: async (ctx, { departmentId, text, ...at }) => {
    const planned = await planCommand(ctx, await whereOf(ctx, departmentId, at), text);
    if (!planned.ok) return { ok: false as const, error: planned.error };
    return { ok: true as const, kind: planned.kind, text: planned.preview, target: planned.target };
  },
});

/**
 * Resolves and runs a command typed in a task's thread (`taskId`), a
 * channel or DM (`channelId`), or #maestro. Every invocation writes `slash_command_invoked`, every failure
 * `slash_command_failed` with the reason; a failure changes nothing else.
 * The failure is this mutation's result, not a thrown error, so its record
 * is kept.
 */
export const resolveSlashCommand = departmentMutation({
  args: vWhereArgs,
  returns: v.union(v.object({ ok: v.literal(true), message: v.string(), taskId: v.optional(v.id("tasks")) }), v.object({ ok: v.literal(false), error: v.string() })),
  handler: async (ctx, { departmentId, text, ...at }) => {
    const where = await whereOf(ctx, departmentId, at);
    const { task } = where;
    const planned = await planCommand(ctx, where, text);
    if (!planned.ok) {
      const runId = task === null ? null : ((await taskRunWithStatus(ctx, task._id, ["running", "queued"]))?._id ?? null);
      await record(ctx, where, runId, { type: "slash_command_failed", name: planned.name, invokedAs: planned.invokedAs, error: planned.error });
      return { ok: false as const, error: planned.error };
    }
    const done = await planned.run(ctx);
    if ("error" in done) {
      await record(ctx, where, null, { type: "slash_command_failed", name: planned.name, invokedAs: planned.invokedAs, error: done.error });
      return { ok: false as const, error: done.error };
    }
    await record(ctx, where, done.runId, { type: "slash_command_invoked", name: planned.name, invokedAs: planned.invokedAs, args: planned.args });
    return { ok: true as const, message: done.message, ...(done.taskId === undefined ? {} : { taskId: done.taskId }) };
  },
});

const vCommandEvent = schema.tables.commandEvents.validator.omit("departmentId").extend({
  _id: v.id("commandEvents"),
  _creationTime: v.number(),
  /** Who typed it, by their name in the department ("someone who left" once they have). */
  by: v.string(),
  /** The task it was typed in, while the task exists; absent for #maestro. */
  taskTitle: v.optional(v.string()),
  /** The channel it was typed in, as the history names it (`#general`, or `a DM`). */
  channelName: v.optional(v.string()),
});

/**
 * Whether the caller may see a command typed in `channelId`, and how the
 * history names the place: a conversation they cannot read (a private
 * channel or a DM of others) hides its commands, whose text may be private.
 */
async function channelPlace(ctx: QueryCtx & { member: Doc<"members"> }, departmentId: Id<"departments">, channelId: Id<"channels">): Promise<{ visible: boolean; name?: string }> {
  const channel = await ctx.db.get("channels", channelId);
  // A deleted channel's records stay the department's, with no name to give.
  if (channel === null) return { visible: true };
  if (channel.departmentId !== departmentId || !(await mayRead(ctx, channel, memberKey(ctx.member.userId)))) return { visible: false };
  return { visible: true, name: channel.kind === "dm" ? "a DM" : `#${channel.name}` };
}

/**
 * Command records that involved no run, newest first, a page at a time: a
 * task's (`taskId`), a channel's or DM's (`channelId`, one the caller may
 * read; not both), #maestro's (`scope: "chat"`, the default), or the whole
 * department's (`scope: "department"`). Commands typed in conversations the
 * caller cannot read are left out (a page may come back shorter). Those that
 * started a run are in its event stream.
 */
export const listCommandEvents = departmentQuery({
  args: {
    taskId: v.optional(v.id("tasks")),
    channelId: v.optional(v.id("channels")),
    scope: v.optional(v.union(v.literal("chat"), v.literal("department"))),
    paginationOpts: paginationOptsValidator,
  },
  returns: paginationResultValidator(vCommandEvent),
  handler: async (ctx, { departmentId, taskId, channelId, scope, paginationOpts }) => {
    checkPageSize(paginationOpts.numItems);
    if (taskId !== undefined && channelId !== undefined) throw new MaestroError("INVALID_ARGUMENT", "Show a task's commands or a channel's, not both.");
    await taskIn(ctx, departmentId, taskId);
    if (channelId !== undefined) await readableChannelX(ctx, departmentId, memberKey(ctx.member.userId), channelId, "such conversation");
    const where = taskId !== undefined ? { taskId } : channelId !== undefined ? { channelId } : (scope ?? "chat");
    const page = await commandEventPage(ctx, departmentId, where, paginationOpts);
    // A page names few people, tasks and channels: each is read once.
    const names = new Map<Id<"users">, string>();
    const titles = new Map<Id<"tasks">, string | undefined>();
    const places = new Map<Id<"channels">, { visible: boolean; name?: string }>();
    const rows = [];
    for (const { _id, _creationTime, taskId: task, channelId: channel, userId, payload } of page.page) {
      if (channel !== undefined && !places.has(channel)) places.set(channel, await channelPlace(ctx, departmentId, channel));
      const place = channel === undefined ? undefined : places.get(channel)!;
      if (place?.visible === false) continue;
      if (!names.has(userId)) names.set(userId, (await findMembership(ctx, departmentId, userId))?.name ?? "someone who left");
      if (task !== undefined && !titles.has(task)) {
        const row = await ctx.db.get("tasks", task);
        titles.set(task, row === null || row.departmentId !== departmentId ? undefined : row.title);
      }
      const taskTitle = task === undefined ? undefined : titles.get(task);
      rows.push({
        _id,
        _creationTime,
        userId,
        payload,
        by: names.get(userId)!,
        ...(task === undefined ? {} : { taskId: task }),
        ...(taskTitle === undefined ? {} : { taskTitle }),
        ...(channel === undefined ? {} : { channelId: channel }),
        ...(place?.name === undefined ? {} : { channelName: place.name }),
      });
    }
    return { ...page, page: rows };
  },
});

// ---- department commands (settings) ----

/** What an admin writes of a department command; the stored command adds who changed it, and when. */
const vCommandFields = schema.tables.slashCommands.validator.pick("name", "description", "argumentHint", "action", "passArguments", "template");
const vDepartmentCommand = vCommandFields.extend({ _id: v.id("slashCommands"), updatedAt: v.number() });

/** The department's own commands, by name, for the settings dialog. */
export const listDepartmentCommands = departmentQuery({
  args: {},
  returns: v.array(vDepartmentCommand),
  handler: async (ctx, { departmentId }) =>
    (await departmentCommands(ctx, departmentId)).map(({ _id, name, description, argumentHint, action, passArguments, template, updatedAt }) => ({
      _id,
      name,
      description,
      argumentHint,
      ...(action === undefined ? {} : { action }),
      passArguments,
      template,
      updatedAt,
    })),
});

function limited(field: string, value: string, max: number, required: boolean): string {
  const trimmed = value.trim();
  if (required && trimmed === "") throw new MaestroError("INVALID_ARGUMENT", `${field} must not be empty.`);
  if (trimmed.length > max) throw new MaestroError("INVALID_ARGUMENT", `${field} is ${trimmed.length} characters; the limit is ${max}.`);
  return trimmed;
}

/** Admins: adds a department command, or replaces the one of the same name; it overrides a global of that name. */
export const saveDepartmentCommand = departmentMutation({
  role: "admin",
  args: vCommandFields.fields,
  returns: v.id("slashCommands"),
  handler: async (ctx, { departmentId, ...input }) => {
    const name = input.name.trim().replace(/^\//, "").toLowerCase();
    const nameProblem = commandNameProblem(name);
    if (nameProblem !== null) throw new MaestroError("INVALID_ARGUMENT", nameProblem);
    if (BUILTIN_COMMANDS.some((c) => c.name === name)) throw new MaestroError("INVALID_ARGUMENT", `/${name} is a built-in command; pick another name.`);
    const description = limited("A description", input.description, COMMAND_LIMITS.descriptionChars, true);
    const argumentHint = limited("An argument hint", input.argumentHint, COMMAND_LIMITS.argumentHintChars, false);
    const template = limited("A template", input.template, COMMAND_LIMITS.templateChars, input.action === undefined);
    const existing = (await departmentCommands(ctx, departmentId)).map((c) => c.name);
    if (!existing.includes(name) && existing.length >= COMMAND_LIMITS.perDepartment) {
      throw new MaestroError("INVALID_ARGUMENT", `A department has at most ${COMMAND_LIMITS.perDepartment} commands.`);
    }
    return await saveCommand(ctx, departmentId, name, {
      description: await redactForDepartment(ctx, departmentId, "command description", description),
      argumentHint: await redactForDepartment(ctx, departmentId, "command argument hint", argumentHint),
      action: input.action,
      passArguments: input.passArguments,
      template: await redactForDepartment(ctx, departmentId, "command template", template),
      updatedBy: ctx.member.userId,
      updatedAt: Date.now(),
    });
  },
});

/** Admins: removes a department command (a global of the same name shows again). */
export const deleteDepartmentCommand = departmentMutation({
  role: "admin",
  args: { commandId: v.id("slashCommands") },
  returns: v.null(),
  handler: async (ctx, { departmentId, commandId }) => {
    const command = await ctx.db.get("slashCommands", commandId);
    if (command === null) throw new MaestroError("NOT_FOUND", "Command not found.");
    if (command.departmentId !== departmentId) throw new MaestroError("FORBIDDEN", "That command belongs to another department.");
    await deleteCommand(ctx, commandId);
    return null;
  },
});
