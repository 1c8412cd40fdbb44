/**
 * What slash commands do, one entry per action, shaped like the tool
 * registry: each entry carries its command (name, description, argument
 * hint) when it is a built-in, `plan` (what it would do, checked against the
 * database; nothing is written, so a preview's error is exactly the error
 * sending would give) and `execute`. Actions that command files name
 * (`action: new_session` …) have no built-in command of their own. The
 * engine below never names an action: it looks its entry up.
 */
import type { Doc, Id } from "../_generated/dataModel";
import { env, type MutationCtx, type QueryCtx } from "../_generated/server";
import { memberActor, memberKey } from "../lib/actors";
import { agentNamesIn, resolveAgentNames } from "../lib/agentNames";
import { COMMAND_FILES } from "../lib/commandFiles.generated";
import { checkDelegation } from "../lib/delegation";
import { LIMITS } from "../lib/limits";
import { parseMentions } from "../lib/mentions";
import { DEFAULT_MODEL } from "../lib/modelConfig";
import { hasRole } from "../lib/roles";
import { textTooLongMessage } from "../lib/secrets/userText";
import { buildRegistry, helpText, modelChoices, resolveCommand, splitArguments, type Registry, type SlashCommand } from "../lib/slashCommands";
import { wakeChatMentions } from "../reactions/chatMention";
import { createDelegation } from "../reactions/delegation";
import { postChannelMessage } from "../reactions/delivery";
import { STOPPABLE, stopRun } from "../reactions/runEnd";
import { enqueueRun } from "../reactions/runQueue";
import { assignTask, moveTask } from "../reactions/taskChange";
import { postToThread } from "../reactions/threadPost";
import { departmentAgents } from "../records/agents";
import { postChatMessage, startChatSession } from "../records/chat";
import { mentionCandidates } from "../records/messages";
import { taskRunWithStatus } from "../records/runs";
import { chatSettings, redactForDepartment, saveChatLeadMode } from "../records/settings";
import { departmentCommands } from "../records/slashCommands";
import { setTaskRunSettings } from "../records/tasks";
import { TASK_STATUSES, type TaskStatus } from "../validators";

/** Where a command is typed: a task's thread (`task`), a channel or DM (`channel`), or #maestro (both null), by whom. */
export interface Where {
  departmentId: Id<"departments">;
  task: Doc<"tasks"> | null;
  /** A conversation the member may post in (checked by the caller); never set together with `task`. */
  channel?: Doc<"channels"> | null;
  member: Doc<"members">;
  department: Doc<"departments">;
}

/** The composers a command can be typed in. */
export const SLASH_PLACES = ["task", "chat", "channel"] as const;
export type SlashPlace = (typeof SLASH_PLACES)[number];

/** Which composer `where` is. */
export function placeOf(where: Pick<Where, "task" | "channel">): SlashPlace {
  return where.task !== null ? "task" : (where.channel ?? null) !== null ? "channel" : "chat";
}

const PLACE_NAMES: Record<SlashPlace, string> = { task: "a task's thread", chat: "#maestro", channel: "a channel or DM" };

/** Why a command cannot run in this composer: it names where it does. */
export function placeRefusal(name: string, places: readonly SlashPlace[], here: SlashPlace): string | null {
  if (places.includes(here)) return null;
  return `/${name} works in ${places.map((p) => PLACE_NAMES[p]).join(" or ")}.`;
}

/** What an action would do (`preview`, and the `step` execute takes), or why it cannot be done. */
type Planned<Step> = { ok: true; preview: string; step: Step } | { ok: false; error: string };

/** What to tell the person, and the run the command involved (its stream records the command), or a failure found while doing it. */
type Done = { message: string; runId: Id<"runs"> | null; taskId?: Id<"tasks"> } | { error: string };

/** What `plan` knows about the invocation: the name typed, its arguments (a prompt's wrapped payload) and the department's registry. */
interface Invocation {
  name: string;
  args: string;
  /** A prompt command's template with the arguments filled in, unwrapped. */
  rendered: string;
  registry: Registry;
}

