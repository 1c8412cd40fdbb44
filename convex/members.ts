/** A department's people and their roles: listed for everyone in it, changed by its owners and admins. */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import type { MutationCtx } from "./_generated/server";
import { departmentQuery, userMutation } from "./functions";
import { memberActor, memberKey } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { recordActivity } from "./records/activities";
import { departmentMembers, ownerCount, removeMember, requireMember, setMemberRole } from "./records/members";
import { vMemberRole } from "./validators";

export const list = departmentQuery({
  args: {},
  returns: v.array(
    v.object({
      _id: v.id("members"),
      userId: v.id("users"),
      name: v.string(),
      email: v.union(v.string(), v.null()),
      role: vMemberRole,
      key: v.string(),
    }),
  ),
  handler: async (ctx, { departmentId }) => {
    const result = [];
    for (const m of await departmentMembers(ctx, departmentId)) {
      const user = await ctx.db.get("users", m.userId);
      result.push({ _id: m._id, userId: m.userId, name: m.name, email: user?.email ?? null, role: m.role, key: memberKey(m.userId) });
    }
    return result;
  },
});

/** Why the last owner cannot be demoted or removed. */
const LAST_OWNER = "A department needs at least one owner; make someone else an owner first.";

/**
 * The target member and the caller's admin membership of the same
 * department. Only owners touch owners, and a department keeps at least
 * one owner.
 */
async function manageable(ctx: MutationCtx & { viewer: Parameters<typeof requireMember>[3] }, target: Doc<"members">) {
  const { member: me } = await requireMember(ctx, target.departmentId, "admin", ctx.viewer);
  if (target.role === "owner" && me.role !== "owner") throw new MaestroError("FORBIDDEN", "Only owners can change an owner.");
  return me;
}

export const setRole = userMutation({
  args: { memberId: v.id("members"), role: vMemberRole },
  returns: v.null(),
  handler: async (ctx, { memberId, role }) => {
    const target = await ctx.db.get("members", memberId);
    if (target === null) throw new MaestroError("NOT_FOUND", "Member not found.");
    const me = await manageable(ctx, target);
    if (role === "owner" && me.role !== "owner") throw new MaestroError("FORBIDDEN", "Only owners can make someone an owner.");
    if (target.role === role) return null;
    if (target.role === "owner" && (await ownerCount(ctx, target.departmentId)) <= 1) throw new MaestroError("CONFLICT", LAST_OWNER);
    await setMemberRole(ctx, memberId, role);
    await recordActivity(ctx, {
      departmentId: target.departmentId,
      type: "member_role_changed",
      actor: memberActor(me),
      data: { name: target.name, role },
    });
    return null;
  },
});

/** Removes someone from the department; their open pages lose its data at once. */
export const remove = userMutation({
  args: { memberId: v.id("members") },
  returns: v.null(),
  handler: async (ctx, { memberId }) => {
    const target = await ctx.db.get("members", memberId);
    if (target === null) throw new MaestroError("NOT_FOUND", "Member not found.");
    const me = await manageable(ctx, target);
    if (target.role === "owner" && (await ownerCount(ctx, target.departmentId)) <= 1) throw new MaestroError("CONFLICT", LAST_OWNER);
    await removeMember(ctx, memberId);
    await recordActivity(ctx, {
      departmentId: target.departmentId,
      type: "member_removed",
      actor: memberActor(me),
      data: { name: target.name },
    });
    return null;
  },
});
