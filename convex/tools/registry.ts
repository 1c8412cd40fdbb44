import { v } from "convex/values";
import { z } from "zod";
import { internal } from "../_generated/api";
import type { Id } from "../_generated/dataModel";
import type { ActionCtx } from "../_generated/server";
import { departmentQuery } from "../functions";
import { resolveAgentNames } from "../lib/agentNames";
import { isChatTool } from "../lib/chat";
import { currentBody } from "../lib/messageChanges";
import { canonicalJson } from "../lib/idempotency";
import type { FunctionTool } from "../lib/completionStream";
import { toolNameFromWire, wireNameTable, wireToolName } from "../lib/toolNames";
import { cutJsonList, cutLines } from "../lib/toolCalls";
import { fetchUrlProblem } from "../lib/webFetch";
import { partialAssigneeNote, unknownAssigneeNote, type GuardStop } from "../lib/notes";
import type { PauseRequest } from "../lib/pauses";
import { chatSettings } from "../records/settings";
import { IMPORTANCES, PRIORITIES, TASK_STATUSES, vApprovalPolicy, type ApprovalPolicy, type Importance, type PlanStep, type Priority, type RunTriggerKind, type TaskStatus } from "../validators";
import type { DelegationResult } from "./delegation";

/**
 * Every tool an agent can be allowed to call, each entry carrying its own
 * description, argument schema, approval default and executor. This one list
 * feeds the CreateAgentModal checklist, validates `allowedTools`, writes the
 * tools section of the prompt, and is what the dispatcher loops over: there
 * is no per-tool switch anywhere else, and no error is classified by its text.
 */


/** What an executor knows about the call: the run's agent and task (never from the model) and the call's idempotency key. */
export interface ToolScope {
  runId: Id<"runs">;
  agentName: string;
  sessionKey: string;
  departmentId: Id<"departments">;
  taskId: Id<"tasks">;
  triggerKind: RunTriggerKind;
  /** Derived from the run's cause, the tool and the canonical arguments: the same call after a retry gets the same key. */
  key: string;
}

/** A tool call's result, typed: the dispatcher records and reports it by `problem`, never by matching text. */
export type ToolResult =
  /**
   * `pause`: the tool asks a person (a question, a plan), or is run outside Maestro (`tool_output`); the run
   * waits, and the person's response or the external tool's output becomes the result.
   */
  | { ok: true; text: string; delegated?: boolean; pause?: Extract<PauseRequest, { kind: "question" | "plan" | "tool_output" }>; note?: string }
  /** `note`: what the thread is told (problem and choices), when the people there should know. */
  | { ok: false; problem: "invalid" | "failed" | "denied"; text: string; note?: string }
  | { ok: false; problem: "guard"; text: string; stop: GuardStop };

export interface ToolEntry<Name extends string = string, Schema extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>> {
  name: Name;
  description: string;
  /** The arguments in words, for the prompt and for errors. */
  usage: string;
  args: Schema;
  /** The approval policy an agent gets for this tool unless one is set on the agent. */
  approval: ApprovalPolicy;
  /** Each call makes a delegation: it counts against the run's delegation limit. */
  delegates?: boolean;
  /** Run outside Maestro (externalTool): the run waits for the call's output from `runs.toolOutput`. */
  external?: boolean;
  execute(ctx: ActionCtx, scope: ToolScope, args: z.output<Schema>): Promise<ToolResult>;
  /**
   * Runs several calls of this tool, one after another in a reply, in one
   * transaction: their results in order, each as `execute` gives it. None
   * may pause. The dispatcher uses it for calls that passed every check.
   */
  executeTogether?(ctx: ActionCtx, calls: Array<{ scope: ToolScope; args: z.output<Schema> }>): Promise<ToolResult[]>;
}

/** Types an entry by its schema, so its executor gets parsed arguments. */
function tool<const Name extends string, Schema extends z.ZodType<Record<string, unknown>>>(entry: ToolEntry<Name, Schema>): ToolEntry<Name, Schema> {
  return entry;
}

