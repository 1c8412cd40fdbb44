/** The command palette (Ctrl/Cmd-K): tasks, agents, channels and runs of one department, by what was typed. */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { departmentQuery } from "./functions";
import { memberKey } from "./lib/actors";
import { canRead } from "./lib/channels";
import { departmentAgents } from "./records/agents";
import { departmentChannels, dmTitle, membershipsIn } from "./records/channels";
import { runsOfDepartment } from "./records/runs";
import { searchTitles } from "./records/tasks";
import { vChannelKind, vRunStatus, vTaskStatus } from "./validators";

/** What the command palette (Ctrl/Cmd-K) finds: at most this many of each. */
export const MAX_PALETTE_TASKS = 8;
export const MAX_PALETTE_AGENTS = 6;
export const MAX_PALETTE_CHANNELS = 5;
export const MAX_PALETTE_RUNS = 5;
/** Runs looked at, newest first, when matching a query against their agent and task. */
const PALETTE_RUNS_SCANNED = 200;
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
    const recent = await runsOfDepartment(ctx, departmentId, PALETTE_RUNS_SCANNED);
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
