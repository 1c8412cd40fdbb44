/**
 * What a run reads: everything one round's prompt is built from (the
 * assembled context and what the injection step shows), what the
 * dispatcher checks before each call, and whether a call already acted.
 * Bounded reads through the records, each in one transaction.
 */
import { v, type Infer } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import { internalQuery, type QueryCtx } from "../_generated/server";
import { actorName } from "../lib/actors";
import { brainConfig } from "../lib/brainConfig";
import { chatExcluded } from "../lib/chat";
import { withAttachedFiles } from "../lib/files";
import { withTaskLinks } from "../lib/taskLinks";
import { countTokens, keepNewestWithinBudget } from "../lib/tokens";
import { redactPii, type PiiRules } from "../lib/pii";
import { cutQuote, whyWithFolded } from "../lib/runWhy";
import { untrustedInline, untrustedName } from "../lib/untrusted";
import { departmentAgents, departmentAgentsByKeys } from "../records/agents";
import { chatContextOfAgent, chatMessageById, vRunChatContext } from "../records/chat";
import { bodyWithTaskLinks, inboxOfRun, vRunInbox } from "../records/inbox";
import { newestMessages } from "../records/messages";
import { projectGraphOf, vProjectGraph } from "../records/projectGraph";
import { getRunX, type RunTrigger } from "../records/runs";
import { chatSettings, leadModeFor, piiRulesOf, summariserForRun, toolCallModeOf } from "../records/settings";
import { alreadyActed as actedBefore } from "../records/toolEffects";
import { permittedTools } from "../tools/registry";
import { vAgentStatus, vLeadMode, vPiiRules, vPriority, vRunTrigger, vRunTriggerKind, vTaskStatus, vToolApproval, vToolCallMode } from "../validators";

/** Most thread messages read before the token budget trims them. */
export const MAX_THREAD_MESSAGES = 200;

const vSquadMember = v.object({ name: v.string(), role: v.string(), sessionKey: v.string(), status: vAgentStatus });

export const vAssembledContext = v.object({
  runId: v.id("runs"),
  agent: v.object({
    name: v.string(),
    role: v.string(),
    kind: v.string(),
    sessionKey: v.string(),
    systemPrompt: v.string(),
    model: v.optional(v.string()),
    isSquadLead: v.boolean(),
  }),
  /** How the squad lead works here (lib/leadMode): "plan" proposes a plan before delegating. */
  leadMode: v.optional(vLeadMode),
  department: v.object({ name: v.string(), slug: v.string() }),
  task: v.object({
    title: v.string(),
    description: v.string(),
    status: vTaskStatus,
    priority: v.string(),
    tags: v.array(v.string()),
    assignees: v.array(v.string()),
    parentTitle: v.optional(v.string()),
    delegatedBy: v.optional(v.string()),
  }),
  /** Oldest first, the newest that fit the token budget. */
  thread: v.array(v.object({ author: v.string(), authorKind: v.string(), content: v.string() })),
  /** Older messages were left out (token budget or the read bound). */
  threadOmitted: v.boolean(),
  trigger: v.object({ kind: vRunTriggerKind, text: v.string() }),
  /** Exactly the tools the dispatcher will allow this agent. */
  tools: v.array(v.object({ name: v.string(), description: v.string(), usage: v.string() })),
  /** How the tools go to the model: as native functions, as `[TOOL: …]` text in the prompt, or both read (auto). */
  toolCalls: vToolCallMode,
  /** The roster a squad lead's prompt lists (empty for anyone else: nothing of theirs shows it). */
  squad: v.array(vSquadMember),
});
export type AssembledContext = Infer<typeof vAssembledContext>;

/** Results inform the lead; more work comes from people, so a result never starts a delegation loop by itself. */
export const RESULT_INFORMS =
  "This result is for your information: acknowledge it briefly. Delegate again only if a person in the thread asks for more; the same work is never delegated twice.";

/** A thread message's text with the tasks it links (lib/taskLinks) and the files it carries (by name, lib/files) named, as the model reads it. */
async function contentWithTaskLinks(ctx: QueryCtx, message: Doc<"messages">): Promise<string> {
  const content = withAttachedFiles(message.content, message.files ?? []);
  if (message.taskLinks === undefined) return content;
  const links = [];
  for (const taskId of message.taskLinks) {
    const task = await ctx.db.get("tasks", taskId);
    links.push({ taskId, title: task !== null && task.departmentId === message.departmentId && task.deletedAt === undefined ? task.title : null });
  }
  return withTaskLinks(content, links);
}

