/**
 * Who is calling. Identity only ever comes from `ctx.auth`; a Convex Auth
 * token names its user and session (`subject` = `<userId>|<sessionId>`), and
 * the session row must still exist, so signing out, a password change or a
 * removed account revokes access at once, open sockets included (their
 * queries re-run when the row goes). An external provider's identity (Clerk)
 * maps to the user row holding its tokenIdentifier.
 */
import type { UserIdentity } from "convex/server";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MEMBER_ROLES, type MemberRole } from "../validators";
import { MaestroError } from "./errors";

type ReadCtx = QueryCtx | MutationCtx;
export type Role = MemberRole;

export type Viewer = { user: Doc<"users">; sessionId: Id<"authSessions"> | null; name: string };
/** The viewer as an action sees it (actions cannot read documents). */
export type ActionViewer = { _id: Id<"users">; name: string; email: string | null; sessionId: Id<"authSessions"> | null };

/** True when `role` is at least as strong as `needed`. */
export function hasRole(role: Role, needed: Role): boolean {
  return MEMBER_ROLES.indexOf(role) <= MEMBER_ROLES.indexOf(needed);
}

const ROLE_WORDS: Record<Role, string> = {
  owner: "the department's owners",
  admin: "owners and admins",
  member: "members (viewers can only read)",
  viewer: "members",
};

export function displayName(user: Doc<"users">): string {
  return user.name ?? user.email ?? "Human";
}

export async function requireIdentity(ctx: ReadCtx): Promise<UserIdentity> {
  const identity = await ctx.auth.getUserIdentity();
  if (identity === null) throw new MaestroError("UNAUTHENTICATED", "Sign in to continue.");
  return identity;
}

/** The signed-in person, or null (no token, a revoked session, an unknown external identity). */
export async function getViewer(ctx: ReadCtx): Promise<Viewer | null> {
  const identity = await ctx.auth.getUserIdentity();
  if (identity === null) return null;
  const [userPart, sessionPart, ...rest] = identity.subject.split("|");
  if (sessionPart !== undefined && rest.length === 0) {
    const userId = ctx.db.normalizeId("users", userPart);
    const sessionId = ctx.db.normalizeId("authSessions", sessionPart);
    if (userId !== null && sessionId !== null) {
      const session = await ctx.db.get("authSessions", sessionId);
      if (session === null || session.userId !== userId) return null;
      const user = await ctx.db.get("users", userId);
      return user === null ? null : { user, sessionId, name: displayName(user) };
    }
  }
  const user = await ctx.db
    .query("users")
    .withIndex("by_tokenIdentifier", (q) => q.eq("tokenIdentifier", identity.tokenIdentifier))
    .unique();
  return user === null ? null : { user, sessionId: null, name: displayName(user) };
}

export async function requireViewer(ctx: ReadCtx): Promise<Viewer> {
  const viewer = await getViewer(ctx);
  if (viewer === null) throw new MaestroError("UNAUTHENTICATED", "Sign in to continue.");
  return viewer;
}

export async function findMembership(
  ctx: ReadCtx,
  departmentId: Id<"departments">,
  userId: Id<"users">,
): Promise<Doc<"members"> | null> {
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
