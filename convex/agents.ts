/** The roster's endpoints: list a department's agents, add and edit them (admins), one agent by its address. */
import { v, type Infer } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { internalQuery } from "./_generated/server";
import { agentMutation, agentQuery, departmentMutation, departmentQuery } from "./functions";
import { memberActor } from "./lib/actors";
import { normalizeName } from "./lib/agentNames";
import { webhookAllowPrivateFromEnv } from "./lib/config";
import { DEMO_SPECIALISTS } from "./lib/demoSquad";
import { MaestroError } from "./lib/errors";
import { LIMITS, MAX_AGENTS_PER_DEPARTMENT } from "./lib/limits";
import { agentSessionKey, slugify } from "./lib/names";
import { cleanText } from "./lib/validate";
import { checkWebhookUrl, newWebhookSecret } from "./lib/webhooks";
import { recordActivity } from "./records/activities";
import { agentJson } from "./lib/messagingJson";
import { scopedKeyAgentX } from "./records/agentApiKeys";
import { agentBySessionKey, agentOwnerNames, checkNameFree, clearOtherLeads, departmentAgents, insertAgent, insertSquadAgents, patchAgent, setAgentStatus } from "./records/agents";
import { runsOfAgentWithStatus } from "./records/runs";
import schema from "./schema";
import { checkToolApprovals, unknownTools } from "./tools/registry";
import { vAgentKind, vTaskStatus, vToolApproval, type ApprovalPolicy } from "./validators";

/** The roster's view of an agent: the stored agent without its department and lookup key. */
const vAgent = schema.tables.agents.validator.omit("departmentId", "nameKey", "toolApprovals", "createdBy", "endpointSecret").extend({ _id: v.id("agents") });

const agentFields = {
  name: v.string(),
  role: v.string(),
  kind: vAgentKind,
  model: v.optional(v.string()),
  systemPrompt: v.string(),
  isSquadLead: v.boolean(),
  allowedTools: v.array(v.string()),
  /** Per-tool approval policies (`never | always | high_priority`), for tools in `allowedTools`. */
  toolApprovals: v.optional(v.array(vToolApproval)),
};

function checkTools(allowedTools: string[]): string[] {
  const unknown = unknownTools(allowedTools);
  if (unknown.length > 0) {
    throw new MaestroError("INVALID_ARGUMENT", `Unknown tool${unknown.length > 1 ? "s" : ""} in allowedTools: ${unknown.join(", ")}.`);
  }
  return [...new Set(allowedTools)];
}

function cleanAgentFields(fields: {
  name: string;
  role: string;
  model?: string;
  systemPrompt: string;
  allowedTools: string[];
  toolApprovals?: Array<{ tool: string; policy: ApprovalPolicy }>;
}) {
  const allowedTools = checkTools(fields.allowedTools);
  const approvals = checkToolApprovals(fields.toolApprovals ?? [], allowedTools);
  if ("problem" in approvals) throw new MaestroError("INVALID_ARGUMENT", approvals.problem);
  const model = fields.model === undefined ? undefined : cleanText("Model", fields.model, LIMITS.agentModelChars, { allowEmpty: true });
  return {
    name: cleanText("Name", fields.name, LIMITS.agentNameChars),
    role: cleanText("Role", fields.role, LIMITS.agentRoleChars),
    model: model === "" ? undefined : model,
    systemPrompt: cleanText("System prompt", fields.systemPrompt, LIMITS.systemPromptChars, { allowEmpty: true }),
    allowedTools,
    toolApprovals: approvals.approvals,
  };
}

function toAgent(agent: Doc<"agents">): Infer<typeof vAgent> {
  const { _id, name, role, kind, sessionKey, status, isSquadLead, allowedTools, model, systemPrompt, runsOutside, endpointUrl, a2aRemote } = agent;
  // The endpoint's signing secret never leaves the server after it was shown once.
  return { _id, name, role, kind, sessionKey, status, isSquadLead, allowedTools, model, systemPrompt, runsOutside, endpointUrl, a2aRemote };
}

