/**
 * Invites: an owner or admin invites one email address into their
 * department with a role. The link carries a one-time token (only its hash
 * is stored) that expires; the invited person opens an account with their
 * own password (auth.ts) or, already signed in, accepts it here.
 */
import { v } from "convex/values";
import { departmentMutation, departmentQuery, publicQuery, userMutation } from "./functions";
import { generateInviteToken, hashInviteToken, normaliseEmail } from "./lib/accounts";
import { MaestroError } from "./lib/errors";
import { acceptInvite, invitesOf, insertInvite, openInvite, revokeInvite } from "./records/accounts";
import { requireMember } from "./records/members";
import { vMemberRole } from "./validators";

/** How long an invite link works. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Open invites one department may have. */
export const MAX_OPEN_INVITES = 100;

export const create = departmentMutation({
  role: "admin",
  args: { email: v.string(), role: vMemberRole },
  returns: v.object({ inviteId: v.id("invites"), token: v.string(), expiresAt: v.number() }),
  handler: async (ctx, { departmentId, email: rawEmail, role }) => {
    if (role === "owner" && ctx.member.role !== "owner") throw new MaestroError("FORBIDDEN", "Only owners can invite an owner.");
    const email = normaliseEmail(rawEmail);
    const now = Date.now();
    const pending = (await invitesOf(ctx, departmentId, MAX_OPEN_INVITES + 1)).filter((i) => i.acceptedAt === undefined && i.revokedAt === undefined && i.expiresAt > now);
    if (pending.length >= MAX_OPEN_INVITES) throw new MaestroError("CONFLICT", `At most ${MAX_OPEN_INVITES} open invites; revoke one first.`);
    // A new invite for the same address replaces the old one.
    for (const old of pending.filter((i) => i.email === email)) await revokeInvite(ctx, old);
    const token = generateInviteToken();
    const expiresAt = now + INVITE_TTL_MS;
    const inviteId = await insertInvite(ctx, { departmentId, email, role, tokenHash: hashInviteToken(token), expiresAt, createdBy: ctx.viewer.user._id });
    return { inviteId, token, expiresAt };
  },
});

export const list = departmentQuery({
  role: "admin",
  args: {},
  returns: v.array(
    v.object({ _id: v.id("invites"), email: v.string(), role: vMemberRole, expiresAt: v.number(), createdByName: v.string() }),
  ),
  handler: async (ctx, { departmentId }) => {
    const invites = await invitesOf(ctx, departmentId, MAX_OPEN_INVITES * 2);
    const result = [];
    // Expiry is shown, not filtered: queries read no clock.
    for (const invite of invites) {
      if (invite.acceptedAt !== undefined || invite.revokedAt !== undefined) continue;
      const creator = await ctx.db.get("users", invite.createdBy);
      result.push({
        _id: invite._id,
        email: invite.email,
        role: invite.role,
        expiresAt: invite.expiresAt,
        createdByName: creator?.name ?? creator?.email ?? "Someone",
      });
    }
    return result;
  },
});

export const revoke = userMutation({
  args: { inviteId: v.id("invites") },
  returns: v.null(),
  handler: async (ctx, { inviteId }) => {
    const invite = await ctx.db.get("invites", inviteId);
    if (invite === null) throw new MaestroError("NOT_FOUND", "Invite not found.");
    await requireMember(ctx, invite.departmentId, "admin", ctx.viewer);
    await revokeInvite(ctx, invite);
    return null;
  },
});

/**
 * What an invite link is for, shown before sign-up; null for a wrong, used
 * or revoked token. Queries read no clock, so an expired invite still
 * previews and is refused when used.
 */
export const preview = publicQuery({
  args: { token: v.string() },
  returns: v.union(v.object({ departmentName: v.string(), email: v.string(), role: vMemberRole }), v.null()),
  handler: async (ctx, { token }) => {
    const invite = await openInvite(ctx, token, 0);
    if (invite === null) return null;
    const department = await ctx.db.get("departments", invite.departmentId);
    if (department === null) return null;
    return { departmentName: department.name, email: invite.email, role: invite.role };
  },
});

/** A signed-in person (for example through Clerk) accepts an invite into another department. */
export const accept = userMutation({
  args: { token: v.string() },
  returns: v.id("departments"),
  handler: async (ctx, { token }) => {
    return await acceptInvite(ctx, token, ctx.viewer.user._id, ctx.viewer.name, ctx.viewer.user.email);
  },
});

