/**
 * Slash commands in the task thread and #maestro composers (the durable-
 * sessions spec, "Slash Command Model"): the registry a department sees
 * (`getSlashCommands`), what a command would do (`previewSlashCommand`) and
 * doing it (`resolveSlashCommand`), plus the admins' department commands.
 * Planning is shared by preview and resolve, so a preview's error is exactly
 * the error sending would give, and a failed command changes nothing but the
 * `slash_command_failed` record.
 */
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import { env, type MutationCtx, type QueryCtx } from "./_generated/server";
import { departmentMutation, departmentQuery } from "./functions";
import { MAX_AGENTS_PER_DEPARTMENT } from "./agents";
import { DEFAULT_MODEL } from "./brain/model";
import { postChat } from "./chat";
import { memberActor } from "./lib/actors";
import { resolveAgentNames } from "./lib/agentNames";
import { hasRole } from "./lib/auth";
import { COMMAND_FILES } from "./lib/commandFiles.generated";
import { chatSettings } from "./lib/config";
import { MaestroError } from "./lib/errors";
import { leadModeOf } from "./lib/leadMode";
import { LIMITS } from "./lib/limits";
import { parseMentions } from "./lib/mentions";
import { textTooLongMessage } from "./lib/secrets/userText";
import {
  buildRegistry,
  COMMAND_LIMITS,
  commandNameProblem,
  helpText,
  modelChoices,
  resolveCommand,
  SLASH_ACTIONS,
  splitArguments,
  type Registry,
  type SlashCommand,
} from "./lib/slashCommands";
import { redactForDepartment } from "./lib/userText";
import { mentionCandidates, postMessage } from "./messages";
import { appendRunEvent } from "./runEvents";
import { enqueueRun, stopRun } from "./runs";
import { assignTask, moveTask } from "./tasks";
import { createDelegation, checkDelegation } from "./tools/delegation";
import { TASK_STATUSES, vLeadMode, type TaskStatus } from "./validators";

/** Recent runs of a task looked at to find the one running. */
const RUN_SCAN = 20;
/** Most command records one read returns. */
export const MAX_COMMAND_EVENTS = 100;

const vAction = v.union(...SLASH_ACTIONS.map((a) => v.literal(a)));

async function departmentCommands(ctx: QueryCtx, departmentId: Id<"departments">): Promise<Array<Doc<"slashCommands">>> {
  return await ctx.db
    .query("slashCommands")
    .withIndex("by_department_and_name", (q) => q.eq("departmentId", departmentId))
    .take(COMMAND_LIMITS.perDepartment);
}

/** Built-ins, the shipped global files, and the department's own commands over them. */
export async function registryFor(ctx: QueryCtx, departmentId: Id<"departments">): Promise<Registry> {
  const own: SlashCommand[] = (await departmentCommands(ctx, departmentId)).map((c) => ({
    name: c.name,
    description: c.description,
    argumentHint: c.argumentHint,
    ...(c.action === undefined ? {} : { action: c.action }),
    passArguments: c.passArguments,
    template: c.template,
    source: "department",
  }));
  return buildRegistry(COMMAND_FILES, own);
}

/** The task a command is typed in, which must be of this department. */
async function taskIn(ctx: QueryCtx, departmentId: Id<"departments">, taskId: Id<"tasks"> | undefined): Promise<Doc<"tasks"> | null> {
  if (taskId === undefined) return null;
  const task = await ctx.db.get("tasks", taskId);
  if (task === null) throw new MaestroError("NOT_FOUND", "Task not found.");
  if (task.departmentId !== departmentId) throw new MaestroError("FORBIDDEN", "That task belongs to another department.");
  return task;
}

async function settingsOf(ctx: QueryCtx, departmentId: Id<"departments">) {
  return await ctx.db
    .query("settings")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .unique();
}

