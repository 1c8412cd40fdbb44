/** A department's people: who belongs, with which role, and the check every department function runs. */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "../lib/errors";
import { MAX_DEPARTMENTS_PER_MEMBER, MAX_MEMBERS_PER_DEPARTMENT } from "../lib/limits";
import { hasRole, ROLE_WORDS, type Role } from "../lib/roles";
import type { MemberRole } from "../validators";
import { recordActivity } from "./activities";
import { requireViewer, type Viewer } from "./viewer";

type ReadCtx = QueryCtx | MutationCtx;

export async function findMembership(ctx: ReadCtx, departmentId: Id<"departments">, userId: Id<"users">): Promise<Doc<"members"> | null> {
  return await ctx.db
    .query("members")
    .withIndex("by_department_and_user", (q) => q.eq("departmentId", departmentId).eq("userId", userId))
    .unique();
}

/**
 * The caller's membership of a department with at least `role`; throws
 * UNAUTHENTICATED without a sign-in and FORBIDDEN otherwise (which also
 * covers ids that do not exist, so ids of other departments reveal nothing).
 */
export async function requireMember(
  ctx: ReadCtx,
  departmentId: Id<"departments">,
  role: Role,
  known?: Viewer,
): Promise<{ viewer: Viewer; member: Doc<"members">; department: Doc<"departments"> }> {
  const viewer = known ?? (await requireViewer(ctx));
  const member = await findMembership(ctx, departmentId, viewer.user._id);
  const department = member === null ? null : await ctx.db.get("departments", departmentId);
  if (member === null || department === null) {
    throw new MaestroError("FORBIDDEN", "You are not a member of this department.");
  }
  if (!hasRole(member.role, role)) {
    throw new MaestroError("FORBIDDEN", `Only ${ROLE_WORDS[role]} can do this.`);
  }
  return { viewer, member, department };
}

/** A department's members, bounded. */
export async function departmentMembers(ctx: ReadCtx, departmentId: Id<"departments">): Promise<Array<Doc<"members">>> {
  return await ctx.db
    .query("members")
    .withIndex("by_department_and_user", (q) => q.eq("departmentId", departmentId))
    .take(MAX_MEMBERS_PER_DEPARTMENT);
}

/** The departments a person belongs to (their membership rows), bounded. */
export async function membershipsOf(ctx: ReadCtx, userId: Id<"users">): Promise<Array<Doc<"members">>> {
  return await ctx.db
    .query("members")
    .withIndex("by_user", (q) => q.eq("userId", userId))
    .take(MAX_DEPARTMENTS_PER_MEMBER);
}

/** How many owners the department has. */
export async function ownerCount(ctx: ReadCtx, departmentId: Id<"departments">): Promise<number> {
  return (await departmentMembers(ctx, departmentId)).filter((m) => m.role === "owner").length;
}

/** Adds `userId` to a department with `role` and says so in its feed. */
export async function addMember(ctx: MutationCtx, departmentId: Id<"departments">, userId: Id<"users">, name: string, role: MemberRole): Promise<Id<"members">> {
  const memberId = await ctx.db.insert("members", { departmentId, userId, name, role });
  await recordActivity(ctx, { departmentId, type: "member_joined", actor: { kind: "member", userId, name }, data: { name, role } });
  return memberId;
}

export async function setMemberRole(ctx: MutationCtx, memberId: Id<"members">, role: MemberRole): Promise<void> {
  await ctx.db.patch("members", memberId, { role });
}

export async function removeMember(ctx: MutationCtx, memberId: Id<"members">): Promise<void> {
  await ctx.db.delete("members", memberId);
}
