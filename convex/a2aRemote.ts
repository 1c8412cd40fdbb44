/**
 * A2A agents as squad members (issue 45, part 2): the transactional half of
 * what convex/a2aRemoteCalls.ts (the client, in Node) does. An admin's
 * checked agent card becomes an agent that runs outside Maestro, reached
 * through its A2A endpoint; what to send a remote task; its answers and
 * failures onto the card (reactions/a2aRemoteFollow); Stop.
 */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { internalMutation, internalQuery } from "./_generated/server";
import { taskMutation, taskQuery } from "./functions";
import { actorName, memberActor } from "./lib/actors";
import { A2A_REMOTE_LIMITS, roleFromCard, taskMessageText } from "./lib/a2aRemote";
import { buildContextPack } from "./lib/contextPack";
import { MaestroError } from "./lib/errors";
import { LIMITS, MAX_AGENTS_PER_DEPARTMENT } from "./lib/limits";
import { agentSessionKey, slugify } from "./lib/names";
import { untrustedName } from "./lib/untrusted";
import { getRemoteTask, openRemoteTasksOfTask } from "./records/a2aRemoteTasks";
import { recordActivity } from "./records/activities";
import { agentBySessionKey, checkNameFree, departmentAgents, insertAgent } from "./records/agents";
import { requireMember } from "./records/members";
import { newestMessages } from "./records/messages";
import { projectGraphOf } from "./records/projectGraph";
import { liveTask } from "./records/tasks";
import { remoteAnswered, remoteCallFailed, stopRemoteTasks } from "./reactions/a2aRemoteFollow";
import { vA2aRemoteAgent, vA2aRemotePhase } from "./validators";

/** Tokens of the context pack sent with a task. */
const CONTEXT_PACK_TOKENS = 1_500;

const vStep = v.union(v.literal("send"), v.literal("poll"));

/** What the client reports of one answer (lib/a2aRemote RemoteTaskView). */
const vRemoteTaskView = v.object({
  remoteTaskId: v.optional(v.string()),
  contextId: v.optional(v.string()),
  state: v.union(
    v.literal("submitted"),
    v.literal("working"),
    v.literal("input_required"),
    v.literal("completed"),
    v.literal("failed"),
    v.literal("canceled"),
    v.literal("rejected"),
    v.literal("auth_required"),
    v.literal("unknown"),
  ),
  statusText: v.string(),
  artifacts: v.array(v.object({ name: v.string(), text: v.string() })),
});

/** The caller may add agents to the department (owners and admins); the action asks before it fetches anything. */
export const checkMayAdd = internalQuery({
  args: { departmentId: v.id("departments") },
  returns: v.null(),
  handler: async (ctx, { departmentId }) => {
    await requireMember(ctx, departmentId, "admin");
    return null;
  },
});

/**
 * Adds the A2A agent an admin's checked card describes: it runs outside
 * Maestro, its role is the card's description, and the roster shows its
 * skills and that it is reached over A2A.
 */
export const insertAgentFromCard = internalMutation({
  args: { departmentId: v.id("departments"), name: v.string(), a2aRemote: vA2aRemoteAgent },
  returns: v.id("agents"),
  handler: async (ctx, { departmentId, name, a2aRemote }) => {
    const { member, department } = await requireMember(ctx, departmentId, "admin");
    const cleanName = untrustedName(name).trim().slice(0, LIMITS.agentNameChars);
    if (slugify(cleanName) === "") throw new MaestroError("INVALID_ARGUMENT", "The agent card's name needs at least one letter or digit.");
    if ((await departmentAgents(ctx, departmentId)).length >= MAX_AGENTS_PER_DEPARTMENT) {
      throw new MaestroError("INVALID_ARGUMENT", `A department holds at most ${MAX_AGENTS_PER_DEPARTMENT} agents: remove one before adding another.`);
    }
    await checkNameFree(ctx, departmentId, cleanName);
    const sessionKey = agentSessionKey(cleanName, department.slug);
    const taken = await agentBySessionKey(ctx, sessionKey);
    if (taken !== null) throw new MaestroError("CONFLICT", `The name ${cleanName} gives session key ${sessionKey}, which ${taken.name} already has.`);
    const role = roleFromCard(a2aRemote.description, LIMITS.agentRoleChars);
    const agentId = await insertAgent(ctx, {
      departmentId,
      name: cleanName,
      nameKey: cleanName.toLowerCase(),
      role,
      kind: "specialist",
      sessionKey,
      status: "idle",
      isSquadLead: false,
      allowedTools: [],
      systemPrompt: "",
      createdBy: member.userId,
      runsOutside: true,
      a2aRemote,
    });
    await recordActivity(ctx, { departmentId, type: "agent_created", actor: memberActor(member), data: { name: cleanName, role } });
    return agentId;
  },
});

/** The thread's newest words, oldest first, for the remote agent (people and agents; Maestro's own notes left out). */
async function threadLines(ctx: Parameters<typeof newestMessages>[0], task: Doc<"tasks">): Promise<string[]> {
  const messages = await newestMessages(ctx, task._id, A2A_REMOTE_LIMITS.threadMessages);
  return messages
    .filter((m) => m.author.kind !== "system" && m.deletedAt === undefined)
    .reverse()
    .map((m) => `${actorName(m.author)}: ${m.content}`);
}