async function roster(ctx: QueryCtx, departmentId: Id<"departments">) {
  return await ctx.db
    .query("agents")
    .withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId))
    .take(MAX_AGENTS_PER_DEPARTMENT);
}

/** The task's newest queued or running run: where the task's command events go. */
async function activeRunOn(ctx: QueryCtx, taskId: Id<"tasks">): Promise<Doc<"runs"> | null> {
  const recent = await ctx.db
    .query("runs")
    .withIndex("by_task", (q) => q.eq("taskId", taskId))
    .order("desc")
    .take(RUN_SCAN);
  return recent.find((r) => r.status === "running" || r.status === "queued") ?? null;
}

/** The agent a prompt command in a task goes to: one it mentions, else the task's assignee, else the squad lead. */
async function promptTarget(ctx: QueryCtx, task: Doc<"tasks">, rendered: string): Promise<Doc<"agents"> | null> {
  const agents = await roster(ctx, task.departmentId);
  const candidates = (await mentionCandidates(ctx, task.departmentId)).filter((c) => c.kind === "agent");
  const mentioned = parseMentions(rendered, candidates)[0];
  return (
    agents.find((a) => a.sessionKey === mentioned?.key) ??
    agents.find((a) => task.assigneeSessionKeys.includes(a.sessionKey)) ??
    agents.find((a) => a.isSquadLead) ??
    null
  );
}

function normalStatus(word: string): TaskStatus | null {
  const key = word.trim().toLowerCase().replace(/[\s-]+/g, "_");
  return (TASK_STATUSES as readonly string[]).includes(key) ? (key as TaskStatus) : null;
}

/** What a command will do, checked against the database; nothing is written. */
type Plan =
  | { ok: false; name: string; invokedAs: string; error: string }
  | ({ ok: true; name: string; invokedAs: string; args: string; preview: string } & Step);

type Step =
  | { step: "prompt_task"; payload: string; target: Doc<"agents"> | null }
  | { step: "prompt_chat"; payload: string }
  | { step: "new_session" }
  | { step: "stop"; run: Doc<"runs"> }
  | { step: "set_model"; model: string | undefined }
  | { step: "switch_mode"; mode: "plan" | "act" }
  | { step: "delegate"; agent: Doc<"agents">; title: string }
  | { step: "assign"; agents: Array<Doc<"agents">> }
  | { step: "set_status"; status: TaskStatus }
  | { step: "help"; text: string };

interface Where {
  departmentId: Id<"departments">;
  task: Doc<"tasks"> | null;
  member: Doc<"members">;
  department: Doc<"departments">;
}

