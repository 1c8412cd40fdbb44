/**
 * The project graph around a run (messaging spec, "Project Graph Context
 * Pack"), read per model call for lib/contextPack: the task's parent,
 * siblings and delegated tasks, the peers on its batch (the tasks one
 * delegation tree created: follow parentTaskId to the root, then down), the
 * active threads that involve the agent or the task, and the artifacts
 * shared in them. Everything is bounded, and only conversations the agent
 * may read are looked at.
 */
import { v } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import type { QueryCtx } from "../_generated/server";
import { actorName } from "../lib/actors";
import type { PackArtifact, PackTask, PackThread, ProjectGraph } from "../lib/contextPack";
import { redactPii } from "../lib/pii";
import { departmentAgents } from "./agents";
import { recentInDepartment } from "./channelMessages";
import { mayRead as mayReadChannel } from "./channels";
import { piiRulesOf } from "./settings";
import { batchOf } from "./tasks";

/** Recent department messages scanned for active threads. */
export const MAX_SCANNED_MESSAGES = 200;
/** Items of each kind handed to the pack (it keeps what the budget allows). */
const MAX_PER_KIND = 12;

const vPackTask = v.object({ id: v.string(), title: v.string(), status: v.string(), assignees: v.array(v.string()) });
export const vProjectGraph = v.object({
  parent: v.optional(vPackTask),
  siblings: v.array(vPackTask),
  children: v.array(vPackTask),
  peers: v.array(v.object({ name: v.string(), task: v.string(), status: v.string() })),
  threads: v.array(
    v.object({
      id: v.string(),
      messageIds: v.array(v.string()),
      where: v.string(),
      root: v.string(),
      replies: v.number(),
      people: v.array(v.string()),
      latest: v.optional(v.object({ from: v.string(), body: v.string() })),
      critical: v.optional(v.boolean()),
    }),
  ),
  artifacts: v.array(v.object({ id: v.string(), kind: v.string(), label: v.string(), where: v.string() })),
});