/** The department's roster, by name. */
export const list = departmentQuery({
  args: {},
  returns: v.array(vAgent),
  handler: async (ctx, { departmentId }) => {
    return (await departmentAgents(ctx, departmentId)).map(toAgent);
  },
});

/** Adds an agent to the department (admins only). Its session key is `agent:<slug>:<department slug>`. */
export const create = departmentMutation({
  role: "admin",
  args: agentFields,
  returns: v.id("agents"),
  handler: async (ctx, { departmentId, kind, isSquadLead, ...rest }) => {
    const { member, department } = ctx;
    const fields = cleanAgentFields(rest);
    // The session key is built from the name's slug; "!!!" would give `agent::<dept>`.
    if (slugify(fields.name) === "") throw new MaestroError("INVALID_ARGUMENT", "An agent name needs at least one letter or digit.");
    if ((await departmentAgents(ctx, departmentId)).length >= MAX_AGENTS_PER_DEPARTMENT) {
      throw new MaestroError("INVALID_ARGUMENT", `A department holds at most ${MAX_AGENTS_PER_DEPARTMENT} agents: remove one before adding another.`);
    }
    await checkNameFree(ctx, departmentId, fields.name);
    const sessionKey = agentSessionKey(fields.name, department.slug);
    const taken = await agentBySessionKey(ctx, sessionKey);
    if (taken !== null) {
      throw new MaestroError("CONFLICT", `The name ${fields.name} gives session key ${sessionKey}, which ${taken.name} already has.`);
    }
    const agentId = await insertAgent(ctx, {
      ...fields,
      departmentId,
      kind,
      isSquadLead,
      nameKey: fields.name.toLowerCase(),
      sessionKey,
      status: "idle",
      // Its owner in the messaging API's Agent JSON.
      createdBy: member.userId,
    });
    if (isSquadLead) await clearOtherLeads(ctx, departmentId, agentId);
    await recordActivity(ctx, { departmentId, type: "agent_created", actor: memberActor(member), data: { name: fields.name, role: fields.role } });
    return agentId;
  },
});

/**
 * Edits an agent (admins only). Its session key stays as it was created, so
 * tasks and threads that name it keep pointing at it after a rename.
 */
export const update = agentMutation({
  args: agentFields,
  returns: v.null(),
  handler: async (ctx, { agentId, kind, isSquadLead, ...rest }) => {
    const { agent, member } = ctx;
    // Without policies in the call, the agent keeps those for tools it may still call.
    const toolApprovals = rest.toolApprovals ?? (agent.toolApprovals ?? []).filter((a) => rest.allowedTools.includes(a.tool));
    const fields = cleanAgentFields({ ...rest, toolApprovals });
    await checkNameFree(ctx, agent.departmentId, fields.name, agentId);
    await patchAgent(ctx, agentId, { ...fields, kind, isSquadLead, nameKey: fields.name.toLowerCase() });
    if (isSquadLead) await clearOtherLeads(ctx, agent.departmentId, agentId);
    await recordActivity(ctx, {
      departmentId: agent.departmentId,
      type: "agent_updated",
      actor: memberActor(member),
      data: { name: fields.name, allowedTools: fields.allowedTools.join(", ") },
    });
    return null;
  },
});

/**
 * Adds the demo specialists (Dev Bot, Writer, Archie) the department does not
 * have yet, in one click (admins only): a new department starts with its
 * lead alone. Returns the names added (none when all are there already).
 */
export const addDemoSpecialists = departmentMutation({
  role: "admin",
  args: {},
  returns: v.array(v.string()),
  handler: async (ctx, { departmentId }) => {
    const { member, department } = ctx;
    const added = await insertSquadAgents(ctx, departmentId, department.slug, DEMO_SPECIALISTS, member.userId);
    for (const agent of added) {
      await recordActivity(ctx, { departmentId, type: "agent_created", actor: memberActor(member), data: { name: agent.name, role: agent.role } });
    }
    return added.map((agent) => agent.name);
  },
});