async function plan(ctx: QueryCtx, where: Where, text: string): Promise<Plan> {
  const { departmentId, task, member, department } = where;
  const registry = await registryFor(ctx, departmentId);
  const resolution = resolveCommand(registry.commands, text);
  if (!resolution.ok) return resolution;
  const { invokedAs, rawArgs } = resolution;
  const name = resolution.command.name;
  const fail = (error: string): Plan => ({ ok: false, name, invokedAs, error });
  const ok = (preview: string, step: Step): Plan => ({ ok: true, name, invokedAs, args: rawArgs, preview, ...step });
  const needTask = () => fail(`/${name} works in a task's thread.`);

  if (resolution.kind === "prompt") {
    const { payload } = resolution;
    if (task === null) {
      const settings = await chatSettings(ctx, departmentId);
      if (!settings.enabled) return fail("Chat disabled by configuration");
      const tooLong = textTooLongMessage(payload, settings.maxMessageChars, "The rendered command");
      if (tooLong !== null) return fail(tooLong);
      return ok(payload, { step: "prompt_chat", payload });
    }
    if (payload.length > LIMITS.messageChars) return fail(`The rendered command is ${payload.length} characters; the limit is ${LIMITS.messageChars}.`);
    const target = await promptTarget(ctx, task, resolution.rendered);
    return ok(payload, { step: "prompt_task", payload, target });
  }

  const args = resolution.args.trim();
  switch (resolution.action) {
    case "help":
      return ok(helpText(registry.commands), { step: "help", text: helpText(registry.commands) });
    case "new_session":
      if (!hasRole(member.role, "admin")) return fail(`Only admins of ${department.name} can start a new chat session.`);
      return ok(`Starts a fresh #maestro session for ${department.name}: older messages leave the pane and the agents' view.`, { step: "new_session" });
    case "stop_stream": {
      if (task === null) return needTask();
      const run = await activeRunOn(ctx, task._id);
      if (run === null) return fail("Nothing is running on this task.");
      const agent = await ctx.db.get("agents", run.agentId);
      return ok(`Stops ${agent?.name ?? "the agent"}'s ${run.status} run on this task.`, { step: "stop", run });
    }
    case "set_model": {
      if (task === null) return needTask();
      const choices = modelChoices(env, DEFAULT_MODEL);
      if (args === "default") return ok("Agents on this task go back to their own model.", { step: "set_model", model: undefined });
      if (!choices.includes(args)) return fail(`Unknown model "${args}". Choose one of: ${choices.join(", ")} (or default).`);
      return ok(`Agents on this task will use ${args}.`, { step: "set_model", model: args });
    }
    case "switch_mode": {
      const mode = args.toLowerCase();
      if (mode !== "plan" && mode !== "act") return fail(`/${name} takes plan or act, not "${args}".`);
      const where = task === null ? "in #maestro" : "on this task";
      const what = mode === "plan" ? "proposes a plan for approval before delegating" : "delegates directly";
      return ok(`The lead ${what} ${where}.`, { step: "switch_mode", mode });
    }
    case "delegate": {
      const [agentName = "", ...rest] = splitArguments(args);
      const title = rest.join(" ").trim();
      const agents = await roster(ctx, departmentId);
      const check = checkDelegation({ title, instruction: title, assignees: [agentName] }, agents, null, `/${name}`);
      if (!check.ok) return fail(check.message);
      const agent = agents.find((a) => a.sessionKey === check.resolved[0].sessionKey)!;
      if (title.length > LIMITS.taskTitleChars) return fail(`A title has at most ${LIMITS.taskTitleChars} characters.`);
      const under = task === null ? "" : ` under “${task.title}”`;
      return ok(`Creates “${title}” for ${agent.name}${under}, delegated by ${member.name}.`, { step: "delegate", agent, title });
    }
    case "assign": {
      if (task === null) return needTask();
      const agents = await roster(ctx, departmentId);
      const { resolved, unknown } = resolveAgentNames(splitArguments(args), agents);
      if (unknown.length > 0) {
        const u = unknown[0];
        const hint = u.suggestions.length > 0 ? ` (did you mean ${u.suggestions.join(" or ")}?)` : "";
        return fail(`Unknown agent "${u.requested}"${hint}. The squad is: ${agents.map((a) => a.name).join(", ")}.`);
      }
      const picked = agents.filter((a) => resolved.some((r) => r.sessionKey === a.sessionKey));
      if (task.assigneeSessionKeys.length + picked.length > LIMITS.assigneesPerTask) return fail(`A task has at most ${LIMITS.assigneesPerTask} assignees.`);
      return ok(`Assigns this task to ${picked.map((a) => a.name).join(", ")}.`, { step: "assign", agents: picked });
    }
    case "set_status": {
      if (task === null) return needTask();
      const status = normalStatus(args);
      if (status === null) return fail(`Unknown status "${args}". Use one of: ${TASK_STATUSES.join(", ")}.`);
      return ok(`Moves this task to ${status}.`, { step: "set_status", status });
    }
  }
}