/** Observations stay concise: a longer one is cut. */
export const MAX_OBSERVATION_CHARS = 4000;

/** What the model reads when its delegation asks for a task it already made. */
export const ALREADY_DELEGATED = "this task already exists: you created it earlier under this task for the same assignees; nothing new was created, do not delegate it again";

/**
 * delegate_task's observation: the spec's JSON result
 * `{ok, taskId, title, assigneesResolved, assigneesRequested}`, with the
 * names that did not resolve (`assigneesUnresolved`) and, in `note`, what the
 * model should know (the task already existed; some names were left out).
 * The thread is told about names left out.
 */
export function delegationObservation(agent: string, result: Extract<DelegationResult, { ok: true }>): { text: string; note?: string } {
  const notes: string[] = [];
  if (!result.created) notes.push(ALREADY_DELEGATED);
  if (result.assigneesUnresolved.length > 0) notes.push(`assigned only to ${result.assigneesResolved.join(", ")}; ${result.unresolvedMessage ?? "the other names are not in the squad"}`);
  const json = {
    ok: true,
    taskId: result.taskId,
    title: result.title,
    assigneesResolved: result.assigneesResolved,
    assigneesRequested: result.assigneesRequested,
    ...(result.assigneesUnresolved.length > 0 ? { assigneesUnresolved: result.assigneesUnresolved } : {}),
    ...(result.created ? {} : { alreadyExisted: true }),
    ...(notes.length > 0 ? { note: notes.join(". ") } : {}),
  };
  const note = result.assigneesUnresolved.length > 0 ? partialAssigneeNote(agent, result.title, result.assigneesResolved, result.unresolvedMessage ?? "", result.squad) : undefined;
  return { text: JSON.stringify(json), ...(note === undefined ? {} : { note }) };
}

const delegateTask = tool({
  name: "delegate_task",
  description: "Create a public task for other agents, with a first instruction (squad leads).",
  usage:
    '{"title": string, "description": string, "assignees": string[] (agent names), "instruction": string, "priority"?: "low"|"medium"|"high", "tags"?: string[]}',
  args: z.object({
    title: z.string().trim().min(1, "title must not be empty"),
    description: z.string({ error: (issue) => (issue.input === undefined ? "description is required: say what the task is about (the contract's arguments are title, description, assignees, instruction)" : "description must be a string") }),
    assignees: z.array(z.string().trim().min(1)).min(1, "give at least one assignee, by agent name from the roster"),
    instruction: z.string().trim().min(1, "instruction must not be empty"),
    priority: z.enum(PRIORITIES).optional(),
    tags: z.array(z.string()).optional(),
  }),
  approval: "high_priority",
  delegates: true,
  async execute(ctx, scope, args): Promise<ToolResult> {
    // A mutation, not the delegateTask action: one transaction, no action hop inside the run's action.
    const result: DelegationResult = await ctx.runMutation(internal.tools.delegation.delegateByName, delegationArgs(scope, args));
    return delegationToolResult(scope, args, result);
  },
  async executeTogether(ctx, calls): Promise<ToolResult[]> {
    const results: DelegationResult[] = await ctx.runMutation(internal.tools.delegation.delegateAllByName, {
      delegations: calls.map(({ scope, args }) => delegationArgs(scope, args)),
    });
    return results.map((result, i) => delegationToolResult(calls[i].scope, calls[i].args, result));
  },
});

type DelegateArgs = z.output<typeof delegateTask.args>;

/** A delegate_task call as the delegation mutations take it: the run's agent and task, never the model's. */
function delegationArgs(scope: ToolScope, args: DelegateArgs) {
  return {
    departmentId: scope.departmentId,
    delegatorSessionKey: scope.sessionKey,
    ...args,
    parentTaskId: scope.taskId,
    key: scope.key,
    onResult: scope.triggerKind === "delegation_result",
  };
}