/**
 * Pauses an agent or resumes it (owners and admins): "offline" starts no new
 * run of it (what would have woken it says so: reactions/runQueue) and the
 * squad lead sees it offline in its roster (the delegation spec's
 * `=== SQUAD ROSTER ===` lists each agent's status), so work goes elsewhere;
 * "idle" brings it back. The brain alone sets "active" and "blocked".
 */
export const setStatus = agentMutation({
  args: { status: v.union(v.literal("offline"), v.literal("idle")) },
  returns: v.null(),
  handler: async (ctx, { status }) => {
    const { agent, member } = ctx;
    // Resuming is only from offline: an agent at work stays as the brain has it.
    if (agent.status === status || (status === "idle" && agent.status !== "offline")) return null;
    await setAgentStatus(ctx, agent, status);
    await recordActivity(ctx, {
      departmentId: agent.departmentId,
      type: "agent_status_changed",
      actor: memberActor(member),
      data: { name: agent.name, from: agent.status, to: status },
    });
    return null;
  },
});

/**
 * Marks an agent as run outside Maestro, or back inside (owners and admins).
 * Outside, Maestro starts no runs of it: what would have started one is put
 * in its inbox and, when `endpointUrl` is set, POSTed there signed
 * (reactions/outside). The URL is checked as a webhook's is (public
 * addresses only unless the deployment allows private ones); `null` removes
 * it, leaving it out keeps it. A new URL gets a new signing secret, answered
 * here once.
 */
export const setRunsOutside = agentMutation({
  args: { runsOutside: v.boolean(), endpointUrl: v.optional(v.union(v.string(), v.null())) },
  returns: v.object({ secret: v.union(v.string(), v.null()) }),
  handler: async (ctx, { agentId, runsOutside, endpointUrl }) => {
    const { agent, member } = ctx;
    if (runsOutside && agent.isSquadLead) throw new MaestroError("INVALID_ARGUMENT", `${agent.name} leads the squad: Maestro runs its lead. Make another agent lead first.`);
    if (runsOutside && agent.kind === "architect") throw new MaestroError("INVALID_ARGUMENT", "Architects run inside Maestro: they take no part in chat, and an outside agent works through it.");
    let secret: string | null = null;
    const fields: { runsOutside: boolean; endpointUrl?: string; endpointSecret?: string } = { runsOutside };
    if (endpointUrl === null || (!runsOutside && endpointUrl === undefined)) {
      fields.endpointUrl = undefined;
      fields.endpointSecret = undefined;
    } else if (endpointUrl !== undefined) {
      if (!runsOutside) throw new MaestroError("INVALID_ARGUMENT", "Only an agent that runs outside Maestro has an endpoint.");
      fields.endpointUrl = checkWebhookUrl(endpointUrl, webhookAllowPrivateFromEnv());
      secret = fields.endpointUrl === agent.endpointUrl && agent.endpointSecret !== undefined ? null : newWebhookSecret();
      if (secret !== null) fields.endpointSecret = secret;
    }
    await patchAgent(ctx, agentId, fields);
    await recordActivity(ctx, {
      departmentId: agent.departmentId,
      type: "agent_updated",
      actor: memberActor(member),
      data: { name: agent.name, runsOutside, endpointChanged: "endpointUrl" in fields },
    });
    return { secret };
  },
});

/** Where an outside agent's work is POSTed and how it is signed (reactions/outside); null when it runs inside or has no endpoint. */
export const endpointOf = internalQuery({
  args: { agentId: v.id("agents") },
  returns: v.union(v.null(), v.object({ url: v.string(), secret: v.string() })),
  handler: async (ctx, { agentId }) => {
    const agent = await ctx.db.get("agents", agentId);
    if (agent === null || agent.runsOutside !== true || agent.endpointUrl === undefined || agent.endpointSecret === undefined) return null;
    return { url: agent.endpointUrl, secret: agent.endpointSecret };
  },
});

