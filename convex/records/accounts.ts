/**
 * Who may open an account. Sign-up is closed except for two doors: the
 * first-run owner setup (while no account exists, authorised by the WebUI
 * password when one is configured) and an invite (a one-time token with an
 * expiry, for one department and one role). Both are decided inside the
 * mutation that creates the user, so two people racing for the owner setup
 * or for one invite cannot both win.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import {
  cleanPersonName,
  hashInviteToken,
  INVITE_INVALID,
  MAX_DEPARTMENTS_CLAIMED,
  normaliseEmail,
  sameSecret,
  SIGN_UP_CLOSED,
  WRONG_SETUP_PASSWORD,
} from "../lib/accounts";
import { webuiPasswordFromEnv } from "../lib/config";
import { MaestroError } from "../lib/errors";
import { addMember, findMembership } from "./members";

/** True until the first account exists: the app then shows the owner setup instead of sign-in. */
export async function needsOwner(ctx: QueryCtx): Promise<boolean> {
  return (await ctx.db.query("users").first()) === null;
}

/** An invite that can still be accepted, or null. */
export async function openInvite(ctx: QueryCtx, token: string, now: number): Promise<Doc<"invites"> | null> {
  if (token.length === 0 || token.length > 200) return null;
  const invite = await ctx.db
    .query("invites")
    .withIndex("by_tokenHash", (q) => q.eq("tokenHash", hashInviteToken(token)))
    .unique();
  if (invite === null || invite.acceptedAt !== undefined || invite.revokedAt !== undefined || invite.expiresAt <= now) return null;
  return invite;
}

/** Marks an invite used by `userId` and makes them a member; throws when it cannot be used. */
export async function acceptInvite(ctx: MutationCtx, token: string, userId: Id<"users">, name: string, email: string | undefined): Promise<Id<"departments">> {
  const invite = await openInvite(ctx, token, Date.now());
  if (invite === null) throw new MaestroError("INVALID_ARGUMENT", INVITE_INVALID);
  if (email !== undefined && email !== invite.email) {
    throw new MaestroError("INVALID_ARGUMENT", `This invite is for ${invite.email}; sign in with that address.`);
  }
  if ((await findMembership(ctx, invite.departmentId, userId)) !== null) {
    throw new MaestroError("INVALID_ARGUMENT", "You are already a member of this department.");
  }
  await ctx.db.patch("invites", invite._id, { acceptedAt: Date.now(), acceptedBy: userId });
  await addMember(ctx, invite.departmentId, userId, name, invite.role);
  return invite.departmentId;
}

/**
 * Convex Auth's createOrUpdateUser for a new account: the owner setup or an
 * invite, else refused. Runs in the mutation that stores the account.
 */
export async function admitNewAccount(ctx: MutationCtx, profile: Record<string, unknown>): Promise<Id<"users">> {
  const email = normaliseEmail(profile.email);
  const name = cleanPersonName(profile.name);
  if (typeof profile.inviteToken === "string" && profile.inviteToken !== "") {
    const invite = await openInvite(ctx, profile.inviteToken, Date.now());
    if (invite === null) throw new MaestroError("FORBIDDEN", INVITE_INVALID);
    if (invite.email !== email) throw new MaestroError("FORBIDDEN", `This invite is for ${invite.email}.`);
    const userId = await ctx.db.insert("users", { email, name });
    await acceptInvite(ctx, profile.inviteToken, userId, name, email);
    return userId;
  }
  if (!(await needsOwner(ctx))) throw new MaestroError("FORBIDDEN", SIGN_UP_CLOSED);
  checkSetupPassword(profile.setupPassword);
  const userId = await ctx.db.insert("users", { email, name });
  await claimOwnership(ctx, userId, name);
  return userId;
}

/** The owner setup's one check: the setup (WebUI) password when one is configured; FORBIDDEN when it does not match. */
export function checkSetupPassword(given: unknown): void {
  const setupPassword = webuiPasswordFromEnv();
  if (setupPassword !== null && !sameSecret(typeof given === "string" ? given : "", setupPassword)) {
    throw new MaestroError("FORBIDDEN", WRONG_SETUP_PASSWORD);
  }
}

/** The first account owns every department there is (the seeded demo squad, on a fresh start). */
export async function claimOwnership(ctx: MutationCtx, userId: Id<"users">, name: string): Promise<void> {
  for (const department of await ctx.db.query("departments").take(MAX_DEPARTMENTS_CLAIMED)) {
    await addMember(ctx, department._id, userId, name, "owner");
  }
}

/** The deployment's first account (its owner from the first-run setup), or null before there is one. */
export async function firstUserId(ctx: QueryCtx): Promise<Id<"users"> | null> {
  return (await ctx.db.query("users").first())?._id ?? null;
}

/** Whether the deployment has no department at all yet. */
export async function noDepartments(ctx: QueryCtx): Promise<boolean> {
  return (await ctx.db.query("departments").first()) === null;
}

/**
 * Why a sign-up would be refused before anything is hashed or looked up:
 * the same doors as `admitNewAccount` (which decides again, atomically),
 * and the same answer whether the email has an account or not. Null when a
 * door is open.
 */
export async function signUpRefusal(ctx: QueryCtx, profile: { email: string; inviteToken?: string; setupPassword?: string }, now: number): Promise<string | null> {
  if (profile.inviteToken !== undefined && profile.inviteToken !== "") {
    const invite = await openInvite(ctx, profile.inviteToken, now);
    if (invite === null) return INVITE_INVALID;
    return invite.email === profile.email ? null : `This invite is for ${invite.email}.`;
  }
  if (!(await needsOwner(ctx))) return SIGN_UP_CLOSED;
  const setupPassword = webuiPasswordFromEnv();
  if (setupPassword !== null && !sameSecret(profile.setupPassword ?? "", setupPassword)) return WRONG_SETUP_PASSWORD;
  return null;
}

/** A department's invites, newest first, bounded. */
export async function invitesOf(ctx: QueryCtx, departmentId: Id<"departments">, limit: number): Promise<Array<Doc<"invites">>> {
  return await ctx.db
    .query("invites")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .order("desc")
    .take(limit);
}

export async function insertInvite(ctx: MutationCtx, invite: Omit<Doc<"invites">, "_id" | "_creationTime">): Promise<Id<"invites">> {
  return await ctx.db.insert("invites", invite);
}

/** Revokes an invite that is still open; a used or revoked one stays as it is. */
export async function revokeInvite(ctx: MutationCtx, invite: Doc<"invites">): Promise<void> {
  if (invite.acceptedAt === undefined && invite.revokedAt === undefined) await ctx.db.patch("invites", invite._id, { revokedAt: Date.now() });
}