interface SlashActionEntry<Step> {
  /** The `action` a command maps to. */
  action: string;
  /** The built-in command that runs this action, if Maestro offers one itself. */
  command?: Omit<SlashCommand, "action" | "template" | "source">;
  /** The composers it runs in; elsewhere it is refused (and hidden from that composer's list). All when absent. */
  places?: readonly SlashPlace[];
  plan(ctx: QueryCtx, where: Where, invocation: Invocation): Promise<Planned<Step>>;
  // Method syntax: an entry of any step type fits the registry (its own plan feeds its own execute).
  execute(ctx: MutationCtx, where: Where, step: Step): Promise<Done>;
}

/** Types an entry by its step, so its `execute` gets what its `plan` made. */
function slashAction<Step>(entry: SlashActionEntry<Step>): SlashActionEntry<Step> {
  return entry;
}

const ok = <Step>(preview: string, step: Step): Planned<Step> => ({ ok: true, preview, step });
const fail = (error: string): { ok: false; error: string } => ({ ok: false, error });
const needTask = (name: string) => fail(`/${name} works in a task's thread.`);

/** The task's newest queued or running run: where the task's command events go. */
async function taskRun(ctx: QueryCtx, task: Doc<"tasks"> | null): Promise<Id<"runs"> | null> {
  return task === null ? null : ((await taskRunWithStatus(ctx, task._id, ["running", "queued"]))?._id ?? null);
}

function normalStatus(word: string): TaskStatus | null {
  const key = word.trim().toLowerCase().replace(/[\s-]+/g, "_");
  return (TASK_STATUSES as readonly string[]).includes(key) ? (key as TaskStatus) : null;
}

const help = slashAction({
  action: "help",
  command: { name: "help", description: "List the slash commands", argumentHint: "", passArguments: false },
  async plan(_ctx, _where, { registry }) {
    const text = helpText(registry.commands);
    return ok(text, { text });
  },
  async execute(_ctx, _where, { text }) {
    return { message: text, runId: null };
  },
});

/** The channel a task made in this composer is followed in: the channel typed in (a DM follows no task), else none. */
function followingChannel(channel: Doc<"channels"> | null | undefined): Id<"channels"> | null {
  return channel?.kind === "channel" ? channel._id : null;
}

const delegate = slashAction({
  action: "delegate",
  command: { name: "delegate", description: "Delegate a new task to an agent directly", argumentHint: "<agent> <title>", passArguments: true, argument: "agent" },
  async plan(ctx, { departmentId, task, channel, member }, { name, args }) {
    const agents = await departmentAgents(ctx, departmentId);
    // The agent's name may be several words (`/delegate Dev Bot fix the login`): the longest one the roster has.
    const { names, rest } = agentNamesIn(splitArguments(args), agents, 1);
    const agentName = names[0] ?? "";
    const title = rest.join(" ").trim();
    const check = checkDelegation({ title, instruction: title, assignees: [agentName] }, agents, null, `/${name}`);
    if (!check.ok) return fail(check.message);
    const agent = agents.find((a) => a.sessionKey === check.resolved[0].sessionKey)!;
    if (title.length > LIMITS.taskTitleChars) return fail(`A title has at most ${LIMITS.taskTitleChars} characters.`);
    const under = task === null ? "" : ` under “${task.title}”`;
    const followed = channel?.kind === "channel" ? `, followed in #${channel.name}` : "";
    return ok(`Creates “${title}” for ${agent.name}${under}${followed}, delegated by ${member.name}.`, { agent, title });
  },
  async execute(ctx, { departmentId, task, channel, member }, step) {
    const title = await redactForDepartment(ctx, departmentId, "task title", step.title);
    const channelId = followingChannel(channel);
    const created = await createDelegation(
      ctx,
      { actor: memberActor(member), delegatedBy: member.name },
      {
        departmentId,
        title,
        description: "",
        assigneeSessionKeys: [step.agent.sessionKey],
        instruction: title,
        ...(task === null ? {} : { parentTaskId: task._id }),
        // Typed in a channel: the task is followed there, so its delegation updates post back into it.
        ...(channelId === null ? {} : { channelId }),
      },
    );
    // A guard stops before anything is written, so this is a clean failure.
    if (!created.ok) return { error: `${created.guard.reason} ${created.guard.choices}` };
    return { message: `Delegated “${created.title}” to ${step.agent.name}.`, runId: await taskRun(ctx, task), taskId: created.taskId };
  },
});

