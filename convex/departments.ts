/** Departments (the messaging spec's projects): the ones a person belongs to, and creating one (its creator owns it), for people and for API keys. */
import { v } from "convex/values";
import { internalMutation, internalQuery } from "./_generated/server";
import { departmentMutation, departmentQuery, userMutation, userQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { projectJson } from "./lib/messagingJson";
import { hasRole } from "./lib/roles";
import { firstUserId, noDepartments } from "./records/accounts";
import { SQUAD_LEAD } from "./lib/demoSquad";
import { keyCreator, scopedKeyAgentX } from "./records/agentApiKeys";
import { insertSquadAgents } from "./records/agents";
import { createDepartmentOwnedBy, ownerName, setDescription } from "./records/departments";
import { findMembership, membershipsOf } from "./records/members";
import { vApiScope, vMemberRole } from "./validators";

/** The departments the caller belongs to, with their role in each, for the department switcher. */
export const listMine = userQuery({
  args: {},
  returns: v.array(
    v.object({
      _id: v.id("departments"),
      name: v.string(),
      slug: v.string(),
      role: vMemberRole,
    }),
  ),
  handler: async (ctx) => {
    const result = [];
    for (const membership of await membershipsOf(ctx, ctx.viewer.user._id)) {
      const department = await ctx.db.get("departments", membership.departmentId);
      if (department === null) continue;
      result.push({ _id: department._id, name: department.name, slug: department.slug, role: membership.role });
    }
    return result;
  },
});

/**
 * Creates a department; its creator is its owner, and Jarvis its squad lead
 * (allowed delegate_task). Returns its id. For an
 * owner or admin of a department (or the deployment's owner while it has
 * none): anyone else gets in through an invite.
 */
export const create = userMutation({
  args: { name: v.string(), description: v.optional(v.string()) },
  returns: v.id("departments"),
  handler: async (ctx, { name, description }) => {
    const memberships = await membershipsOf(ctx, ctx.viewer.user._id);
    const runsOne = memberships.some((m) => hasRole(m.role, "admin"));
    const firstOwner = (await noDepartments(ctx)) && (await firstUserId(ctx)) === ctx.viewer.user._id;
    if (!runsOne && !firstOwner) throw new MaestroError("FORBIDDEN", "Only owners and admins of a department can create one; ask one of them for an invite instead.");
    const departmentId = await createDepartmentOwnedBy(ctx, ctx.viewer.user._id, ctx.viewer.name, name, description);
    // A squad starts with its lead, who delegates; the specialists are one click away (agents.addDemoSpecialists).
    const department = (await ctx.db.get("departments", departmentId))!;
    await insertSquadAgents(ctx, departmentId, department.slug, [SQUAD_LEAD], ctx.viewer.user._id);
    return departmentId;
  },
});

/** The department's name and what it is for, for everyone in it (the settings dialog shows both). */
export const about = departmentQuery({
  args: {},
  returns: v.object({ name: v.string(), slug: v.string(), description: v.optional(v.string()) }),
  handler: async (ctx) => {
    const { name, slug, description } = ctx.department;
    return { name, slug, ...(description === undefined ? {} : { description }) };
  },
});

/** Owners and admins: sets what the department is for (an empty text clears it); bounded and secret-scanned. */
export const updateDescription = departmentMutation({
  role: "admin",
  args: { description: v.string() },
  returns: v.null(),
  handler: async (ctx, { departmentId, description }) => {
    await setDescription(ctx, departmentId, description);
    return null;
  },
});

const vProject = v.object({
  id: v.string(),
  name: v.string(),
  slug: v.string(),
  description: v.optional(v.string()),
  owner: v.union(v.string(), v.null()),
  created_at: v.number(),
  schema_version: v.number(),
});

/**
 * `GET /projects/{id}`: the key's department as the spec's Project (a
 * project is a department). `me`, its id or its slug name it; any other
 * department is refused like its ids elsewhere.
 */
export const projectForKey = internalQuery({
  /** `scope`: the route's (GET /projects/{id}/channels names the project too). */
  args: { keyHash: v.string(), project: v.string(), scope: vApiScope },
  returns: vProject,
  handler: async (ctx, { keyHash, project, scope }) => {
    const agent = await scopedKeyAgentX(ctx, keyHash, scope);
    const department = (await ctx.db.get("departments", agent.departmentId))!;
    if (project !== "me" && project !== department._id && project !== department.slug) throw new MaestroError("FORBIDDEN", "A key reads only its own department's project.");
    return projectJson(department, await ownerName(ctx, department._id));
  },
});

/**
 * `POST /projects`: a new department owned by the person who made the key,
 * while they are still an admin of the key's department. The key's agent
 * stays where it is; the owner adds agents to the new one.
 */
export const createProjectForKey = internalMutation({
  args: { keyHash: v.string(), name: v.string(), description: v.optional(v.string()) },
  returns: vProject,
  handler: async (ctx, { keyHash, name, description }) => {
    const agent = await scopedKeyAgentX(ctx, keyHash, "projects:write");
    const owner = await keyCreator(ctx, keyHash);
    const membership = await findMembership(ctx, agent.departmentId, owner);
    if (membership === null || !hasRole(membership.role, "admin")) throw new MaestroError("FORBIDDEN", "The person who made this key is no longer an admin here, so it cannot create projects.");
    const departmentId = await createDepartmentOwnedBy(ctx, owner, membership.name, name, description);
    return projectJson((await ctx.db.get("departments", departmentId))!, membership.name);
  },
});
