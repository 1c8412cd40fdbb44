/**
 * Password reset links: Maestro sends no email, so an owner or admin makes
 * a one-time link for a member who forgot their password (as they make an
 * invite) and passes it on. The link carries a token (only its hash is
 * stored) that expires, works for that person only, and is used at
 * POST /auth/reset (signInApi.ts), which sets the new password and ends
 * every session the person had.
 */
import { v } from "convex/values";
import { internalMutation } from "./_generated/server";
import { departmentMutation, publicQuery } from "./functions";
import { generateResetToken, hashResetToken, RESET_TTL_MS } from "./lib/accounts";
import { MaestroError } from "./lib/errors";
import { hasPasswordAccount, insertReset, openReset, requireResetMaker, revokeResetsOf, useReset } from "./records/passwordResets";
import { limitOrThrow } from "./records/rateLimits";

export const create = departmentMutation({
  role: "admin",
  args: { memberId: v.id("members") },
  returns: v.object({ token: v.string(), expiresAt: v.number(), email: v.string() }),
  handler: async (ctx, { departmentId, memberId }) => {
    const target = await ctx.db.get("members", memberId);
    // Another department's member reads as no member at all.
    if (target === null || target.departmentId !== departmentId) throw new MaestroError("NOT_FOUND", "Member not found.");
    await requireResetMaker(ctx, ctx.viewer.user._id, target);
    const user = await ctx.db.get("users", target.userId);
    const email = user?.email;
    if (email === undefined || !(await hasPasswordAccount(ctx, email))) {
      throw new MaestroError("INVALID_ARGUMENT", `${target.name} signs in through an external provider; reset the password there.`);
    }
    await limitOrThrow(ctx, "passwordResetCreate", ctx.viewer.user._id);
    const now = Date.now();
    // A new link replaces the old one.
    await revokeResetsOf(ctx, target.userId, now);
    const token = generateResetToken();
    const expiresAt = now + RESET_TTL_MS;
    await insertReset(ctx, { departmentId, userId: target.userId, email, tokenHash: hashResetToken(token), expiresAt, createdBy: ctx.viewer.user._id });
    return { token, expiresAt, email };
  },
});

/**
 * Whose password a reset link sets, shown before the new password is typed;
 * null for a wrong, used or replaced token. Queries read no clock, so an
 * expired link still previews and is refused when used.
 */
export const preview = publicQuery({
  args: { token: v.string() },
  returns: v.union(v.object({ email: v.string() }), v.null()),
  handler: async (ctx, { token }) => {
    const reset = await openReset(ctx, token, 0);
    return reset === null ? null : { email: reset.email };
  },
});

/** POST /auth/reset's one write: uses the link (once) and says whose password to set; null when it cannot be used. */
export const redeem = internalMutation({
  args: { token: v.string() },
  returns: v.union(v.object({ userId: v.id("users"), email: v.string() }), v.null()),
  handler: async (ctx, { token }) => await useReset(ctx, token, Date.now()),
});