/** The agent's own approval policies (tools not listed use the registry's defaults), for the edit modal. */
export const toolApprovals = agentQuery({
  args: {},
  returns: v.array(vToolApproval),
  handler: async (ctx) => ctx.agent.toolApprovals ?? [],
});

/** Most recent running runs looked at for an agent's current task. */
const CURRENT_RUNS_SCANNED = 5;

/**
 * One agent by the slug in its address (`/d/:slug/agents/:agentSlug`, the
 * middle of its session key), with the task its running run works on, for
 * the agent page. Null when the department has no such agent.
 */
export const getBySlug = departmentQuery({
  args: { agentSlug: v.string() },
  returns: v.union(
    v.null(),
    v.object({
      agent: vAgent,
      currentTask: v.union(v.null(), v.object({ _id: v.id("tasks"), title: v.string(), status: vTaskStatus })),
    }),
  ),
  handler: async (ctx, { departmentId, agentSlug }) => {
    // The address may name the agent in any case, or by its name ("Dev Bot"): both lead to its slug.
    const sessionKey = agentSessionKey(agentSlug, ctx.department.slug);
    const agent = await agentBySessionKey(ctx, sessionKey);
    if (agent === null || agent.departmentId !== departmentId) return null;
    const running = await runsOfAgentWithStatus(ctx, sessionKey, "running", CURRENT_RUNS_SCANNED);
    let currentTask = null;
    for (const run of running) {
      const task = await ctx.db.get("tasks", run.taskId);
      if (task !== null) {
        currentTask = { _id: task._id, title: task.title, status: task.status };
        break;
      }
    }
    return { agent: toAgent(agent), currentTask };
  },
});

const vAgentJson = v.object({
  id: v.string(),
  name: v.string(),
  role: v.string(),
  endpoint_url: v.string(),
  capabilities: v.array(v.string()),
  owner: v.union(v.string(), v.null()),
  project_id: v.string(),
});

/**
 * `GET /projects/{id}/agents` and `GET /agents/{id}`: the key's department's
 * agents as the messaging spec's Agent JSON, all of them or the one named
 * (`me`, its id, its name or its session key). `origin` is the API's, for
 * each agent's `endpoint_url`.
 */
export const agentsForKey = internalQuery({
  args: { keyHash: v.string(), origin: v.string(), agent: v.optional(v.string()) },
  returns: v.array(vAgentJson),
  handler: async (ctx, { keyHash, origin, agent: named }) => {
    const caller = await scopedKeyAgentX(ctx, keyHash, "projects:read");
    const roster = await departmentAgents(ctx, caller.departmentId);
    const wanted = named === undefined ? roster : [agentNamedX(roster, caller, named)];
    const owners = await agentOwnerNames(ctx, caller.departmentId, wanted);
    return wanted.map((a) => agentJson(a, { origin, owner: owners.get(a._id) ?? null, projectId: caller.departmentId }));
  },
});

/** One agent of the roster by `me`, id, name (any case) or session key; another department's or an unknown one is a 404 alike. */
function agentNamedX(roster: ReadonlyArray<Doc<"agents">>, caller: Doc<"agents">, named: string): Doc<"agents"> {
  if (named === "me") return caller;
  // The project's one name rule (lib/agentNames), as every route that takes an agent's name.
  const key = normalizeName(named);
  const found = roster.find((a) => a._id === named || a.sessionKey === named || (key !== "" && normalizeName(a.name) === key));
  if (found === undefined) throw new MaestroError("NOT_FOUND", `No agent ${JSON.stringify(named.slice(0, 80))} in this project.`);
  return found;
}
