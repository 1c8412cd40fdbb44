/**
 * The one auth layer. Every public function is built here: each builder
 * resolves who is calling (a signed-in person whose session still exists),
 * which department the call is about and their role in it, once, and hands
 * them to the handler in `ctx`. Importing the raw `query`/`mutation`/`action`
 * builders anywhere else is a lint error (eslint.config.js).
 *
 *   publicQuery                      no caller needed (first-run status, invite preview)
 *   userQuery / userMutation / userAction     any signed-in person: ctx.viewer
 *   identityMutation                 a signed-in identity that may not have a user row yet (Clerk's first visit)
 *   departmentQuery / departmentMutation      args.departmentId: ctx.member, ctx.department
 *   taskQuery / taskMutation         args.taskId: ctx.task, ctx.member
 *   agentQuery / agentMutation       args.agentId: ctx.agent, ctx.member
 *   channelQuery / channelMutation   args.channelId: ctx.channel, ctx.member, ctx.membership (the
 *                                    caller's channel row, if any); private channels and DMs only for their members
 *
 * The department builders take `role`: the weakest role allowed (queries
 * default to "viewer", mutations to "member").
 */
import { customAction, customMutation, customQuery, NoOp } from "convex-helpers/server/customFunctions";
import { v } from "convex/values";
import { makeFunctionReference, type FunctionReference } from "convex/server";
import { action, mutation, query } from "./_generated/server";
import { memberKey } from "./lib/actors";
import { canRead } from "./lib/channels";
import { MaestroError } from "./lib/errors";
import type { Role } from "./lib/roles";
import { requireMember } from "./records/members";
import { membershipOf } from "./records/channels";
import { requireIdentity, requireViewer, type ActionViewer } from "./records/viewer";
import type { Doc, Id } from "./_generated/dataModel";
import type { QueryCtx } from "./_generated/server";

type RoleOption = { role?: Role };

// Named by string, not through `internal`: users.ts builds on userAction, so the generated types would go round in a circle.
const viewerForAction = makeFunctionReference<"query", Record<string, never>, ActionViewer | null>(
  "users:viewerForAction",
) as unknown as FunctionReference<"query", "internal", Record<string, never>, ActionViewer | null>;

/** No caller needed: only for what a signed-out browser must read (first-run setup, an invite's preview). */
export const publicQuery = customQuery(query, NoOp);

export const userQuery = customQuery(query, {
  args: {},
  input: async (ctx) => ({ ctx: { viewer: await requireViewer(ctx) }, args: {} }),
});

export const userMutation = customMutation(mutation, {
  args: {},
  input: async (ctx) => ({ ctx: { viewer: await requireViewer(ctx) }, args: {} }),
});

/** A signed-in identity, before it has a `users` row (an external provider's first visit). */
export const identityMutation = customMutation(mutation, {
  args: {},
  input: async (ctx) => ({ ctx: { identity: await requireIdentity(ctx) }, args: {} }),
});

/** Actions cannot read the database: the viewer is resolved by an internal query, under the same rules. */
export const userAction = customAction(action, {
  args: {},
  input: async (ctx) => {
    const viewer = await ctx.runQuery(viewerForAction, {});
    if (viewer === null) throw new MaestroError("UNAUTHENTICATED", "Sign in to continue.");
    return { ctx: { viewer }, args: {} };
  },
});

export const departmentQuery = customQuery(query, {
  args: { departmentId: v.id("departments") },
  input: async (ctx, { departmentId }, { role = "viewer" }: RoleOption) => {
    const { viewer, member, department } = await requireMember(ctx, departmentId, role);
    return { ctx: { viewer, member, department }, args: { departmentId } };
  },
});

export const departmentMutation = customMutation(mutation, {
  args: { departmentId: v.id("departments") },
  input: async (ctx, { departmentId }, { role = "member" }: RoleOption) => {
    const { viewer, member, department } = await requireMember(ctx, departmentId, role);
    return { ctx: { viewer, member, department }, args: { departmentId } };
  },
});

/** A live task of a department the caller is a member of with at least `role` (for internal queries an action runs, as the builders below). */
export async function requireTask(ctx: QueryCtx, taskId: Id<"tasks">, role: Role) {
  const viewer = await requireViewer(ctx);
  const task = await ctx.db.get("tasks", taskId);
  // Signed in first (above), so an anonymous caller cannot tell which ids exist. A deleted task is not there.
  if (task === null || task.deletedAt !== undefined) throw new MaestroError("NOT_FOUND", "Task not found.");
  const { member, department } = await requireMember(ctx, task.departmentId, role, viewer);
  return { viewer, member, department, task };
}

export const taskQuery = customQuery(query, {
  args: { taskId: v.id("tasks") },
  input: async (ctx, { taskId }, { role = "viewer" }: RoleOption) => ({ ctx: await requireTask(ctx, taskId, role), args: { taskId } }),
});

export const taskMutation = customMutation(mutation, {
  args: { taskId: v.id("tasks") },
  input: async (ctx, { taskId }, { role = "member" }: RoleOption) => ({ ctx: await requireTask(ctx, taskId, role), args: { taskId } }),
});

export const agentQuery = customQuery(query, {
  args: { agentId: v.id("agents") },
  input: async (ctx, { agentId }, { role = "viewer" }: RoleOption) => {
    const viewer = await requireViewer(ctx);
    const agent = await ctx.db.get("agents", agentId);
    if (agent === null) throw new MaestroError("NOT_FOUND", "Agent not found.");
    const { member, department } = await requireMember(ctx, agent.departmentId, role, viewer);
    return { ctx: { viewer, member, department, agent }, args: { agentId } };
  },
});

export const agentMutation = customMutation(mutation, {
  args: { agentId: v.id("agents") },
  input: async (ctx, { agentId }, { role = "admin" }: RoleOption) => {
    const viewer = await requireViewer(ctx);
    const agent = await ctx.db.get("agents", agentId);
    if (agent === null) throw new MaestroError("NOT_FOUND", "Agent not found.");
    const { member, department } = await requireMember(ctx, agent.departmentId, role, viewer);
    return { ctx: { viewer, member, department, agent }, args: { agentId } };
  },
});

/**
 * A channel or DM the caller may read: a member of its department with at
 * least `role`, and for a private channel or a DM one of its members. Ids of
 * conversations the caller may not read are FORBIDDEN, like other departments'.
 */
export async function requireChannel(ctx: QueryCtx, channelId: Id<"channels">, role: Role) {
  const viewer = await requireViewer(ctx);
  const channel = await ctx.db.get("channels", channelId);
  if (channel === null) throw new MaestroError("NOT_FOUND", "Channel not found.");
  const { member, department } = await requireMember(ctx, channel.departmentId, role, viewer);
  const membership: Doc<"channelMembers"> | null = await membershipOf(ctx, channelId, memberKey(viewer.user._id));
  if (!canRead(channel, membership !== null)) {
    throw new MaestroError("FORBIDDEN", channel.kind === "dm" ? "This DM is only for its participants." : `#${channel.name} is private to its members.`);
  }
  return { viewer, member, department, channel, membership };
}

export const channelQuery = customQuery(query, {
  args: { channelId: v.id("channels") },
  input: async (ctx, { channelId }, { role = "viewer" }: RoleOption) => ({
    ctx: await requireChannel(ctx, channelId, role),
    args: { channelId },
  }),
});

export const channelMutation = customMutation(mutation, {
  args: { channelId: v.id("channels") },
  input: async (ctx, { channelId }, { role = "member" }: RoleOption) => ({
    ctx: await requireChannel(ctx, channelId, role),
    args: { channelId },
  }),
});
