/**
 * Accounts as plain rules: the limits on a person's email, name and
 * password, invite tokens, and a comparison of secrets that leaks nothing by
 * its timing. Who may open an account is records/accounts.ts.
 */
import { INVITE_TOKEN, mintedKeyBytes, mintKey, RESET_TOKEN } from "./secrets/minted";
import { MaestroError } from "./errors";
import { hmacSha256Hex, sha256Hex } from "./sha256";

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
    throw new MaestroError("INVALID_ARGUMENT", "Enter a valid email address.");
  }
  return email;
}

export function cleanPersonName(value: unknown): string {
  const name = typeof value === "string" ? value.trim().replace(/\s+/g, " ") : "";
  if (name.length === 0) throw new MaestroError("INVALID_ARGUMENT", "Enter your name.");
  if (name.length > NAME_MAX_CHARS) throw new MaestroError("INVALID_ARGUMENT", `Names are at most ${NAME_MAX_CHARS} characters.`);
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

/** A fresh invite token, minted in a format the secret scanner knows (`mi_` and 260 random bits), so a pasted invite link is redacted. */
export function generateInviteToken(): string {
  return mintKey(INVITE_TOKEN, crypto.getRandomValues(new Uint8Array(mintedKeyBytes(INVITE_TOKEN))));
}

/** How long a password reset link works: long enough to pass it on by hand, short enough that a forgotten one dies the same day. */
export const RESET_TTL_MS = 24 * 60 * 60 * 1000;
export const RESET_INVALID = "This reset link is not valid any more: it was used, replaced or has expired.";

/** What is stored for a password reset token (and looked up by). */
export function hashResetToken(token: string): string {
  return sha256Hex(`password-reset:${token}`);
}

/** A fresh reset token (`mr_` and 260 random bits), in a format the secret scanner knows, so a pasted reset link is redacted. */
export function generateResetToken(): string {
  return mintKey(RESET_TOKEN, crypto.getRandomValues(new Uint8Array(mintedKeyBytes(RESET_TOKEN))));
}

/** Why a password is refused, or null when its length is fine. */
export function passwordProblem(password: string): string | null {
  return password.length < PASSWORD_MIN_CHARS || password.length > PASSWORD_MAX_CHARS ? `A password needs ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters.` : null;
}

/** What a refused sign-in says, whether the email has an account or not. */
export const WRONG_PASSWORD = "Wrong email or password.";
/** What a sign-up through an open door says when its email has an account already (only the invitee, or the first owner, can get this far). */
export const SIGN_UP_TAKEN = "This email has an account already; sign in instead.";
/** Where a sign-in came from when nothing vouches for its address (Convex Auth's `auth:signIn` called directly): one bucket for all such callers. */
export const UNVOUCHED_ADDRESS = "direct";
/** How long the address a sign-in route vouches for stays good: long enough for one sign-in. */
export const SIGN_IN_TICKET_TTL_MS = 60_000;

/**
 * A ticket by which an HTTP route vouches for the client's address to the
 * sign-in provider: `<expiresAt>.<address, URI-encoded>.<HMAC>`, keyed with
 * a deployment secret no client has, so a direct caller cannot name an
 * address of their choosing.
 */
export async function signInTicket(address: string, now: number, key: string): Promise<string> {
  // Dots separate the parts, so the address's own (an IPv4 one has three) are encoded too.
  const body = `${now + SIGN_IN_TICKET_TTL_MS}.${encodeURIComponent(address).replace(/\./g, "%2E")}`;
  return `${body}.${await hmacSha256Hex(key, `sign-in-ticket:${body}`)}`;
}

/** The address a ticket vouches for, or null when it is missing, forged or expired. */
export async function ticketAddress(ticket: unknown, now: number, key: string): Promise<string | null> {
  if (key === "" || typeof ticket !== "string" || ticket.length > 600) return null;
  const match = /^([0-9]{1,16})\.([^.]*)\.([0-9a-f]{64})$/.exec(ticket);
  if (match === null || Number(match[1]) <= now) return null;
  const expected = await hmacSha256Hex(key, `sign-in-ticket:${match[1]}.${match[2]}`);
  if (!sameSecret(match[3], expected)) return null;
  try {
    return decodeURIComponent(match[2]);
  } catch {
    return null;
  }
}