/** Writes an invocation or failure: into the run's stream when a run is involved, else a command record. */
async function record(
  ctx: MutationCtx,
  where: Where,
  runId: Id<"runs"> | null,
  payload: { type: "slash_command_invoked"; name: string; invokedAs: string; args: string } | { type: "slash_command_failed"; name: string; invokedAs: string; error: string },
) {
  if (runId !== null) {
    await appendRunEvent(ctx, runId, payload);
    return;
  }
  await ctx.db.insert("commandEvents", {
    departmentId: where.departmentId,
    ...(where.task === null ? {} : { taskId: where.task._id }),
    userId: where.member.userId,
    payload,
  });
}

/** Carries out a checked plan; returns what to tell the person and the run involved, if any. */
async function execute(
  ctx: MutationCtx,
  where: Where,
  step: Step,
): Promise<{ message: string; runId: Id<"runs"> | null; taskId?: Id<"tasks"> } | { error: string }> {
  const { departmentId, task, member } = where;
  const actor = memberActor(member);
  const taskRun = async () => (task === null ? null : ((await activeRunOn(ctx, task._id))?._id ?? null));
  switch (step.step) {
    case "prompt_chat":
      await postChat(ctx, departmentId, "@human", step.payload, { userId: member.userId, name: member.name });
      return { message: "Sent to #maestro.", runId: null };
    case "prompt_task": {
      const current = task!;
      const messageId = await postMessage(ctx, actor, current, step.payload);
      if (step.target === null) return { message: "Posted in the thread (no agent to send it to).", runId: null };
      const started = await enqueueRun(ctx, step.target, current._id, { kind: "mentioned", messageId });
      if (started.runId === null) return { message: `Posted for ${step.target.name}; no run started: ${started.note}.`, runId: await taskRun() };
      return { message: `Sent to ${step.target.name}.`, runId: started.runId };
    }
    case "new_session":
      await ctx.db.patch("departments", departmentId, { chatSessionId: crypto.randomUUID() });
      return { message: "A new #maestro session has started.", runId: await taskRun() };
    case "stop":
      await stopRun(ctx, step.run, member);
      return { message: "Stopped.", runId: step.run._id };
    case "set_model":
      await ctx.db.patch("tasks", task!._id, { model: step.model, updatedAt: Date.now() });
      return { message: step.model === undefined ? "Agents on this task use their own model again." : `Agents on this task now use ${step.model}.`, runId: await taskRun() };
    case "switch_mode": {
      if (task !== null) {
        await ctx.db.patch("tasks", task._id, { leadMode: step.mode, updatedAt: Date.now() });
      } else {
        const saved = await settingsOf(ctx, departmentId);
        if (saved === null) await ctx.db.insert("settings", { departmentId, chat: {}, leadMode: step.mode });
        else await ctx.db.patch("settings", saved._id, { leadMode: step.mode });
      }
      return { message: `Lead mode: ${step.mode}.`, runId: await taskRun() };
    }
    case "delegate": {
      const title = await redactForDepartment(ctx, departmentId, "task title", step.title);
      const created = await createDelegation(
        ctx,
        { actor, delegatedBy: member.name },
        { departmentId, title, description: "", assigneeSessionKeys: [step.agent.sessionKey], instruction: title, ...(task === null ? {} : { parentTaskId: task._id }) },
      );
      // A guard stops before anything is written, so this is a clean failure.
      if (!created.ok) return { error: `${created.guard.reason} ${created.guard.choices}` };
      return { message: `Delegated “${created.title}” to ${step.agent.name}.`, runId: await taskRun(), taskId: created.taskId };
    }
    case "assign": {
      const keys = [...new Set([...task!.assigneeSessionKeys, ...step.agents.map((a) => a.sessionKey)])];
      await assignTask(ctx, actor, task!, keys);
      return { message: `Assigned to ${step.agents.map((a) => a.name).join(", ")}.`, runId: await taskRun() };
    }
    case "set_status":
      if (task!.status !== step.status) await moveTask(ctx, actor, task!, step.status);
      return { message: `Moved to ${step.status}.`, runId: await taskRun() };
    case "help":
      return { message: step.text, runId: null };
  }
}

