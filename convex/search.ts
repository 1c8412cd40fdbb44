import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { MAX_AGENTS_PER_DEPARTMENT } from "./agents";
import { departmentQuery } from "./functions";
import { vTaskStatus } from "./validators";

/** What the command palette (Ctrl/Cmd-K) finds: at most this many of each. */
export const MAX_PALETTE_TASKS = 8;
export const MAX_PALETTE_AGENTS = 6;
/** Longer queries are cut here: a title search needs no more. */
export const MAX_PALETTE_QUERY_CHARS = 200;

/** The words of a query, lower-cased. */
export function queryTerms(text: string): string[] {
  return text.toLowerCase().split(/\s+/).filter((term) => term !== "");
}

/**
 * Whether an agent answers a query: every term starts a word of its name or
 * role ("dev" finds Dev Bot, "full eng" the full-stack engineer).
 */
export function agentMatches(agent: Pick<Doc<"agents">, "name" | "role">, terms: readonly string[]): boolean {
  const words = queryTerms(`${agent.name} ${agent.role}`).flatMap((word) => [word, ...word.split(/[-_.]/)]);
  return terms.every((term) => words.some((word) => word.startsWith(term)));
}

/**
 * The command palette's answer for `text` in one department: tasks by title
 * (the `search_title` index, best matches first) and agents by name or role.
 * An empty query lists the squad and no tasks.
 */
export const palette = departmentQuery({
  args: { text: v.string() },
  returns: v.object({
    tasks: v.array(v.object({ _id: v.id("tasks"), title: v.string(), status: vTaskStatus })),
    agents: v.array(v.object({ _id: v.id("agents"), name: v.string(), role: v.string(), sessionKey: v.string() })),
  }),
  handler: async (ctx, { departmentId, text }) => {
    const query = text.slice(0, MAX_PALETTE_QUERY_CHARS).trim();
    const terms = queryTerms(query);
    const tasks =
      terms.length === 0
        ? []
        : await ctx.db
            .query("tasks")
            .withSearchIndex("search_title", (q) => q.search("title", query).eq("departmentId", departmentId))
            .take(MAX_PALETTE_TASKS);
    const squad = await ctx.db
      .query("agents")
      .withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId))
      .take(MAX_AGENTS_PER_DEPARTMENT);
    const agents = squad.filter((agent) => terms.length === 0 || agentMatches(agent, terms)).slice(0, MAX_PALETTE_AGENTS);
    return {
      tasks: tasks.map(({ _id, title, status }) => ({ _id, title, status })),
      agents: agents.map(({ _id, name, role, sessionKey }) => ({ _id, name, role, sessionKey })),
    };
  },
});
