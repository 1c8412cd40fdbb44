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
import { MaestroError } from "../lib/errors";

type ReadCtx = QueryCtx | MutationCtx;

export type Viewer = { user: Doc<"users">; sessionId: Id<"authSessions"> | null; name: string };
/** The viewer as an action sees it (actions cannot read documents). */
export type ActionViewer = { _id: Id<"users">; name: string; email: string | null; sessionId: Id<"authSessions"> | null };

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
  const user = await userByToken(ctx, identity.tokenIdentifier);
  return user === null ? null : { user, sessionId: null, name: displayName(user) };
}

export async function requireViewer(ctx: ReadCtx): Promise<Viewer> {
  const viewer = await getViewer(ctx);
  if (viewer === null) throw new MaestroError("UNAUTHENTICATED", "Sign in to continue.");
  return viewer;
}

/** The user row an external provider's identity maps to, if it has one yet. */
export async function userByToken(ctx: ReadCtx, tokenIdentifier: string): Promise<Doc<"users"> | null> {
  return await ctx.db
    .query("users")
    .withIndex("by_tokenIdentifier", (q) => q.eq("tokenIdentifier", tokenIdentifier))
    .unique();
}

/** The user row of an external provider's person (Clerk) on their first visit. */
export async function insertExternalUser(ctx: MutationCtx, tokenIdentifier: string, name: string, email: string | undefined): Promise<Id<"users">> {
  return await ctx.db.insert("users", { tokenIdentifier, name, email });
}