const vCommandView = v.object({
  name: v.string(),
  description: v.string(),
  argumentHint: v.string(),
  kind: v.union(v.literal("action"), v.literal("prompt")),
  source: v.union(v.literal("builtin"), v.literal("global"), v.literal("department")),
});

/** The commands the composers offer, the models /model lists, and the #maestro lead mode (for its badge). */
export const getSlashCommands = departmentQuery({
  args: {},
  returns: v.object({ commands: v.array(vCommandView), errors: v.array(v.string()), models: v.array(v.string()), chatLeadMode: vLeadMode }),
  handler: async (ctx, { departmentId }) => {
    const { commands, errors } = await registryFor(ctx, departmentId);
    return {
      commands: commands.map((c) => ({
        name: c.name,
        description: c.description,
        argumentHint: c.argumentHint,
        kind: c.action === undefined ? ("prompt" as const) : ("action" as const),
        source: c.source,
      })),
      errors,
      models: modelChoices(env, DEFAULT_MODEL),
      chatLeadMode: leadModeOf(null, await settingsOf(ctx, departmentId)),
    };
  },
});

const vWhereArgs = { text: v.string(), taskId: v.optional(v.id("tasks")) };

/** What sending `text` would do: the rendered prompt or the action's effect, or why it cannot be sent (sending needs a member). */
export const previewSlashCommand = departmentQuery({
  args: vWhereArgs,
  returns: v.union(
    v.object({ ok: v.literal(true), kind: v.union(v.literal("prompt"), v.literal("action")), text: v.string(), target: v.union(v.string(), v.null()) }),
    v.object({ ok: v.literal(false), error: v.string() }),
  ),
  handler: async (ctx, { departmentId, text, taskId }) => {
    const task = await taskIn(ctx, departmentId, taskId);
    const planned = await plan(ctx, { departmentId, task, member: ctx.member, department: ctx.department }, text);
    if (!planned.ok) return { ok: false as const, error: planned.error };
    const prompt = planned.step === "prompt_task" || planned.step === "prompt_chat";
    const target = planned.step === "prompt_task" ? (planned.target?.name ?? null) : planned.step === "prompt_chat" ? "#maestro" : null;
    return { ok: true as const, kind: prompt ? ("prompt" as const) : ("action" as const), text: planned.preview, target };
  },
});

/**
 * Resolves and runs a command typed in a task's thread (`taskId`) or in
 * #maestro. Every invocation writes `slash_command_invoked`, every failure
 * `slash_command_failed` with the reason; a failure changes nothing else.
 */
export const resolveSlashCommand = departmentMutation({
  args: vWhereArgs,
  returns: v.union(
    v.object({ ok: v.literal(true), message: v.string(), taskId: v.optional(v.id("tasks")) }),
    v.object({ ok: v.literal(false), error: v.string() }),
  ),
  handler: async (ctx, { departmentId, text, taskId }) => {
    const task = await taskIn(ctx, departmentId, taskId);
    const where: Where = { departmentId, task, member: ctx.member, department: ctx.department };
    const planned = await plan(ctx, where, text);
    if (!planned.ok) {
      const runId = task === null ? null : ((await activeRunOn(ctx, task._id))?._id ?? null);
      await record(ctx, where, runId, { type: "slash_command_failed", name: planned.name, invokedAs: planned.invokedAs, error: planned.error });
      return { ok: false as const, error: planned.error };
    }
    const done = await execute(ctx, where, planned);
    if ("error" in done) {
      await record(ctx, where, null, { type: "slash_command_failed", name: planned.name, invokedAs: planned.invokedAs, error: done.error });
      return { ok: false as const, error: done.error };
    }
    await record(ctx, where, done.runId, { type: "slash_command_invoked", name: planned.name, invokedAs: planned.invokedAs, args: planned.args });
    return { ok: true as const, message: done.message, ...(done.taskId === undefined ? {} : { taskId: done.taskId }) };
  },
});

