import { v } from "convex/values";
import { query } from "../_generated/server";
import { getViewerX } from "../lib/auth";

/**
 * Every tool an agent can be allowed to call. This one list feeds the
 * CreateAgentModal checklist, validates `allowedTools`, and (with the brain)
 * the prompt and the dispatcher, so none of them can disagree.
 */
export const TOOL_REGISTRY = [
  { name: "delegate_task", description: "Create a public task for other agents, with a first instruction (squad leads)." },
  { name: "post_message", description: "Post a message in a task's thread." },
  { name: "update_task_status", description: "Move a task to another column." },
  { name: "ask_question", description: "Ask the humans a question in the thread and block the task until they answer." },
  { name: "chat.post", description: "Post in the #maestro chat." },
  { name: "chat.getNew", description: "Read new #maestro chat messages." },
] as const;

export type ToolName = (typeof TOOL_REGISTRY)[number]["name"];

const KNOWN_TOOLS: ReadonlySet<string> = new Set(TOOL_REGISTRY.map((t) => t.name));

/** Tool names in `names` that the registry does not know. */
export function unknownTools(names: readonly string[]): string[] {
  return names.filter((name) => !KNOWN_TOOLS.has(name));
}

/** The registry, for the agent modal's checklist. */
export const list = query({
  args: {},
  returns: v.array(v.object({ name: v.string(), description: v.string() })),
  handler: async (ctx) => {
    await getViewerX(ctx);
    return TOOL_REGISTRY.map(({ name, description }) => ({ name, description }));
  },
});