/** The project graph around `agent`'s work on `task` (its batch, peers, conversations and artifacts). */
export async function projectGraphOf(ctx: QueryCtx, agent: Doc<"agents">, task: Doc<"tasks">): Promise<ProjectGraph> {
  const agents = await departmentAgents(ctx, agent.departmentId);
  const nameOf = new Map(agents.map((a) => [a.sessionKey, a.name]));
  const packTask = (t: Doc<"tasks">): PackTask => ({
    id: t._id,
    title: t.title,
    status: t.status,
    assignees: t.assigneeSessionKeys.map((k) => nameOf.get(k) ?? k),
  });

  const { root, tasks: batch } = await batchOf(ctx, task);
  const parent = task.parentTaskId === undefined ? undefined : batch.find((t) => t._id === task.parentTaskId);
  const siblings = parent === undefined ? [] : batch.filter((t) => t.parentTaskId === parent._id && t._id !== task._id);
  const children = batch.filter((t) => t.parentTaskId === task._id);
  const peers = [];
  const named = new Set<string>([agent.sessionKey]);
  for (const t of batch) {
    for (const key of t.assigneeSessionKeys) {
      if (named.has(key)) continue;
      named.add(key);
      peers.push({ name: nameOf.get(key) ?? key, task: t.title, status: t.status });
    }
  }

  // Conversations: the department's recent messages that involve the agent or this task (or its batch), where the agent may read.
  const batchIds = new Set<string>([task._id, root._id]);
  const pii = await piiRulesOf(ctx, agent.departmentId);
  const recent = await recentInDepartment(ctx, agent.departmentId, MAX_SCANNED_MESSAGES);
  const readable = new Map<Id<"channels">, { channel: Doc<"channels">; ok: boolean }>();
  const mayRead = async (channelId: Id<"channels">) => {
    let seen = readable.get(channelId);
    if (seen === undefined) {
      const channel = await ctx.db.get("channels", channelId);
      seen = channel === null ? undefined : { channel, ok: await mayReadChannel(ctx, channel, agent.sessionKey) };
      if (seen === undefined) return null;
      readable.set(channelId, seen);
    }
    return seen.ok ? seen.channel : null;
  };
  const involves = (m: Doc<"channelMessages">) =>
    (m.from.kind === "agent" && m.from.sessionKey === agent.sessionKey) ||
    m.mentions.some((x) => x.key === agent.sessionKey) ||
    (m.to ?? []).includes(agent.sessionKey) ||
    (m.context.taskId !== undefined && batchIds.has(m.context.taskId)) ||
    (m.context.batchId !== undefined && batchIds.has(m.context.batchId));
  const groups = new Map<string, Array<Doc<"channelMessages">>>();
  for (const m of recent) {
    const key = m.threadRootId ?? m._id;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const threads: PackThread[] = [];
  const artifacts: PackArtifact[] = [];
  const artifactIds = new Set<string>();
  for (const [rootId, messages] of groups) {
    if (threads.length >= MAX_PER_KIND || !messages.some(involves)) continue;
    const channel = await mayRead(messages[0].channelId);
    if (channel === null) continue;
    const first = messages.find((m) => m._id === rootId) ?? (await ctx.db.get("channelMessages", rootId as Id<"channelMessages">));
    if (first === null) continue;
    const where = channel.kind === "dm" ? "a DM" : `#${channel.name}`;
    const newest = messages[0];
    threads.push({
      id: rootId,
      messageIds: messages.map((m) => m._id),
      where,
      // Injected text: without the PII the department's rules name (lib/pii), as in the inbox.
      root: redactPii(first.body, pii),
      replies: first.replyCount,
      people: [...new Set([first, ...messages].map((m) => actorName(m.from)))].slice(0, 5),
      ...(newest._id !== first._id ? { latest: { from: actorName(newest.from), body: redactPii(newest.body, pii) } } : {}),
      // The reranker keeps it ahead of the rest (lib/contextPack).
      ...([first, ...messages].some((m) => m.importance === "critical" || m.blocking) ? { critical: true } : {}),
    });
    for (const m of [first, ...messages]) {
      for (const artifact of m.artifacts) {
        if (artifacts.length >= MAX_PER_KIND) break;
        const item = await artifactItem(ctx, artifact, where);
        if (item === null || artifactIds.has(item.id)) continue;
        artifactIds.add(item.id);
        artifacts.push(item);
      }
    }
  }
  return {
    ...(parent === undefined ? {} : { parent: packTask(parent) }),
    siblings: siblings.slice(0, MAX_PER_KIND).map(packTask),
    children: children.slice(0, MAX_PER_KIND).map(packTask),
    peers: peers.slice(0, MAX_PER_KIND),
    threads,
    artifacts,
  };
}

/** One artifact as the pack lists it: a linked task by title and status, a link by title and URL, anything else by its name. */
async function artifactItem(ctx: QueryCtx, artifact: Doc<"channelMessages">["artifacts"][number], where: string): Promise<PackArtifact | null> {
  if (artifact.kind === "task") {
    const task = await ctx.db.get("tasks", artifact.taskId);
    return task === null ? null : { id: task._id, kind: "task", label: `"${task.title}" (${task.status.replace("_", " ")})`, where };
  }
  if (artifact.kind === "link") return { id: artifact.url, kind: "link", label: artifact.title ? `${artifact.title} ${artifact.url}` : artifact.url, where };
  // Kinds added later (files) are listed by their name when they carry one.
  const other = artifact as { kind: string; name?: unknown; storageId?: unknown };
  const id = typeof other.storageId === "string" ? other.storageId : `${other.kind}:${String(other.name ?? "")}`;
  return { id, kind: other.kind, label: typeof other.name === "string" ? other.name : other.kind, where };
}
