import { v } from "convex/values";
import { z } from "zod";
import { internal } from "../_generated/api";
import type { Id } from "../_generated/dataModel";
import type { ActionCtx } from "../_generated/server";
import { departmentQuery } from "../functions";
import { chatSettings } from "../lib/config";
import { PRIORITIES, TASK_STATUSES, vApprovalPolicy, type ApprovalPolicy, type Priority, type RunTriggerKind, type TaskStatus } from "../validators";
import type { DelegationResult } from "./delegation";
import { unknownAssigneeNote, type GuardStop } from "./notes";

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
  | { ok: true; text: string; delegated?: boolean }
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
  execute(ctx: ActionCtx, scope: ToolScope, args: z.output<Schema>): Promise<ToolResult>;
}

/** Types an entry by its schema, so its executor gets parsed arguments. */
function tool<const Name extends string, Schema extends z.ZodType<Record<string, unknown>>>(entry: ToolEntry<Name, Schema>): ToolEntry<Name, Schema> {
  return entry;
}

/** Observations stay concise: a longer one is cut. */
export const MAX_OBSERVATION_CHARS = 4000;

const delegateTask = tool({
  name: "delegate_task",
  description: "Create a public task for other agents, with a first instruction (squad leads).",
  usage:
    '{"title": string, "description": string, "assignees": string[] (agent names), "instruction": string, "priority"?: "low"|"medium"|"high", "tags"?: string[]}',
  args: z.object({
    title: z.string().trim().min(1, "title must not be empty"),
    description: z.string().default(""),
    assignees: z.array(z.string().trim().min(1)).min(1, "give at least one assignee, by agent name from the roster"),
    instruction: z.string().trim().min(1, "instruction must not be empty"),
    priority: z.enum(PRIORITIES).optional(),
    tags: z.array(z.string()).optional(),
  }),
  approval: "high_priority",
  delegates: true,
  async execute(ctx, scope, args): Promise<ToolResult> {
    const result: DelegationResult = await ctx.runAction(internal.tools.delegation.delegateTask, {
      departmentId: scope.departmentId,
      delegatorSessionKey: scope.sessionKey,
      ...args,
      parentTaskId: scope.taskId,
      key: scope.key,
      onResult: scope.triggerKind === "delegation_result",
    });
    if (result.ok) {
      const names = result.assigneesResolved.join(", ");
      return result.created
        ? {
            ok: true,
            delegated: true,
            text: `[DELEGATED_TASK] created “${result.title}” (${result.taskId}) assigned to ${names}; the first instruction is posted in its thread`,
          }
        : { ok: true, text: `[DELEGATED_TASK] “${result.title}” (${result.taskId}) was already created for this request, assigned to ${names}; nothing new was created` };
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
  },
});

const postMessage = tool({
  name: "post_message",
  description: "Post a message in this task's thread.",
  usage: '{"content": string}',
  args: z.object({ content: z.string().trim().min(1, "content must not be empty") }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    await ctx.runMutation(internal.tools.thread.postMessageTool, { runId: scope.runId, content: args.content });
    return { ok: true, text: "posted in the thread" };
  },
});

const updateTaskStatus = tool({
  name: "update_task_status",
  description: "Move this task to another column.",
  usage: `{"status": ${TASK_STATUSES.map((s) => `"${s}"`).join("|")}}`,
  args: z.object({ status: z.enum(TASK_STATUSES) }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const moved: { from: TaskStatus; to: TaskStatus } = await ctx.runMutation(internal.tools.thread.updateTaskStatus, { runId: scope.runId, status: args.status });
    return { ok: true, text: moved.from === moved.to ? `the task was already ${moved.to}` : `moved the task from ${moved.from} to ${moved.to}` };
  },
});

const askQuestion = tool({
  name: "ask_question",
  description: "Ask the humans a question in the thread; the task is blocked until one answers.",
  usage: '{"question": string}',
  args: z.object({ question: z.string().trim().min(1, "question must not be empty") }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    await ctx.runMutation(internal.tools.thread.askQuestion, { runId: scope.runId, question: args.question });
    return { ok: true, text: "asked in the thread; the task is blocked until a human answers" };
  },
});

const chatPost = tool({
  name: "chat.post",
  description: "Post in the #maestro chat.",
  usage: '{"text": string}',
  args: z.object({ text: z.string().min(1, "text must not be empty") }),
  approval: "never",
  async execute(ctx, scope, args): Promise<ToolResult> {
    const posted: { id: number; success: boolean } = await ctx.runMutation(internal.chat.postForRun, { runId: scope.runId, text: args.text });
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
    const fresh: unknown = await ctx.runQuery(internal.chat.getNewForRun, { runId: scope.runId });
    const json = JSON.stringify(fresh);
    return { ok: true, text: json.length > MAX_OBSERVATION_CHARS ? `${json.slice(0, MAX_OBSERVATION_CHARS)}…` : json };
  },
});

export const TOOL_REGISTRY: readonly [typeof delegateTask, typeof postMessage, typeof updateTaskStatus, typeof askQuestion, typeof chatPost, typeof chatGetNew] = [delegateTask, postMessage, updateTaskStatus, askQuestion, chatPost, chatGetNew] as const;

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

/** The #maestro chat's tools: out of the registry when chat is disabled, and never an architect's. */
export function isChatTool(name: string): boolean {
  return name.startsWith("chat.");
}

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