const assign = slashAction({
  action: "assign",
  places: ["task"],
  command: { name: "assign", description: "Assign this task to an agent", argumentHint: "<agent>", passArguments: true, argument: "agents" },
  async plan(ctx, { departmentId, task }, { name, args }) {
    if (task === null) return needTask(name);
    const agents = await departmentAgents(ctx, departmentId);
    const { resolved, unknown } = resolveAgentNames(agentNamesIn(splitArguments(args), agents).names, agents);
    if (unknown.length > 0) {
      const u = unknown[0];
      const hint = u.suggestions.length > 0 ? ` (did you mean ${u.suggestions.join(" or ")}?)` : "";
      return fail(`Unknown agent "${u.requested}"${hint}. The squad is: ${agents.map((a) => a.name).join(", ")}.`);
    }
    const picked = agents.filter((a) => resolved.some((r) => r.sessionKey === a.sessionKey));
    if (task.assigneeSessionKeys.length + picked.length > LIMITS.assigneesPerTask) return fail(`A task has at most ${LIMITS.assigneesPerTask} assignees.`);
    return ok(`Assigns this task to ${picked.map((a) => a.name).join(", ")}.`, { agents: picked });
  },
  async execute(ctx, { task, member }, { agents }) {
    const keys = [...new Set([...task!.assigneeSessionKeys, ...agents.map((a) => a.sessionKey)])];
    await assignTask(ctx, memberActor(member), task!, keys);
    return { message: `Assigned to ${agents.map((a) => a.name).join(", ")}.`, runId: await taskRun(ctx, task) };
  },
});

const setStatus = slashAction({
  action: "set_status",
  places: ["task"],
  command: { name: "status", description: "Move this task to a status", argumentHint: "<inbox|assigned|in_progress|review|done|blocked>", passArguments: true, argument: "status" },
  async plan(_ctx, { task }, { name, args }) {
    if (task === null) return needTask(name);
    const status = normalStatus(args);
    if (status === null) return fail(`Unknown status "${args}". Use one of: ${TASK_STATUSES.join(", ")}.`);
    return ok(`Moves this task to ${status}.`, { status });
  },
  async execute(ctx, { task, member }, { status }) {
    if (task!.status !== status) await moveTask(ctx, memberActor(member), task!, status);
    return { message: `Moved to ${status}.`, runId: await taskRun(ctx, task) };
  },
});

const newSession = slashAction({
  action: "new_session",
  // It restarts #maestro: from a task's thread too, never from another conversation.
  places: ["task", "chat"],
  async plan(_ctx, { member, department }) {
    if (!hasRole(member.role, "admin")) return fail(`Only admins of ${department.name} can start a new chat session.`);
    return ok(`Starts a fresh #maestro session for ${department.name}: older messages leave the pane and the agents' view.`, {});
  },
  async execute(ctx, { departmentId, task }) {
    await startChatSession(ctx, departmentId);
    return { message: "A new #maestro session has started.", runId: await taskRun(ctx, task) };
  },
});

const stopStream = slashAction({
  action: "stop_stream",
  places: ["task"],
  async plan(ctx, { task }, { name }) {
    if (task === null) return needTask(name);
    const run = await taskRunWithStatus(ctx, task._id, STOPPABLE);
    if (run === null) return fail("Nothing is running on this task.");
    const agent = await ctx.db.get("agents", run.agentId);
    return ok(`Stops ${agent?.name ?? "the agent"}'s ${run.status} run on this task.`, { run });
  },
  async execute(ctx, { member }, { run }) {
    await stopRun(ctx, run, member);
    return { message: "Stopped.", runId: run._id };
  },
});