/** A delegation's result as delegate_task's ToolResult. */
function delegationToolResult(scope: ToolScope, args: DelegateArgs, result: DelegationResult): ToolResult {
  if (result.ok) {
    const { text, note } = delegationObservation(scope.agentName, result);
    return { ok: true, delegated: result.created, text, ...(note === undefined ? {} : { note }) };
  }
  switch (result.problem) {
    case "guard":
      return { ok: false, problem: "guard", text: `delegate_task: refused, ${result.guard.reason}`, stop: result.guard };
    case "unknown_assignee":
      return {
        ok: false,
        problem: "failed",
        text: `delegate_task failed: ${result.message}`,
        note: unknownAssigneeNote(scope.agentName, args.title, result.message, result.squad),
      };
    case "invalid":
      return { ok: false, problem: "failed", text: `delegate_task failed: ${result.message}` };
  }
}

/** Tasks and already-posted files (a file's storageId as channel_history shows it) a message may carry. */
const vArtifactsArg = z
  .array(z.union([z.object({ task_id: z.string().trim().min(1) }), z.object({ file_id: z.string().trim().min(1) })]))
  .max(10, "at most 10 artifacts")
  .optional();
const ARTIFACTS_USAGE = '"artifacts"?: [{"task_id": string} | {"file_id": string (a posted file\'s storageId)}]';
/** What every message a tool posts takes, as the model spells it. */
const vMessageArgs = {
  content: z.string().trim().min(1, "content must not be empty"),
  importance: z.enum(IMPORTANCES).optional(),
  blocking: z.boolean().optional(),
  artifacts: vArtifactsArg,
};
const MESSAGE_USAGE = `"content": string, "importance"?: "normal"|"high"|"critical", "blocking"?: boolean, ${ARTIFACTS_USAGE}`;

/** A message's fields as the messaging executors take them: the run, the call's key (also its correlation id), the post. */
function messageFields(scope: ToolScope, args: { content: string; importance?: Importance; blocking?: boolean; artifacts?: Array<{ task_id: string } | { file_id: string }> }) {
  return {
    runId: scope.runId,
    key: scope.key,
    body: args.content,
    importance: args.importance,
    blocking: args.blocking,
    artifacts: args.artifacts?.map((a) => ("task_id" in a ? { taskId: a.task_id } : { fileId: a.file_id })),
    correlationId: scope.key,
  };
}