/**
 * What a run is told it is here for: the trigger it was started for, then
 * each request folded into it while it was still queued (lib/runWhy), every
 * one quoted and framed as the first is, so a second person's request gets
 * its own answer instead of being left to the thread.
 */
async function whyText(ctx: QueryCtx, run: Doc<"runs">): Promise<string> {
  const pii = await piiRulesOf(ctx, run.departmentId);
  const first = await triggerText(ctx, run, run.trigger, { folded: false, pii });
  const folded = [];
  for (const trigger of run.queuedTriggers ?? []) {
    const text = await triggerText(ctx, run, trigger, { folded: true, pii });
    if (text !== null) folded.push(text);
  }
  return whyWithFolded(first, folded);
}

/** The message a trigger names, if the run may quote it: of the run's department, and (for a folded one) not deleted. */
function quotable<T extends { departmentId: Id<"departments">; deletedAt?: number }>(run: Doc<"runs">, folded: boolean, found: T | null): T | null {
  return found !== null && found.departmentId === run.departmentId && !(folded && found.deletedAt !== undefined) ? found : null;
}

/**
 * One trigger's line in the why. A folded one quotes at most
 * FOLDED_QUOTE_CHARS of its request, and is left out (null) once its message
 * was deleted, or when what it names is not in the run's department. Text
 * that otherwise reaches the model only through the injection (a channel
 * message, a #maestro line) has the department's PII rules applied, as there.
 */
async function triggerText(ctx: QueryCtx, run: Doc<"runs">, trigger: RunTrigger, how: { folded: true; pii: PiiRules }): Promise<string | null>;
async function triggerText(ctx: QueryCtx, run: Doc<"runs">, trigger: RunTrigger, how: { folded: false; pii: PiiRules }): Promise<string>;
async function triggerText(ctx: QueryCtx, run: Doc<"runs">, trigger: RunTrigger, { folded, pii }: { folded: boolean; pii: PiiRules }): Promise<string | null> {
  const cut = (text: string) => (folded ? cutQuote(text) : text);
  const message = quotable(run, folded, trigger.messageId === undefined ? null : await ctx.db.get("messages", trigger.messageId));
  if (folded && trigger.messageId !== undefined && message === null) return null;
  const quoted = message === null ? "" : `: "${untrustedInline(cut(await contentWithTaskLinks(ctx, message)))}"`;
  switch (trigger.kind) {
    case "assigned":
      return "You were assigned this task.";
    case "mentioned": {
      if (trigger.chatId !== undefined) {
        // A #maestro mention: its line in the chat, as the scanner left it.
        const line = await chatMessageById(ctx, trigger.chatId);
        if (line === null || line.departmentId !== run.departmentId) return folded ? null : "You were @mentioned by someone in #maestro";
        return `You were @mentioned by ${untrustedName(line.postedBy?.name ?? line.author)} in #maestro: "${untrustedInline(cut(redactPii(line.text, pii)))}"`;
      }
      return `You were @mentioned by ${message === null ? "someone" : untrustedName(actorName(message.author))}${quoted}`;
    }
    case "delegation_result":
      return `A task you delegated changed: ${trigger.note ?? message?.content ?? ""}\n${RESULT_INFORMS}`;
    case "answer":
      return `A human answered your question${quoted}`;
    case "message": {
      const sent = quotable(run, folded, trigger.channelMessageId === undefined ? null : await ctx.db.get("channelMessages", trigger.channelMessageId));
      if (folded && sent === null) return null;
      const from = sent === null ? "someone" : untrustedName(actorName(sent.from));
      if (sent !== null && !sent.blocking) {
        return `${from} sent you a message (message id ${sent._id}${sent.type === "dm" ? ", a DM" : ""}): "${untrustedInline(cut(redactPii(await bodyWithTaskLinks(ctx, sent), pii)))}". Answer it: your final reply is posted where it was sent${sent.type === "dm" ? " (the DM)" : " (its thread)"}, so say the answer itself, and do what it asks with your tools.`;
      }
      return `${from} sent you a blocking message (it opens the messages for you${sent === null ? "" : `; message id ${sent._id}`}). Answer it first: your final reply is posted where it was sent${sent === null ? "" : sent.type === "dm" ? " (the DM)" : " (its thread)"}, so say the answer itself; then go on.`;
    }
    case "nudge":
      return `Your last run here has ended. ${trigger.note ?? "Messages arrived while you worked."} They are in the messages for you: answer any that needs you with your messaging tools; if none does, reply with nothing.`;
  }
}