const vCommandEvent = v.object({
  _id: v.id("commandEvents"),
  _creationTime: v.number(),
  taskId: v.optional(v.id("tasks")),
  userId: v.id("users"),
  payload: v.union(
    v.object({ type: v.literal("slash_command_invoked"), name: v.string(), invokedAs: v.string(), args: v.string() }),
    v.object({ type: v.literal("slash_command_failed"), name: v.string(), invokedAs: v.string(), error: v.string() }),
  ),
});

/** Command records that involved no run, newest first: a task's (with `taskId`) or #maestro's. */
export const listCommandEvents = departmentQuery({
  args: { taskId: v.optional(v.id("tasks")) },
  returns: v.array(vCommandEvent),
  handler: async (ctx, { departmentId, taskId }) => {
    await taskIn(ctx, departmentId, taskId);
    const rows =
      taskId === undefined
        ? (
            await ctx.db
              .query("commandEvents")
              .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
              .order("desc")
              .take(MAX_COMMAND_EVENTS * 2)
          ).filter((e) => e.taskId === undefined)
        : await ctx.db
            .query("commandEvents")
            .withIndex("by_task", (q) => q.eq("taskId", taskId))
            .order("desc")
            .take(MAX_COMMAND_EVENTS);
    return rows.slice(0, MAX_COMMAND_EVENTS).map(({ _id, _creationTime, taskId, userId, payload }) => ({ _id, _creationTime, taskId, userId, payload }));
  },
});

// ---- department commands (settings) ----

const vDepartmentCommand = v.object({
  _id: v.id("slashCommands"),
  name: v.string(),
  description: v.string(),
  argumentHint: v.string(),
  action: v.optional(vAction),
  passArguments: v.boolean(),
  template: v.string(),
  updatedAt: v.number(),
});

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
  args: {
    name: v.string(),
    description: v.string(),
    argumentHint: v.string(),
    action: v.optional(vAction),
    passArguments: v.boolean(),
    template: v.string(),
  },
  returns: v.id("slashCommands"),
  handler: async (ctx, { departmentId, ...input }) => {
    const name = input.name.trim().replace(/^\//, "").toLowerCase();
    const nameProblem = commandNameProblem(name);
    if (nameProblem !== null) throw new MaestroError("INVALID_ARGUMENT", nameProblem);
    if (buildRegistry([], []).commands.some((c) => c.name === name)) {
      throw new MaestroError("INVALID_ARGUMENT", `/${name} is a built-in command; pick another name.`);
    }
    const description = limited("A description", input.description, COMMAND_LIMITS.descriptionChars, true);
    const argumentHint = limited("An argument hint", input.argumentHint, COMMAND_LIMITS.argumentHintChars, false);
    const template = limited("A template", input.template, COMMAND_LIMITS.templateChars, input.action === undefined);
    const existing = await ctx.db
      .query("slashCommands")
      .withIndex("by_department_and_name", (q) => q.eq("departmentId", departmentId).eq("name", name))
      .unique();
    if (existing === null && (await departmentCommands(ctx, departmentId)).length >= COMMAND_LIMITS.perDepartment) {
      throw new MaestroError("INVALID_ARGUMENT", `A department has at most ${COMMAND_LIMITS.perDepartment} commands.`);
    }
    const fields = {
      description: await redactForDepartment(ctx, departmentId, "command description", description),
      argumentHint: await redactForDepartment(ctx, departmentId, "command argument hint", argumentHint),
      action: input.action,
      passArguments: input.passArguments,
      template: await redactForDepartment(ctx, departmentId, "command template", template),
      updatedBy: ctx.member.userId,
      updatedAt: Date.now(),
    };
    if (existing !== null) {
      await ctx.db.patch("slashCommands", existing._id, fields);
      return existing._id;
    }
    return await ctx.db.insert("slashCommands", { departmentId, name, ...fields });
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
    await ctx.db.delete("slashCommands", commandId);
    return null;
  },
});
