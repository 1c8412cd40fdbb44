/** A department's agents: the roster, lookups by session key and name, and an agent's status. */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "../lib/errors";
import type { SquadAgent } from "../lib/demoSquad";
import { MAX_AGENTS_PER_DEPARTMENT } from "../lib/limits";
import { agentSessionKey } from "../lib/names";
import type { AgentStatus } from "../validators";
import { departmentMembers } from "./members";

type ReadCtx = QueryCtx | MutationCtx;

/** The department's agents, by name, bounded. */
export async function departmentAgents(ctx: ReadCtx, departmentId: Id<"departments">): Promise<Array<Doc<"agents">>> {
  return await ctx.db
    .query("agents")
    .withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId))
    .take(MAX_AGENTS_PER_DEPARTMENT);
}

/**
 * Each agent's owner by name (the messaging spec's Agent `owner`): the
 * person who added it while they are still a member, else the department's
 * owner (an agent seeded or made before its creator was kept), else null.
 */
export async function agentOwnerNames(ctx: ReadCtx, departmentId: Id<"departments">, agents: ReadonlyArray<Doc<"agents">>): Promise<Map<Id<"agents">, string | null>> {
  const members = await departmentMembers(ctx, departmentId);
  const nameOf = new Map(members.map((m) => [m.userId, m.name]));
  const departmentOwner = members.find((m) => m.role === "owner")?.name ?? null;
  return new Map(agents.map((a) => [a._id, (a.createdBy === undefined ? undefined : nameOf.get(a.createdBy)) ?? departmentOwner]));
}

/** The department's agents among `sessionKeys` (each read by its index; others' and unknown keys left out). */
export async function departmentAgentsByKeys(ctx: ReadCtx, departmentId: Id<"departments">, sessionKeys: readonly string[]): Promise<Array<Doc<"agents">>> {
  const agents = [];
  for (const key of new Set(sessionKeys)) {
    const agent = await agentBySessionKey(ctx, key);
    if (agent !== null && agent.departmentId === departmentId) agents.push(agent);
  }
  return agents;
}

/** The agent with this session key, if it exists (in any department: check it). */
export async function agentBySessionKey(ctx: ReadCtx, sessionKey: string): Promise<Doc<"agents"> | null> {
  return await ctx.db
    .query("agents")
    .withIndex("by_sessionKey", (q) => q.eq("sessionKey", sessionKey))
    .unique();
}

/** An agent's name by session key, read once per list; `fallback` names a key with no agent. */
export function agentNamer(ctx: ReadCtx, fallback: (sessionKey: string) => string = (key) => key): (sessionKey: string) => Promise<string> {
  const names = new Map<string, string>();
  return async (sessionKey) => {
    if (!names.has(sessionKey)) names.set(sessionKey, (await agentBySessionKey(ctx, sessionKey))?.name ?? fallback(sessionKey));
    return names.get(sessionKey)!;
  };
}

/** Names of agents by id, each read once: `agentId` → name (or `fallback` for one that is gone). */
export async function agentNamesById(ctx: ReadCtx, agentIds: ReadonlyArray<Id<"agents">>, fallback: string): Promise<Map<Id<"agents">, string>> {
  const names = new Map<Id<"agents">, string>();
  for (const agentId of agentIds) {
    if (!names.has(agentId)) names.set(agentId, (await ctx.db.get("agents", agentId))?.name ?? fallback);
  }
  return names;
}

/** Refuses a name another agent of the department has (case-insensitive). */
export async function checkNameFree(ctx: ReadCtx, departmentId: Id<"departments">, name: string, except?: Id<"agents">): Promise<void> {
  const clash = await ctx.db
    .query("agents")
    .withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId).eq("nameKey", name.toLowerCase()))
    .first();
  if (clash !== null && clash._id !== except) {
    throw new MaestroError("CONFLICT", `An agent called ${clash.name} already exists in this department.`);
  }
}

/** A squad has one lead: making an agent lead takes the flag from the others. */
export async function clearOtherLeads(ctx: MutationCtx, departmentId: Id<"departments">, keep: Id<"agents">): Promise<void> {
  for (const agent of await departmentAgents(ctx, departmentId)) {
    if (agent._id !== keep && agent.isSquadLead) await ctx.db.patch("agents", agent._id, { isSquadLead: false });
  }
}

export async function setAgentStatus(ctx: MutationCtx, agent: Doc<"agents">, status: AgentStatus): Promise<void> {
  if (agent.status !== status) await ctx.db.patch("agents", agent._id, { status });
}

/** Back to idle once an active agent has no queued or running run left. */
export async function idleIfUnoccupied(ctx: MutationCtx, agent: Doc<"agents">): Promise<void> {
  if (agent.status !== "active") return;
  for (const status of ["running", "queued"] as const) {
    const busy = await ctx.db
      .query("runs")
      .withIndex("by_agent_and_status", (q) => q.eq("agentSessionKey", agent.sessionKey).eq("status", status))
      .first();
    if (busy !== null) return;
  }
  await ctx.db.patch("agents", agent._id, { status: "idle" });
}

/** Adds an agent row (the caller has checked its fields, name and session key). */
export async function insertAgent(ctx: MutationCtx, agent: Omit<Doc<"agents">, "_id" | "_creationTime">): Promise<Id<"agents">> {
  return await ctx.db.insert("agents", agent);
}

/** Changes an agent's editable fields (its session key never changes). */
export async function patchAgent(ctx: MutationCtx, agentId: Id<"agents">, fields: Partial<Omit<Doc<"agents">, "_id" | "_creationTime" | "sessionKey" | "departmentId">>): Promise<void> {
  await ctx.db.patch("agents", agentId, fields);
}

/**
 * Adds the agents of `squad` the department does not have yet (by name or
 * session key), as far as its agent limit allows; a lead among them becomes
 * the department's only lead. Returns those added, in `squad`'s order.
 */
export async function insertSquadAgents(
  ctx: MutationCtx,
  departmentId: Id<"departments">,
  departmentSlug: string,
  squad: readonly SquadAgent[],
  createdBy?: Id<"users">,
): Promise<Array<{ agentId: Id<"agents">; name: string; role: string; sessionKey: string }>> {
  const existing = await departmentAgents(ctx, departmentId);
  const names = new Set(existing.map((agent) => agent.nameKey));
  let count = existing.length;
  const added = [];
  for (const agent of squad) {
    if (count >= MAX_AGENTS_PER_DEPARTMENT) break;
    const sessionKey = agentSessionKey(agent.name, departmentSlug);
    if (names.has(agent.name.toLowerCase()) || (await agentBySessionKey(ctx, sessionKey)) !== null) continue;
    const agentId = await insertAgent(ctx, {
      ...agent,
      allowedTools: [...agent.allowedTools],
      departmentId,
      nameKey: agent.name.toLowerCase(),
      sessionKey,
      status: "idle",
      ...(createdBy === undefined ? {} : { createdBy }),
    });
    if (agent.isSquadLead) await clearOtherLeads(ctx, departmentId, agentId);
    names.add(agent.name.toLowerCase());
    count += 1;
    added.push({ agentId, name: agent.name, role: agent.role, sessionKey });
  }
  return added;
}