/**
 * Everything one round of a run reads before its model call, in one
 * transaction: the assembled context and what the injection step shows
 * (inbox, #maestro, context pack). One read instead of four round trips
 * (each a transaction queued behind every other run's writes), and all four
 * from the same snapshot.
 */
export const roundInputs = internalQuery({
  args: { runId: v.id("runs") },
  returns: v.object({
    context: vAssembledContext,
    inbox: vRunInbox,
    chat: vRunChatContext,
    pack: v.union(v.null(), vProjectGraph),
    /** The department's PII rules and summariser model (its key included: this is read only by the run action). */
    injection: v.object({
      pii: vPiiRules,
      summariser: v.union(v.null(), v.object({ baseUrl: v.string(), model: v.string(), timeoutMs: v.number(), apiKey: v.union(v.string(), v.null()) })),
    }),
  }),
  handler: async (ctx, { runId }) => {
    const run = await getRunX(ctx, runId);
    const agent = (await ctx.db.get("agents", run.agentId))!;
    const task = (await ctx.db.get("tasks", run.taskId))!;
    return {
      context: await assembledContextOf(ctx, run, agent, task),
      inbox: await inboxOfRun(ctx, run, agent),
      chat: await chatContextOfAgent(ctx, agent),
      pack: await projectGraphOf(ctx, agent, task),
      injection: { pii: await piiRulesOf(ctx, run.departmentId), summariser: await summariserForRun(ctx, run.departmentId) },
    };
  },
});

/** Everything a run's prompt is built from, bounded; the prompt itself is assembled by the middlewares (brain/prompt). */
async function assembledContextOf(ctx: QueryCtx, run: Doc<"runs">, agent: Doc<"agents">, task: Doc<"tasks">): Promise<AssembledContext> {
  const department = (await ctx.db.get("departments", run.departmentId))!;
  // A lead's prompt lists the squad; anyone else's names only the task's assignees and delegator: read those.
  const named = [...task.assigneeSessionKeys, ...(task.delegatedBy === undefined ? [] : [task.delegatedBy])];
  const agents = agent.isSquadLead ? await departmentAgents(ctx, department._id) : await departmentAgentsByKeys(ctx, department._id, named);
  const nameByKey = new Map(agents.map((a) => [a.sessionKey, a.name]));
  const recent = await newestMessages(ctx, task._id, MAX_THREAD_MESSAGES);
  // Deleted messages are gone for agents too; edited ones read as they are now.
  const visible = recent.filter((m) => m.deletedAt === undefined);
  const messages = [];
  for (const m of visible) {
    messages.push({ author: actorName(m.author), authorKind: m.author.kind === "member" ? "human" : m.author.kind, content: await contentWithTaskLinks(ctx, m) });
  }
  const { kept, dropped } = keepNewestWithinBudget(messages, brainConfig().threadTokenBudget, (m) =>
    countTokens(`[${m.author} (${m.authorKind})]: ${m.content}`),
  );
  const parent = task.parentTaskId === undefined ? null : await ctx.db.get("tasks", task.parentTaskId);
  const { enabled: chatEnabled } = await chatSettings(ctx, task.departmentId);
  return {
    runId: run._id,
    agent: {
      name: agent.name,
      role: agent.role,
      kind: agent.kind,
      sessionKey: agent.sessionKey,
      systemPrompt: agent.systemPrompt,
      // /model (set_model) on the task wins over the agent's own model.
      model: task.model ?? agent.model,
      isSquadLead: agent.isSquadLead,
    },
    leadMode: await leadModeFor(ctx, task.departmentId, task),
    department: { name: department.name, slug: department.slug },
    task: {
      title: task.title,
      description: task.description,
      status: task.status,
      priority: task.priority,
      tags: task.tags,
      assignees: task.assigneeSessionKeys.map((key) => nameByKey.get(key) ?? key),
      parentTitle: parent?.title,
      delegatedBy: task.delegatedBy === undefined ? undefined : (nameByKey.get(task.delegatedBy) ?? task.delegatedBy),
    },
    thread: kept,
    threadOmitted: dropped > 0 || recent.length === MAX_THREAD_MESSAGES,
    trigger: { kind: run.trigger.kind, text: await whyText(ctx, run) },
    tools: permittedTools(agent.allowedTools, { chatEnabled, architect: chatExcluded(agent) }).map(({ name, description, usage }) => ({
      name,
      description,
      usage,
    })),
    toolCalls: await toolCallModeOf(ctx, run.departmentId),
    squad: agent.isSquadLead ? agents.map((a) => ({ name: a.name, role: a.role, sessionKey: a.sessionKey, status: a.status })) : [],
  };
}