const postMessage = tool({
  name: "post_message",
  description: "Post a message in this task's thread, or in a channel when one is named.",
  usage: `{"content": string, "channel"?: string (e.g. "#launch"), "importance"?: "normal"|"high"|"critical", "blocking"?: boolean, ${ARTIFACTS_USAGE} (in a channel)}`,
  args: z.object({ channel: z.string().trim().min(1).optional(), ...vMessageArgs }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    if (args.channel === undefined) {
      if (args.artifacts !== undefined && args.artifacts.length > 0) {
        return { ok: false, problem: "failed", text: "post_message failed: artifacts go with a channel message; name the channel." };
      }
      await ctx.runMutation(internal.tools.thread.postMessageTool, { runId: scope.runId, content: args.content, key: scope.key });
      return { ok: true, text: "posted in the thread" };
    }
    const id: string = await ctx.runMutation(internal.tools.messaging.postChannelTool, { ...messageFields(scope, args), channel: args.channel });
    return { ok: true, text: `posted in ${args.channel.startsWith("#") ? args.channel : `#${args.channel}`} (message ${id})` };
  },
});

const updateTaskStatus = tool({
  name: "update_task_status",
  description: "Move this task to another column.",
  usage: `{"status": ${TASK_STATUSES.map((s) => `"${s}"`).join("|")}}`,
  args: z.object({ status: z.enum(TASK_STATUSES) }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const moved: { from: TaskStatus; to: TaskStatus } = await ctx.runMutation(internal.tools.thread.updateTaskStatus, { runId: scope.runId, status: args.status, key: scope.key });
    return { ok: true, text: moved.from === moved.to ? `the task was already ${moved.to}` : `moved the task from ${moved.from} to ${moved.to}` };
  },
});

const askQuestion = tool({
  name: "ask_question",
  description: "Ask the humans a question in the thread; the task is blocked and you wait until one answers (the answer is this tool's result).",
  usage: '{"question": string}',
  args: z.object({ question: z.string().trim().min(1, "question must not be empty") }),
  approval: "never",
  async execute(_ctx, scope, args): Promise<ToolResult> {
    // The key makes the same question from the same cause wait on the first card, never a second one (reactions/pauses).
    return { ok: true, text: "asked in the thread", pause: { kind: "question", question: args.question, key: scope.key } };
  },
});

/** Most steps one plan may hold. */
export const MAX_PLAN_STEPS = 10;

const planStep = z.object({
  title: z.string().trim().min(1, "a step needs a title"),
  assignee: z.string().trim().min(1, "a step needs an assignee, by agent name from the roster"),
  description: z.string().trim().optional(),
  priority: z.enum(PRIORITIES).optional(),
});

const proposePlan = tool({
  name: "propose_plan",
  description: "Propose a plan (steps with assignees) for a person to approve before anything is delegated (squad leads); approved, its steps are delegated exactly as proposed.",
  usage: '{"summary": string, "steps": [{"title": string, "assignee": string (agent name), "description"?: string, "priority"?: "low"|"medium"|"high"}]}',
  args: z.object({
    summary: z.string().trim().min(1, "summary must not be empty"),
    steps: z.array(planStep).min(1, "a plan needs at least one step").max(MAX_PLAN_STEPS, `a plan has at most ${MAX_PLAN_STEPS} steps`),
  }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const { roster } = await ctx.runQuery(internal.tools.delegation.delegationRoster, { departmentId: scope.departmentId, delegatorSessionKey: scope.sessionKey });
    const squad = roster.filter((a) => a.sessionKey !== scope.sessionKey);
    const steps = [];
    for (const [i, step] of args.steps.entries()) {
      const { resolved, unknown } = resolveAgentNames([step.assignee], squad);
      if (resolved.length !== 1 || unknown.length > 0) {
        const self = roster.find((a) => a.sessionKey === scope.sessionKey && resolveAgentNames([step.assignee], [a]).resolved.length === 1);
        const why = self !== undefined ? "a lead never assigns itself" : `no agent called "${step.assignee}" in the squad (${squad.map((a) => a.name).join(", ") || "nobody"})`;
        return { ok: false, problem: "failed", text: `propose_plan failed: step ${i + 1} (“${step.title}”): ${why}. Nothing was proposed.` };
      }
      steps.push({ ...step, assignee: resolved[0].name });
    }
    return { ok: true, text: "plan proposed", pause: { kind: "plan", summary: args.summary, steps, key: scope.key } };
  },
});

const requestTool = tool({
  name: "request_tool",
  description:
    "Ask for a tool you may not call: from the owners and admins who can allow it, or (with \"to\") ask an agent allowed it, or a person, to run it for you. The request goes to this task's thread; the answer comes there.",
  usage: '{"tool": string (a tool name), "reason": string, "to"?: string (an agent or person by name), "arguments"?: object (what to run it with, when asking someone to run it)}',
  args: z.object({
    tool: z.string().trim().min(1, "name the tool"),
    reason: z.string().trim().min(1, "say why you need it"),
    to: z.string().trim().min(1).optional(),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    if (!TOOLS_BY_NAME.has(args.tool)) return { ok: false, problem: "invalid", text: `request_tool: there is no tool called ${args.tool}; the tools are ${[...TOOLS_BY_NAME.keys()].join(", ")}.` };
    if (args.arguments !== undefined && args.to === undefined) return { ok: false, problem: "invalid", text: "request_tool: arguments go with a request to someone who runs the tool for you; name them in \"to\"." };
    const input = args.arguments === undefined ? undefined : JSON.stringify(args.arguments);
    const asked: { to: string } = await ctx.runMutation(internal.tools.thread.requestToolTool, { runId: scope.runId, key: scope.key, tool: args.tool, reason: args.reason, to: args.to, input });
    return { ok: true, text: `asked ${asked.to} for ${args.tool} in the thread; the answer will come there` };
  },
});

const chatPost = tool({
  name: "chat.post",
  description: "Post in the #maestro chat.",
  usage: '{"text": string}',
  args: z.object({ text: z.string().min(1, "text must not be empty") }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const posted: { id: number; success: boolean } = await ctx.runMutation(internal.chat.postForRun, { runId: scope.runId, text: args.text, key: scope.key });
    return { ok: true, text: JSON.stringify(posted) };
  },
});

const chatGetNew = tool({
  name: "chat.getNew",
  description: "Read new #maestro chat messages.",
  usage: "{}",
  args: z.object({}),
  approval: "never",
  async execute(ctx, scope): Promise<ToolResult> {
    const fresh: { messages: unknown[]; newPointer: number } = await ctx.runQuery(internal.chat.getNewForRun, { runId: scope.runId });
    return { ok: true, text: cutJsonList(fresh, "messages", MAX_OBSERVATION_CHARS) };
  },
});

const createChannel = tool({
  name: "create_channel",
  description: "Create a channel in the department (project-wide, or private to its members).",
  usage: '{"name": string, "topic"?: string, "visibility"?: "project"|"private"}',
  args: z.object({ name: z.string().trim().min(1, "name must not be empty"), topic: z.string().optional(), visibility: z.enum(["project", "private"]).optional() }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const made: { name: string } = await ctx.runMutation(internal.tools.messaging.createChannelTool, { runId: scope.runId, key: scope.key, ...args });
    return { ok: true, text: `created #${made.name}` };
  },
});

const replyThread = tool({
  name: "reply_thread",
  description: "Reply in the thread of a channel message.",
  usage: `{"message_id": string, ${MESSAGE_USAGE}}`,
  args: z.object({ message_id: z.string().trim().min(1), ...vMessageArgs }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    await ctx.runMutation(internal.tools.messaging.replyThreadTool, { ...messageFields(scope, args), messageId: args.message_id });
    return { ok: true, text: "replied in the thread" };
  },
});

const dmSend = tool({
  name: "dm_send",
  description: "Send a direct message to people (a DM always includes a person; agents do not DM each other).",
  usage: `{"to": string[] (names), ${MESSAGE_USAGE}}`,
  args: z.object({ to: z.array(z.string().trim().min(1)).min(1, "name at least one person"), ...vMessageArgs }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    await ctx.runMutation(internal.tools.messaging.dmSendTool, { ...messageFields(scope, args), to: args.to });
    return { ok: true, text: `sent a DM to ${args.to.join(", ")}` };
  },
});

const channelSubscribe = tool({
  name: "channel_subscribe",
  description: "Follow a channel (its new messages reach your inbox), or stop following it.",
  usage: '{"channel": string, "subscribed"?: boolean (default true)}',
  args: z.object({ channel: z.string().trim().min(1), subscribed: z.boolean().default(true) }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    await ctx.runMutation(internal.tools.messaging.subscribeTool, { runId: scope.runId, key: scope.key, channel: args.channel, subscribed: args.subscribed });
    return { ok: true, text: `${args.subscribed ? "following" : "no longer following"} ${args.channel}` };
  },
});

const channelManage = tool({
  name: "channel_manage",
  description: "Add or remove people and agents in a channel you created (never its last person), or set its topic.",
  usage: '{"channel": string, "add"?: string[] (names), "remove"?: string[] (names), "topic"?: string}',
  args: z
    .object({ channel: z.string().trim().min(1), add: z.array(z.string().trim().min(1)).optional(), remove: z.array(z.string().trim().min(1)).optional(), topic: z.string().optional() })
    .refine((a) => (a.add?.length ?? 0) + (a.remove?.length ?? 0) > 0 || a.topic !== undefined, "name people to add or remove, or a topic"),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const result: { members: string[]; topic?: string } = await ctx.runMutation(internal.tools.messaging.manageChannelTool, { runId: scope.runId, key: scope.key, ...args });
    return { ok: true, text: `${args.channel}: members ${result.members.join(", ")}${result.topic === undefined ? "" : `; topic "${result.topic}"`}` };
  },
});

/** A list of messages as a model reads it: one line each, cut to the observation limit. */
function messageLines(messages: ReadonlyArray<{ _id?: string; id?: string; from: unknown; body: string; deletedAt?: number }>): string {
  const text = messages
    .map((m) => {
      const from = typeof m.from === "string" ? m.from : (m.from as { name?: string }).name ?? "Maestro";
      return `[${m._id ?? m.id}] ${from}: ${currentBody(m).replace(/\s+/g, " ")}`;
    })
    .join("\n");
  if (text === "") return "(nothing)";
  return cutLines(text, MAX_OBSERVATION_CHARS, "message");
}

const channelHistory = tool({
  name: "channel_history",
  description: "Read a channel's recent messages (oldest first).",
  usage: '{"channel": string, "limit"?: number (max 50), "since"?: number (ms)}',
  args: z.object({ channel: z.string().trim().min(1), limit: z.number().int().positive().optional(), since: z.number().nonnegative().optional() }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const rows: Array<{ _id: string; from: unknown; body: string }> = await ctx.runQuery(internal.tools.messaging.channelHistoryTool, { runId: scope.runId, ...args });
    return { ok: true, text: messageLines(rows) };
  },
});

const dmList = tool({
  name: "dm_list",
  description: "List your direct messages, most recent first, with unread counts.",
  usage: '{"limit"?: number}',
  args: z.object({ limit: z.number().int().positive().optional() }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const rows: Array<{ with: string[]; unread: number }> = await ctx.runQuery(internal.tools.messaging.dmListTool, { runId: scope.runId, limit: args.limit });
    return { ok: true, text: rows.length === 0 ? "(no DMs)" : rows.map((r) => `with ${r.with.join(", ")}: ${r.unread} unread`).join("\n") };
  },
});

const markRead = tool({
  name: "message_mark_read",
  description: "Mark messages in your inbox read (all of them when none are named).",
  usage: '{"message_ids"?: string[]}',
  args: z.object({ message_ids: z.array(z.string()).optional() }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const count: number = await ctx.runMutation(internal.tools.messaging.markReadTool, { runId: scope.runId, key: scope.key, messageIds: args.message_ids });
    return { ok: true, text: `marked ${count} read` };
  },
});

const inboxRead = tool({
  name: "inbox.read",
  description: "List your unread messages (channels, threads, DMs), newest first.",
  usage: '{"limit"?: number (max 50)}',
  args: z.object({ limit: z.number().int().positive().optional() }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const rows: Array<{ id: string; from: string; where: string; body: string; importance: string }> = await ctx.runQuery(internal.tools.messaging.inboxReadTool, {
      runId: scope.runId,
      limit: args.limit,
    });
    return { ok: true, text: messageLines(rows.map((r) => ({ ...r, body: `(${r.where}${r.importance === "normal" ? "" : `, ${r.importance}`}) ${r.body}` }))) };
  },
});

const messagesFetch = tool({
  name: "messages.fetch",
  description: "Read one message in full, by its id.",
  usage: '{"message_id": string}',
  args: z.object({ message_id: z.string().trim().min(1) }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const m: { _id: string; from: unknown; body: string } = await ctx.runQuery(internal.tools.messaging.fetchMessageTool, { runId: scope.runId, messageId: args.message_id });
    return { ok: true, text: messageLines([m]) };
  },
});

/**
 * A tool Maestro does not run itself: an executor outside it (an agent over
 * the API, a person in the app) runs the call and hands its output back with
 * `runs.toolOutput`. Calling it pauses the run on the call (no card: the call
 * itself waits, under its id `<runId>:<index>`); the output, or the failure,
 * becomes the call's result and the run goes on.
 */
function externalTool<const Name extends string, Schema extends z.ZodType<Record<string, unknown>>>(entry: Omit<ToolEntry<Name, Schema>, "execute" | "external">): ToolEntry<Name, Schema> {
  return {
    ...entry,
    external: true,
    async execute(_ctx, _scope, args): Promise<ToolResult> {
      return { ok: true, text: `waiting for ${entry.name}'s output`, pause: { kind: "tool_output", tool: entry.name, args: canonicalJson(args) } };
    },
  };
}

const webFetch = externalTool({
  name: "web_fetch",
  description: "Fetch a web page's text. Maestro has no internet of its own: the department's tool runner fetches it, and you wait for its output.",
  usage: '{"url": string (a public http or https address, with no secret in it)}',
  // Checked here, at call time, so the executor is only ever handed a checked call (lib/webFetch).
  args: z.object({
    url: z
      .string()
      .trim()
      .regex(/^https?:\/\/\S+$/i, "url must be an http or https address")
      .superRefine((url, check) => {
        const problem = fetchUrlProblem(url);
        if (problem !== null) check.addIssue({ code: "custom", message: problem });
      }),
  }),
  approval: "never",
});

export const TOOL_REGISTRY: readonly [typeof delegateTask, typeof proposePlan, typeof postMessage, typeof updateTaskStatus, typeof askQuestion, typeof requestTool, typeof chatPost, typeof chatGetNew, typeof createChannel, typeof replyThread, typeof dmSend, typeof channelSubscribe, typeof channelManage, typeof channelHistory, typeof dmList, typeof markRead, typeof inboxRead, typeof messagesFetch, typeof webFetch] = [delegateTask, proposePlan, postMessage, updateTaskStatus, askQuestion, requestTool, chatPost, chatGetNew, createChannel, replyThread, dmSend, channelSubscribe, channelManage, channelHistory, dmList, markRead, inboxRead, messagesFetch, webFetch] as const;

export type ToolName = (typeof TOOL_REGISTRY)[number]["name"];
/** Any registry entry, with its arguments as the dispatcher sees them before parsing. */
export type ToolDefinition = ToolEntry;

const TOOLS_BY_NAME: ReadonlyMap<string, ToolDefinition> = new Map(TOOL_REGISTRY.map((t) => [t.name, t as unknown as ToolDefinition]));

/** The registered tool called `name`, if any (chat tools only while chat is enabled). */
export function findTool(name: string, chatEnabled: boolean): ToolDefinition | undefined {
  return chatEnabled || !isChatTool(name) ? TOOLS_BY_NAME.get(name) : undefined;
}

/** Tool names in `names` that the registry does not know. */
export function unknownTools(names: readonly string[]): string[] {
  return names.filter((name) => !TOOLS_BY_NAME.has(name));
}

/** An approved plan's step as the delegate_task call it becomes: same executor, limits and idempotency as a direct delegation. */
export function planStepCall(step: PlanStep): { tool: ToolDefinition; args: Record<string, unknown> } {
  const args = delegateTask.args.parse({
    title: step.title,
    description: step.description?.trim() ? step.description : step.title,
    assignees: [step.assignee],
    instruction: step.description?.trim() ? step.description : `Please take “${step.title}” and post your progress here.`,
    ...(step.priority === undefined ? {} : { priority: step.priority }),
  });
  return { tool: delegateTask as unknown as ToolDefinition, args };
}

/** The #maestro chat's tools: out of the registry when chat is disabled, and never an architect's. */
export { isChatTool };

/** The registry as it stands: without the chat tools when chat is disabled. */
export function activeRegistry(chatEnabled: boolean): ToolDefinition[] {
  return [...TOOLS_BY_NAME.values()].filter((tool) => chatEnabled || !isChatTool(tool.name));
}

/**
 * The tools an agent may call, in registry order: what its prompt advertises
 * and exactly what the dispatcher allows.
 */
export function permittedTools(
  allowedTools: readonly string[],
  { chatEnabled, architect }: { chatEnabled: boolean; architect: boolean },
): ToolDefinition[] {
  return activeRegistry(chatEnabled && !architect).filter((tool) => allowedTools.includes(tool.name));
}

/**
 * A JSON Schema without the bounds zod writes for every integer (±2^53 − 1,
 * the safe-integer range): they say nothing to a model and cost prompt tokens
 * on every request. Walks our own registry's schemas, which are shallow.
 */
function withoutSafeIntegerBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutSafeIntegerBounds);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !((key === "maximum" && value === Number.MAX_SAFE_INTEGER) || (key === "minimum" && value === Number.MIN_SAFE_INTEGER)))
      .map(([key, value]) => [key, withoutSafeIntegerBounds(value)]),
  );
}

