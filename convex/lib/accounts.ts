/**
 * Who may open an account. Sign-up is closed except for two doors: the
 * first-run owner setup (while no account exists, authorised by the WebUI
 * password when one is configured) and an invite (a one-time token with an
 * expiry, for one department and one role). Both are decided inside the
 * mutation that creates the user, so two people racing for the owner setup
 * or for one invite cannot both win.
 */
import { ConvexError } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { recordActivity } from "./activity";
import { webuiPasswordFromEnv } from "./config";
import { sha256Hex } from "./sha256";
import type { MemberRole } from "../validators";

export const PASSWORD_MIN_CHARS = 8;
export const PASSWORD_MAX_CHARS = 200;
export const EMAIL_MAX_CHARS = 254;
export const NAME_MAX_CHARS = 80;
/** Most departments the owner setup takes over (the demo squad's, and any made before it). */
export const MAX_DEPARTMENTS_CLAIMED = 50;

export const SIGN_UP_CLOSED = "Sign-up needs an invite from a department owner or admin.";
export const WRONG_SETUP_PASSWORD = "Wrong setup password: use the WebUI password (webui.password or MAESTRO_WEBUI_PASSWORD).";
export const INVITE_INVALID = "This invite link is not valid any more: it was used, revoked or has expired.";

/** Lower-cased, trimmed email; throws a clear error for anything that is not one. */
export function normaliseEmail(value: unknown): string {
  const email = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (email.length === 0 || email.length > EMAIL_MAX_CHARS || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new ConvexError("Enter a valid email address.");
  }
  return email;
}

export function cleanPersonName(value: unknown): string {
  const name = typeof value === "string" ? value.trim().replace(/\s+/g, " ") : "";
  if (name.length === 0) throw new ConvexError("Enter your name.");
  if (name.length > NAME_MAX_CHARS) throw new ConvexError(`Names are at most ${NAME_MAX_CHARS} characters.`);
  return name;
}

/** Compares two secrets in time that depends only on their lengths (no early exit on the first difference). */
export function sameSecret(given: string, expected: string): boolean {
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) {
    diff |= (i < given.length ? given.charCodeAt(i) : 0) ^ expected.charCodeAt(i);
  }
  return diff === 0;
}

/** What is stored for an invite token (and looked up by). */
export function hashInviteToken(token: string): string {
  return sha256Hex(`invite:${token}`);
}

/** A fresh invite token: 32 random bytes, base64url. */
export function generateInviteToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

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

/** Adds `userId` to a department with `role` and says so in its feed. */
export async function addMember(
  ctx: MutationCtx,
  departmentId: Id<"departments">,
  userId: Id<"users">,
  name: string,
  role: MemberRole,
): Promise<Id<"members">> {
  const memberId = await ctx.db.insert("members", { departmentId, userId, name, role });
  await recordActivity(ctx, { departmentId, type: "member_joined", actor: { kind: "member", userId, name }, data: { name, role } });
  return memberId;
}

/** Marks an invite used by `userId` and makes them a member; throws when it cannot be used. */
export async function acceptInvite(ctx: MutationCtx, token: string, userId: Id<"users">, name: string, email: string | undefined) {
  const invite = await openInvite(ctx, token, Date.now());
  if (invite === null) throw new ConvexError(INVITE_INVALID);
  if (email !== undefined && email !== invite.email) {
    throw new ConvexError(`This invite is for ${invite.email}; sign in with that address.`);
  }
  const existing = await ctx.db
    .query("members")
    .withIndex("by_department_and_user", (q) => q.eq("departmentId", invite.departmentId).eq("userId", userId))
    .unique();
  if (existing !== null) throw new ConvexError("You are already a member of this department.");
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
    if (invite === null) throw new ConvexError(INVITE_INVALID);
    if (invite.email !== email) throw new ConvexError(`This invite is for ${invite.email}.`);
    const userId = await ctx.db.insert("users", { email, name });
    await acceptInvite(ctx, profile.inviteToken, userId, name, email);
    return userId;
  }
  if (!(await needsOwner(ctx))) throw new ConvexError(SIGN_UP_CLOSED);
  const setupPassword = webuiPasswordFromEnv();
  if (setupPassword !== null && !sameSecret(typeof profile.setupPassword === "string" ? profile.setupPassword : "", setupPassword)) {
    throw new ConvexError(WRONG_SETUP_PASSWORD);
  }
  const userId = await ctx.db.insert("users", { email, name });
  for (const department of await ctx.db.query("departments").take(MAX_DEPARTMENTS_CLAIMED)) {
    await addMember(ctx, department._id, userId, name, "owner");
  }
  return userId;
}
