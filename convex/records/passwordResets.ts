/**
 * Password reset links: one-time, expiring tokens (only their hash is
 * stored) that set one person's password. Who may make one is decided here
 * from every department the person belongs to, so an admin of one
 * department cannot take over someone who owns or manages another.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { hashResetToken } from "../lib/accounts";
import { MaestroError } from "../lib/errors";
import { hasRole } from "../lib/roles";
import { findMembership, membershipsOf } from "./members";

/** Open links one person may have at once (a new one replaces the old, so this only bounds the scan). */
const MAX_RESETS_SCANNED = 20;

/** A reset link that can still be used, or null. */
export async function openReset(ctx: QueryCtx, token: string, now: number): Promise<Doc<"passwordResets"> | null> {
  if (token.length === 0 || token.length > 200) return null;
  const reset = await ctx.db
    .query("passwordResets")
    .withIndex("by_tokenHash", (q) => q.eq("tokenHash", hashResetToken(token)))
    .unique();
  if (reset === null || reset.usedAt !== undefined || reset.revokedAt !== undefined || reset.expiresAt <= now) return null;
  return reset;
}

/** Whether `email` signs in with a Maestro password (not through an external provider). */
export async function hasPasswordAccount(ctx: QueryCtx, email: string): Promise<boolean> {
  const account = await ctx.db
    .query("authAccounts")
    .withIndex("providerAndAccountId", (q) => q.eq("provider", "password").eq("providerAccountId", email))
    .unique();
  return account !== null;
}

/**
 * Throws unless `makerId` may make a reset link for `target`: the maker
 * must be an owner or admin in every department the target belongs to, and
 * an owner wherever the target is an owner (as only owners invite owners).
 */
export async function requireResetMaker(ctx: QueryCtx, makerId: Id<"users">, target: Doc<"members">): Promise<void> {
  for (const membership of await membershipsOf(ctx, target.userId)) {
    const mine = await findMembership(ctx, membership.departmentId, makerId);
    if (mine === null || !hasRole(mine.role, "admin")) {
      throw new MaestroError("FORBIDDEN", `${target.name} also belongs to a department you do not manage; ask its owner.`);
    }
    if (membership.role === "owner" && mine.role !== "owner") throw new MaestroError("FORBIDDEN", "Only owners can make a reset link for an owner.");
  }
}

/** Revokes every open link of one person (a new link replaces the old; a reset ends them all). */
export async function revokeResetsOf(ctx: MutationCtx, userId: Id<"users">, now: number): Promise<void> {
  const resets = await ctx.db
    .query("passwordResets")
    .withIndex("by_user", (q) => q.eq("userId", userId))
    .order("desc")
    .take(MAX_RESETS_SCANNED);
  for (const reset of resets) {
    if (reset.usedAt === undefined && reset.revokedAt === undefined) await ctx.db.patch("passwordResets", reset._id, { revokedAt: now });
  }
}

export async function insertReset(ctx: MutationCtx, reset: Omit<Doc<"passwordResets">, "_id" | "_creationTime">): Promise<Id<"passwordResets">> {
  return await ctx.db.insert("passwordResets", reset);
}

/** Uses a link once: marks it used and ends the person's other open links; whose password it sets, or null when it cannot be used. */
export async function useReset(ctx: MutationCtx, token: string, now: number): Promise<{ userId: Id<"users">; email: string } | null> {
  const reset = await openReset(ctx, token, now);
  if (reset === null) return null;
  await ctx.db.patch("passwordResets", reset._id, { usedAt: now });
  await revokeResetsOf(ctx, reset.userId, now);
  return { userId: reset.userId, email: reset.email };
}