const setModel = slashAction({
  action: "set_model",
  places: ["task"],
  async plan(_ctx, { task }, { name, args }) {
    if (task === null) return needTask(name);
    const choices = modelChoices(env, DEFAULT_MODEL);
    if (args === "default") return ok("Agents on this task go back to their own model.", { model: undefined as string | undefined });
    if (!choices.includes(args)) return fail(`Unknown model "${args}". Choose one of: ${choices.join(", ")} (or default).`);
    return ok(`Agents on this task will use ${args}.`, { model: args as string | undefined });
  },
  async execute(ctx, { task }, { model }) {
    await setTaskRunSettings(ctx, task!._id, { model });
    return { message: model === undefined ? "Agents on this task use their own model again." : `Agents on this task now use ${model}.`, runId: await taskRun(ctx, task) };
  },
});

const switchMode = slashAction({
  action: "switch_mode",
  places: ["task", "chat"],
  async plan(_ctx, { task, member, department }, { name, args }) {
    const mode = args.toLowerCase();
    if (mode !== "plan" && mode !== "act") return fail(`/${name} takes plan or act, not "${args}".`);
    // In #maestro the mode is the department's setting; a task's is that task's own.
    if (task === null && !hasRole(member.role, "admin")) return fail(`Only admins of ${department.name} can change the lead mode of #maestro.`);
    const where = task === null ? "in #maestro" : "on this task";
    const what = mode === "plan" ? "proposes a plan for approval before delegating" : "delegates directly";
    return ok(`The lead ${what} ${where}.`, { mode: mode as "plan" | "act" });
  },
  async execute(ctx, { departmentId, task }, { mode }) {
    if (task !== null) await setTaskRunSettings(ctx, task._id, { leadMode: mode });
    else await saveChatLeadMode(ctx, departmentId, mode);
    return { message: `Lead mode: ${mode}.`, runId: await taskRun(ctx, task) };
  },
});

/** Every action a command can run. */
const SLASH_REGISTRY: ReadonlyArray<SlashActionEntry<unknown>> = [help, delegate, assign, setStatus, newSession, stopStream, setModel, switchMode];

const BY_ACTION: ReadonlyMap<string, SlashActionEntry<unknown>> = new Map(SLASH_REGISTRY.map((entry) => [entry.action, entry]));

/** The commands Maestro carries out itself; their names are reserved. */
export const BUILTIN_COMMANDS: readonly SlashCommand[] = SLASH_REGISTRY.flatMap((entry) =>
  entry.command === undefined ? [] : [{ ...entry.command, action: entry.action, template: "", source: "builtin" as const }],
);

/** The agent a prompt command in a task goes to: one it mentions, else the task's assignee, else the squad lead. */
async function promptTarget(ctx: QueryCtx, task: Doc<"tasks">, rendered: string): Promise<Doc<"agents"> | null> {
  const agents = await departmentAgents(ctx, task.departmentId);
  const candidates = (await mentionCandidates(ctx, task.departmentId)).filter((c) => c.kind === "agent");
  const mentioned = parseMentions(rendered, candidates)[0];
  return agents.find((a) => a.sessionKey === mentioned?.key) ?? agents.find((a) => task.assigneeSessionKeys.includes(a.sessionKey)) ?? agents.find((a) => a.isSquadLead) ?? null;
}

/**
 * A prompt command: its rendered template, wrapped, sent to #maestro (typed
 * there) or posted in the task's thread for the agent it names, the task's
 * assignee or the squad lead.
 */
