/** The command palette (Ctrl/Cmd-K): tasks, agents, channels and runs of one department, by what was typed. */
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import type { QueryCtx } from "./_generated/server";
import { departmentQuery } from "./functions";
import { memberKey } from "./lib/actors";
import { canRead } from "./lib/channels";
import { departmentAgents } from "./records/agents";
import { departmentChannels, dmTitle, membershipsIn } from "./records/channels";
import { runsOfAgent, runsOfDepartment, runsOfTask } from "./records/runs";
import { searchTitles } from "./records/tasks";
import { vChannelKind, vRunStatus, vTaskStatus } from "./validators";

/** What the command palette (Ctrl/Cmd-K) finds: at most this many of each. */
export const MAX_PALETTE_TASKS = 8;
export const MAX_PALETTE_AGENTS = 6;
export const MAX_PALETTE_CHANNELS = 5;
export const MAX_PALETTE_RUNS = 5;
/**
 * Runs looked at for a query, newest first, per agent whose name it names and
 * per task whose title it finds (through their indexes, never a scan of the
 * department's runs): the palette's reads stay bounded however many runs there are.
 */
const PALETTE_RUNS_PER_SOURCE = 10;
/** Agents whose runs are looked at when a query names many. */
const PALETTE_RUN_AGENTS = 6;
/** Longer queries are cut here: a title search needs no more. */
export const MAX_PALETTE_QUERY_CHARS = 200;

/** The words of a query, lower-cased, without a leading # or @ ("#launch" finds #launch-room, "@dev" Dev Bot). */
export function queryTerms(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((term) => term.replace(/^[#@]+/, ""))
    .filter((term) => term !== "");
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
 * Whether every term starts a word of `text` ("laun" finds #launch-copy,
 * "writer hero" Writer's run on "Hero copy").
 */
export function textMatches(text: string, terms: readonly string[]): boolean {
  const words = queryTerms(text).flatMap((word) => [word, ...word.split(/[-_.#]/)]);
  return terms.every((term) => words.some((word) => word.startsWith(term)));
}

/**
 * Runs a query may find, newest first: with no words (or only "run") the
 * department's newest; else the newest runs of the agents its words name and
 * of the tasks its title search found, for the caller to match in full.
 */
async function paletteRunCandidates(
  ctx: QueryCtx,
  departmentId: Id<"departments">,
  terms: readonly string[],
  squad: ReadonlyArray<Doc<"agents">>,
  tasks: ReadonlyArray<Doc<"tasks">>,
): Promise<Array<Doc<"runs">>> {
  if (terms.every((term) => "run".startsWith(term))) return await runsOfDepartment(ctx, departmentId, MAX_PALETTE_RUNS);
  const named = squad.filter((agent) => terms.some((term) => textMatches(agent.name, [term]))).slice(0, PALETTE_RUN_AGENTS);
  const found = new Map<string, Doc<"runs">>();
  for (const agent of named) for (const run of await runsOfAgent(ctx, agent._id, PALETTE_RUNS_PER_SOURCE)) found.set(run._id, run);
  for (const task of tasks) for (const run of await runsOfTask(ctx, task._id, PALETTE_RUNS_PER_SOURCE)) found.set(run._id, run);
  return [...found.values()].sort((a, b) => b._creationTime - a._creationTime);
}

/**
 * The command palette's answer for `text` in one department: tasks by title
 * (the `search_title` index, best matches first), agents by name or role,
 * channels and DMs the caller can read by name, and runs by their agent and
 * task. An empty query lists the squad, the channels and the latest runs.
 */
export const palette = departmentQuery({
  args: { text: v.string() },
  returns: v.object({
    tasks: v.array(v.object({ _id: v.id("tasks"), title: v.string(), status: vTaskStatus })),
    agents: v.array(v.object({ _id: v.id("agents"), name: v.string(), role: v.string(), sessionKey: v.string() })),
    channels: v.array(v.object({ _id: v.id("channels"), kind: vChannelKind, title: v.string() })),
    runs: v.array(v.object({ _id: v.id("runs"), agentName: v.string(), taskTitle: v.string(), status: vRunStatus })),
  }),
  handler: async (ctx, { departmentId, text }) => {
    const query = text.slice(0, MAX_PALETTE_QUERY_CHARS).trim();
    const terms = queryTerms(query);
    const tasks = terms.length === 0 ? [] : await searchTitles(ctx, departmentId, query, MAX_PALETTE_TASKS);
    const squad = await departmentAgents(ctx, departmentId);
    const agents = squad.filter((agent) => terms.length === 0 || agentMatches(agent, terms)).slice(0, MAX_PALETTE_AGENTS);

    const me = memberKey(ctx.member.userId);
    const mine = await membershipsIn(ctx, departmentId, me);
    const joined = new Set(mine.map((m) => m.channelId as string));
    const named = await departmentChannels(ctx, departmentId);
    const channels = [];
    for (const channel of named) {
      if (channels.length >= MAX_PALETTE_CHANNELS) break;
      if (channel.archivedAt !== undefined || !canRead(channel, joined.has(channel._id))) continue;
      if (terms.length === 0 || textMatches(channel.name, terms)) channels.push({ _id: channel._id, kind: channel.kind, title: `#${channel.name}` });
    }
    for (const row of mine) {
      if (channels.length >= MAX_PALETTE_CHANNELS || terms.length === 0) break;
      const dm = await ctx.db.get("channels", row.channelId);
      if (dm === null || dm.kind !== "dm") continue;
      const title = (await dmTitle(ctx, dm._id, me)).join(", ");
      if (textMatches(title, terms)) channels.push({ _id: dm._id, kind: dm.kind, title });
    }

    const byId = new Map(squad.map((agent) => [agent._id as string, agent.name]));
    const recent = await paletteRunCandidates(ctx, departmentId, terms, squad, tasks);
    const runs = [];
    for (const run of recent) {
      if (runs.length >= MAX_PALETTE_RUNS) break;
      const task = await ctx.db.get("tasks", run.taskId);
      const agentName = byId.get(run.agentId) ?? "a removed agent";
      const taskTitle = task?.title ?? "a deleted task";
      if (terms.length === 0 || textMatches(`${agentName} ${taskTitle} run`, terms)) runs.push({ _id: run._id, agentName, taskTitle, status: run.status });
    }
    return {
      tasks: tasks.map(({ _id, title, status }) => ({ _id, title, status })),
      agents: agents.map(({ _id, name, role, sessionKey }) => ({ _id, name, role, sessionKey })),
      channels,
      runs,
    };
  },
});