/**
 * What to send next on a remote task: the first message (title,
 * description, first instruction, the thread and the context pack), or the
 * answer to its question; null when there is nothing to send any more.
 */
export const sendPlan = internalQuery({
  args: { remoteId: v.id("a2aRemoteTasks") },
  returns: v.union(
    v.null(),
    v.object({
      endpointUrl: v.string(),
      protocolVersion: v.string(),
      text: v.string(),
      messageId: v.string(),
      remoteTaskId: v.optional(v.string()),
      contextId: v.optional(v.string()),
      correlationId: v.string(),
    }),
  ),
  handler: async (ctx, { remoteId }) => {
    const row = await getRemoteTask(ctx, remoteId);
    if (row === null || row.endedAt !== undefined || row.phase !== "sending") return null;
    const agent = await ctx.db.get("agents", row.agentId);
    const task = await liveTask(ctx, row.taskId);
    if (agent?.a2aRemote === undefined || task === null) return null;
    let text: string;
    if (row.replyMessageId !== undefined) {
      const reply = await ctx.db.get("messages", row.replyMessageId);
      text = reply === null ? "(the answer was deleted)" : `${actorName(reply.author)}: ${reply.content}`;
    } else {
      const thread = await threadLines(ctx, task);
      // A delegation's instruction is its thread's first word (reactions/delegation).
      const instruction = thread.length > 0 && task.delegatedBy !== undefined ? thread[0] : null;
      const pack = buildContextPack(await projectGraphOf(ctx, agent, task), { budget: CONTEXT_PACK_TOKENS, query: `${task.title}\n${task.description}` });
      text = taskMessageText({ title: task.title, description: task.description, instruction, thread: instruction === null ? thread : thread.slice(1), contextPack: pack.text });
    }
    return {
      endpointUrl: agent.a2aRemote.endpointUrl,
      protocolVersion: agent.a2aRemote.protocolVersion,
      text,
      // The same id on a retry of the same send: a remote agent may tell the repeat.
      messageId: `${row._id}:${row.sends}`,
      remoteTaskId: row.remoteTaskId,
      contextId: row.contextId,
      correlationId: row.correlationId,
    };
  },
});

/** Where to poll or cancel a remote task: its agent's endpoint and the remote task's id; null when there is none. */
export const callTarget = internalQuery({
  args: { remoteId: v.id("a2aRemoteTasks"), forCancel: v.boolean() },
  returns: v.union(v.null(), v.object({ endpointUrl: v.string(), protocolVersion: v.string(), remoteTaskId: v.string(), correlationId: v.string() })),
  handler: async (ctx, { remoteId, forCancel }) => {
    const row = await getRemoteTask(ctx, remoteId);
    if (row === null || row.remoteTaskId === undefined) return null;
    // A poll only while it is followed; a cancel after it ended too (that is when Stop and a deadline cancel it).
    if (!forCancel && (row.endedAt !== undefined || row.phase !== "following")) return null;
    const agent = await ctx.db.get("agents", row.agentId);
    if (agent?.a2aRemote === undefined) return null;
    return { endpointUrl: agent.a2aRemote.endpointUrl, protocolVersion: agent.a2aRemote.protocolVersion, remoteTaskId: row.remoteTaskId, correlationId: row.correlationId };
  },
});

/** The remote agent answered a message or a poll. */
export const answered = internalMutation({
  args: { remoteId: v.id("a2aRemoteTasks"), step: vStep, view: vRemoteTaskView },
  returns: v.null(),
  handler: async (ctx, { remoteId, step, view }) => {
    await remoteAnswered(ctx, remoteId, step, view);
    return null;
  },
});

/** A call to the remote agent failed; `reason` is for the thread note (never the remote's own words). */
export const callFailed = internalMutation({
  args: { remoteId: v.id("a2aRemoteTasks"), step: vStep, reason: v.string() },
  returns: v.null(),
  handler: async (ctx, { remoteId, step, reason }) => {
    await remoteCallFailed(ctx, remoteId, step, reason);
    return null;
  },
});

/** The card's A2A work in progress, for the drawer's Stop. */
export const openForTask = taskQuery({
  args: {},
  returns: v.array(v.object({ _id: v.id("a2aRemoteTasks"), agentId: v.id("agents"), phase: vA2aRemotePhase, remoteState: v.optional(v.string()) })),
  handler: async (ctx) => (await openRemoteTasksOfTask(ctx, ctx.task._id)).map(({ _id, agentId, phase, remoteState }) => ({ _id, agentId, phase, remoteState })),
});

/** Stop (members, not viewers): the card's A2A tasks are canceled here and at the remote agent; how many were stopped. */
export const stop = taskMutation({
  args: {},
  returns: v.number(),
  handler: async (ctx) => await stopRemoteTasks(ctx, ctx.task, ctx.member),
});