/** What the dispatcher checks on every call: read fresh, so a revoked tool is refused at once; one agent, not its squad. */
export const vDispatchScope = v.object({
    name: v.string(),
    sessionKey: v.string(),
    /** What the agent may call now: its allowedTools within the registry as it stands. */
    allowedTools: v.array(v.string()),
    chatEnabled: v.boolean(),
    departmentId: v.id("departments"),
    taskId: v.id("tasks"),
    delegations: v.number(),
    /** What caused the run, for idempotency keys (lib/idempotency): never the run itself. */
    cause: v.object({ taskId: v.string(), agentSessionKey: v.string(), trigger: vRunTrigger }),
    toolApprovals: v.array(vToolApproval),
    taskPriority: vPriority,
    isSquadLead: v.boolean(),
    leadMode: vLeadMode,
});

export const agentForDispatch = internalQuery({
  args: { runId: v.id("runs") },
  returns: vDispatchScope,
  handler: async (ctx, { runId }) => await dispatchScopeOf(ctx, runId),
});

/** What the dispatcher knows of the run's agent now (agentForDispatch; also read by the write that announces a streamed call, writes.beginToolCall). */
export async function dispatchScopeOf(ctx: QueryCtx, runId: Id<"runs">): Promise<Infer<typeof vDispatchScope>> {
  const run = await getRunX(ctx, runId);
  const agent = (await ctx.db.get("agents", run.agentId))!;
  const { enabled: chatEnabled } = await chatSettings(ctx, agent.departmentId);
  const task = await ctx.db.get("tasks", run.taskId);
  return {
    toolApprovals: agent.toolApprovals ?? [],
    taskPriority: task?.priority ?? "medium",
    isSquadLead: agent.isSquadLead,
    leadMode: task === null ? "act" : await leadModeFor(ctx, task.departmentId, task),
    name: agent.name,
    sessionKey: agent.sessionKey,
    allowedTools: permittedTools(agent.allowedTools, { chatEnabled, architect: chatExcluded(agent) }).map((t) => t.name),
    chatEnabled,
    departmentId: run.departmentId,
    taskId: run.taskId,
    delegations: run.delegations,
    cause: { taskId: run.taskId, agentSessionKey: run.agentSessionKey, trigger: run.trigger },
  };
}

/** Who in the run's department may call what: a denied call's note names who may (read only then, not before every call). */
export const dispatchSquad = internalQuery({
  args: { runId: v.id("runs") },
  returns: v.array(v.object({ name: v.string(), sessionKey: v.string(), allowedTools: v.array(v.string()) })),
  handler: async (ctx, { runId }) => {
    const run = await getRunX(ctx, runId);
    const { enabled: chatEnabled } = await chatSettings(ctx, run.departmentId);
    return (await departmentAgents(ctx, run.departmentId)).map((a) => ({
      name: a.name,
      sessionKey: a.sessionKey,
      allowedTools: permittedTools(a.allowedTools, { chatEnabled, architect: chatExcluded(a) }).map((t) => t.name),
    }));
  },
});

/**
 * Whether a call with this key already acted (records/toolEffects): a run
 * retried or resumed after a call that needs approval is not asked about
 * again when the call had acted for the same cause.
 */
export const alreadyActed = internalQuery({
  args: { key: v.string() },
  returns: v.boolean(),
  handler: async (ctx, { key }) => await actedBefore(ctx, key),
});
