import { v } from "convex/values";
import { z } from "zod";
import { departmentQuery } from "../functions";
import { chatSettings } from "../lib/config";
import { PRIORITIES, TASK_STATUSES } from "../validators";

/**
 * Every tool an agent can be allowed to call. This one list feeds the
 * CreateAgentModal checklist, validates `allowedTools`, writes the tools
 * section of the prompt and validates each call's arguments in the
 * dispatcher, so none of them can disagree.
 */
export const TOOL_REGISTRY = [
  {
    name: "delegate_task",
    description: "Create a public task for other agents, with a first instruction (squad leads).",
    usage: '{"title": string, "description": string, "assignees": string[] (agent names), "instruction": string, "priority"?: "low"|"medium"|"high", "tags"?: string[]}',
    args: z.object({
      title: z.string().trim().min(1, "title must not be empty"),
      description: z.string().default(""),
      assignees: z.array(z.string().trim().min(1)).min(1, "give at least one assignee, by agent name from the roster"),
      instruction: z.string().trim().min(1, "instruction must not be empty"),
      priority: z.enum(PRIORITIES).optional(),
      tags: z.array(z.string()).optional(),
    }),
  },
  {
    name: "post_message",
    description: "Post a message in this task's thread.",
    usage: '{"content": string}',
    args: z.object({ content: z.string().trim().min(1, "content must not be empty") }),
  },
  {
    name: "update_task_status",
    description: "Move this task to another column.",
    usage: `{"status": ${TASK_STATUSES.map((s) => `"${s}"`).join("|")}}`,
    args: z.object({ status: z.enum(TASK_STATUSES) }),
  },
  {
    name: "ask_question",
    description: "Ask the humans a question in the thread; the task is blocked until one answers.",
    usage: '{"question": string}',
    args: z.object({ question: z.string().trim().min(1, "question must not be empty") }),
  },
  {
    name: "chat.post",
    description: "Post in the #maestro chat.",
    usage: '{"text": string}',
    args: z.object({ text: z.string().min(1, "text must not be empty") }),
  },
  {
    name: "chat.getNew",
    description: "Read new #maestro chat messages.",
    usage: "{}",
    args: z.object({}),
  },
] as const;

export type ToolName = (typeof TOOL_REGISTRY)[number]["name"];
export type ToolDefinition = (typeof TOOL_REGISTRY)[number];

const TOOLS_BY_NAME: ReadonlyMap<string, ToolDefinition> = new Map(TOOL_REGISTRY.map((t) => [t.name, t]));

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
  return TOOL_REGISTRY.filter((tool) => chatEnabled || !isChatTool(tool.name));
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

/** The registry, for the agent modal's checklist. */
export const list = departmentQuery({
  args: {},
  returns: v.array(v.object({ name: v.string(), description: v.string() })),
  handler: async (ctx, { departmentId }) => {
    const { enabled } = await chatSettings(ctx, departmentId);
    return activeRegistry(enabled).map(({ name, description }) => ({ name, description }));
  },
});