const prompt = slashAction({
  action: "prompt",
  async plan(ctx, { departmentId, task, channel }, { args: payload, rendered }) {
    if (channel) {
      if (payload.length > LIMITS.messageChars) return fail(`The rendered command is ${payload.length} characters; the limit is ${LIMITS.messageChars}.`);
      return ok(payload, { payload, target: null as Doc<"agents"> | null, chat: false });
    }
    if (task === null) {
      const settings = await chatSettings(ctx, departmentId);
      if (!settings.enabled) return fail("Chat disabled by configuration");
      const tooLong = textTooLongMessage(payload, settings.maxMessageChars, "The rendered command");
      if (tooLong !== null) return fail(tooLong);
      return ok(payload, { payload, target: null as Doc<"agents"> | null, chat: true });
    }
    if (payload.length > LIMITS.messageChars) return fail(`The rendered command is ${payload.length} characters; the limit is ${LIMITS.messageChars}.`);
    return ok(payload, { payload, target: await promptTarget(ctx, task, rendered), chat: false });
  },
  async execute(ctx, { departmentId, task, channel, member }, { payload, target, chat }) {
    if (channel) {
      // Posted as the member: the same checks, mentions and wake-ups as a message typed there.
      await postChannelMessage(ctx, { channel, from: memberActor(member), senderKey: memberKey(member.userId), body: payload });
      return { message: `Posted in ${channel.kind === "dm" ? "the DM" : `#${channel.name}`}.`, runId: null };
    }
    if (chat) {
      const posted = await postChatMessage(ctx, departmentId, "@human", payload, { userId: member.userId, name: member.name });
      await wakeChatMentions(ctx, departmentId, posted, member.name);
      return { message: "Sent to #maestro.", runId: null };
    }
    const message = await postToThread(ctx, memberActor(member), task!, payload);
    if (target === null) return { message: "Posted in the thread (no agent to send it to).", runId: null };
    const started = await enqueueRun(ctx, target, task!._id, { kind: "mentioned", messageId: message._id });
    if (started.runId === null) return { message: `Posted for ${target.name}; no run started: ${started.note}.`, runId: await taskRun(ctx, task) };
    return { message: `Sent to ${target.name}.`, runId: started.runId };
  },
});

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
  return buildRegistry(BUILTIN_COMMANDS, COMMAND_FILES, own);
}

/** Where a prompt command's text goes, as its preview names it. */
function promptTargetName(where: Where, agent: Doc<"agents"> | null): string | null {
  if (where.channel) return where.channel.kind === "dm" ? "the DM" : `#${where.channel.name}`;
  return where.task === null ? "#maestro" : (agent?.name ?? null);
}

/** The composers each command runs in, by name (prompt commands run everywhere). */
export function placesOf(command: Pick<SlashCommand, "action">): readonly SlashPlace[] {
  return (command.action === undefined ? undefined : BY_ACTION.get(command.action)?.places) ?? SLASH_PLACES;
}

/** A command, planned: its entry and step with what it would do, or why not; names the command as typed. */
export type PlannedCommand =
  | { ok: false; name: string; invokedAs: string; error: string }
  | { ok: true; name: string; invokedAs: string; args: string; preview: string; kind: "prompt" | "action"; target: string | null; run: (ctx: MutationCtx) => Promise<Done> };

/** What typed `text` would do where it is typed, checked against the database; nothing is written. */
export async function planCommand(ctx: QueryCtx, where: Where, text: string): Promise<PlannedCommand> {
  const registry = await registryFor(ctx, where.departmentId);
  const resolution = resolveCommand(registry.commands, text);
  if (!resolution.ok) return resolution;
  const { invokedAs, rawArgs } = resolution;
  const name = resolution.command.name;
  const entry: SlashActionEntry<unknown> | undefined = resolution.kind === "prompt" ? prompt : BY_ACTION.get(resolution.action);
  if (entry === undefined) return { ok: false, name, invokedAs, error: `/${name} names an action Maestro does not know.` };
  const misplaced = placeRefusal(name, entry.places ?? SLASH_PLACES, placeOf(where));
  if (misplaced !== null) return { ok: false, name, invokedAs, error: misplaced };
  const invocation =
    resolution.kind === "prompt" ? { name, args: resolution.payload, rendered: resolution.rendered, registry } : { name, args: resolution.args.trim(), rendered: resolution.args.trim(), registry };
  const planned = await entry.plan(ctx, where, invocation);
  if (!planned.ok) return { ok: false, name, invokedAs, error: planned.error };
  const target = resolution.kind === "prompt" ? promptTargetName(where, (planned.step as { target: Doc<"agents"> | null }).target) : null;
  return { ok: true, name, invokedAs, args: rawArgs, preview: planned.preview, kind: resolution.kind, target, run: (mutationCtx) => entry.execute(mutationCtx, where, planned.step) };
}