/** Each tool's arguments as JSON Schema, made once from its zod schema (what a caller may send: defaults optional). */
const PARAMETERS = new Map<string, Record<string, unknown>>(
  TOOL_REGISTRY.map((t) => {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(t.args as z.ZodType, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    return [t.name, withoutSafeIntegerBounds(schema) as Record<string, unknown>];
  }),
);

/** Every registered tool's wire name, back to its name (lib/toolNames): checked once, when the module loads. */
const WIRE_NAMES = wireNameTable(TOOL_REGISTRY.map((t) => t.name));

/**
 * `tools` as a request's native functions: each under its wire name, with
 * its description and its arguments' JSON Schema, from the same registry
 * entries that write the prompt and that the dispatcher checks.
 */
export function toolFunctions(tools: ReadonlyArray<{ name: string }>): FunctionTool[] {
  return tools.flatMap(({ name }) => {
    const entry = TOOLS_BY_NAME.get(name);
    if (entry === undefined) return [];
    return [{ type: "function" as const, function: { name: wireToolName(name), description: entry.description, parameters: PARAMETERS.get(name)! } }];
  });
}

/** The registered tool a native call's name stands for (its wire name or its own name); the name as sent when none. */
export function toolNameOfWire(name: string): string {
  return toolNameFromWire(WIRE_NAMES, name) ?? name;
}

/** The approval policy `agent` has for `tool`: its own when set, else the registry's default (never for an unknown tool). */
export function approvalPolicy(agent: { toolApprovals?: ReadonlyArray<{ tool: string; policy: ApprovalPolicy }> }, tool: string): ApprovalPolicy {
  return agent.toolApprovals?.find((a) => a.tool === tool)?.policy ?? TOOLS_BY_NAME.get(tool)?.approval ?? "never";
}

/** Whether a call under `policy` waits for a human: always, or when the call's (else the task's) priority is high. */
export function needsApproval(policy: ApprovalPolicy, priority: Priority): boolean {
  return policy === "always" || (policy === "high_priority" && priority === "high");
}

/**
 * Checks an agent's approval policies against its tools: each names a
 * registered tool the agent may call, once. Returns the problem in words, or
 * null. Policies equal to the registry's default are dropped, so a later
 * change of a default reaches every agent that never chose otherwise.
 */
export function checkToolApprovals(
  approvals: ReadonlyArray<{ tool: string; policy: ApprovalPolicy }>,
  allowedTools: readonly string[],
): { problem: string } | { approvals: Array<{ tool: string; policy: ApprovalPolicy }> } {
  const seen = new Set<string>();
  for (const { tool } of approvals) {
    if (!TOOLS_BY_NAME.has(tool)) return { problem: `An approval policy names ${tool}, which is not a registered tool.` };
    if (!allowedTools.includes(tool)) return { problem: `An approval policy is set for ${tool}, which this agent may not call: allow the tool or remove its policy.` };
    if (seen.has(tool)) return { problem: `${tool} has more than one approval policy.` };
    seen.add(tool);
  }
  return { approvals: approvals.filter(({ tool, policy }) => TOOLS_BY_NAME.get(tool)!.approval !== policy).map(({ tool, policy }) => ({ tool, policy })) };
}

/** The registry, for the agent modal's checklist, with each tool's default approval policy. */
export const list = departmentQuery({
  args: {},
  returns: v.array(v.object({ name: v.string(), description: v.string(), approval: vApprovalPolicy })),
  handler: async (ctx, { departmentId }) => {
    const { enabled } = await chatSettings(ctx, departmentId);
    return activeRegistry(enabled).map(({ name, description, approval }) => ({ name, description, approval }));
  },
});
