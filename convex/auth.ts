/**
 * Accounts: Convex Auth with its Password provider (email + personal
 * password, scrypt-hashed; sessions, refresh, sign-out). The same functions
 * run on the offline backend, a self-hosted deployment and the cloud.
 * Sign-up is closed: it needs either the first-run owner setup or an
 * invite, decided atomically in `createOrUpdateUser` (records/accounts.ts).
 *
 * Every password sign-in and sign-up, whichever way it arrives (the app's
 * POST /auth/password, or `auth:signIn` called directly over HTTP or a
 * WebSocket), passes one gate before the provider runs: the per-address,
 * per-account-and-address and per-account limits (records/rateLimits.ts),
 * and for a sign-up the doors, so an uninvited one is refused before any
 * hashing. The address is the one an HTTP route vouches for with a signed
 * ticket; a direct caller has none, and all of them share one bucket.
 * Refusals read the same for a registered email and an unknown one.
 */
import { Password } from "@convex-dev/auth/providers/Password";
import { convexAuth, type ConvexCredentialsConfig } from "@convex-dev/auth/server";
import { v } from "convex/values";
import { internal } from "./_generated/api";
import { env, internalQuery, type ActionCtx, type MutationCtx } from "./_generated/server";
import { normaliseEmail, passwordProblem, SIGN_UP_TAKEN, ticketAddress, UNVOUCHED_ADDRESS, WRONG_PASSWORD } from "./lib/accounts";
import { errorData, MaestroError } from "./lib/errors";
import { admitNewAccount, signUpRefusal } from "./records/accounts";
import { checkSignInLimits, recordSignInFailure } from "./records/rateLimits";

/**
 * Convex Auth's own per-account lock, which would lock the real user out
 * for an hour after ten guesses from anywhere; set above what the gate's
 * buckets let through in an hour, so only the gate decides.
 */
export const CONVEX_AUTH_FAILED_SIGN_INS_PER_HOUR = 1_000;

type Authorize = (params: Record<string, unknown>, ctx: ActionCtx) => Promise<unknown>;
type PasswordOptions = { authorize: Authorize; crypto: { hashSecret(secret: string): Promise<string>; verifySecret(secret: string, hash: string): Promise<boolean> } };

const stringParam = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

const basePassword = Password({
  profile(params) {
    const email = normaliseEmail(params.email);
    const name = typeof params.name === "string" ? params.name.trim() : undefined;
    // Passed through to createOrUpdateUser, which decides whether this sign-up is allowed.
    const grant = { inviteToken: stringParam(params.inviteToken), setupPassword: stringParam(params.setupPassword) };
    return { email, name, ...grant } as { email: string; name?: string };
  },
  validatePasswordRequirements(secret) {
    const problem = passwordProblem(secret);
    if (problem !== null) throw new MaestroError("INVALID_ARGUMENT", problem);
  },
});
// Convex Auth merges a credentials provider's `options` over it: the provider's own flows live there.
const baseOptions = (basePassword as unknown as { options: PasswordOptions }).options;

/** A hash no password matches: an unknown email costs a refused sign-in the same scrypt time as a known one. */
let decoyHash: Promise<string> | null = null;
async function spendVerifyTime(secret: unknown): Promise<void> {
  decoyHash ??= baseOptions.crypto.hashSecret("a password nobody has, for timing");
  await baseOptions.crypto.verifySecret(typeof secret === "string" ? secret : "", await decoyHash);
}

/** The gate every password flow passes (see the module comment), then the provider's own flow. */
async function gatedAuthorize(params: Record<string, unknown>, ctx: ActionCtx): Promise<unknown> {
  const flow = params.flow;
  if (flow !== "signIn" && flow !== "signUp") throw new MaestroError("INVALID_ARGUMENT", '"flow" must be "signIn" or "signUp".');
  const account = normaliseEmail(params.email);
  const address = (await ticketAddress(params.signInTicket, Date.now(), env.JWT_PRIVATE_KEY ?? "")) ?? UNVOUCHED_ADDRESS;
  const limited = await checkSignInLimits(ctx, { account, address });
  if (limited !== null) {
    const seconds = Math.max(1, Math.ceil(limited.retryAfterMs / 1000));
    throw new MaestroError("RATE_LIMITED", `Too many sign-in attempts. Try again in ${seconds} s.`, seconds);
  }
  if (flow === "signUp") {
    const refusal = await ctx.runQuery(internal.auth.signUpRefusalFor, {
      email: account,
      inviteToken: stringParam(params.inviteToken),
      setupPassword: stringParam(params.setupPassword),
      now: Date.now(),
    });
    if (refusal !== null) throw new MaestroError("FORBIDDEN", refusal);
  }
  try {
    return await baseOptions.authorize(params, ctx);
  } catch (error) {
    // Rules on names and passwords, and the doors: said as they are (none depends on whether the email has an account).
    if (errorData(error) !== null) throw error;
    const message = error instanceof Error ? error.message : String(error);
    // Only the invitee (their invite names the email) or the first owner gets this far.
    if (flow === "signUp" && /already exists/.test(message)) throw new MaestroError("FORBIDDEN", SIGN_UP_TAKEN);
    if (flow === "signUp") throw error;
    if (/InvalidAccountId/.test(message)) await spendVerifyTime(params.password);
    await recordSignInFailure(ctx, { account, address });
    throw new MaestroError("UNAUTHENTICATED", WRONG_PASSWORD);
  }
}

const password: ConvexCredentialsConfig = { ...basePassword, options: { ...baseOptions, authorize: gatedAuthorize } } as ConvexCredentialsConfig;

export const { auth, signIn, signOut, store, isAuthenticated } = convexAuth({
  providers: [password],
  signIn: { maxFailedAttempsPerHour: CONVEX_AUTH_FAILED_SIGN_INS_PER_HOUR },
  callbacks: {
    async createOrUpdateUser(ctx, { existingUserId, profile }) {
      if (existingUserId !== null) return existingUserId;
      return await admitNewAccount(ctx as unknown as MutationCtx, profile);
    },
  },
});

/** Why a sign-up would be refused, asked before any hashing (the gate's clock passed in: a query may not read it). */
export const signUpRefusalFor = internalQuery({
  args: { email: v.string(), inviteToken: v.optional(v.string()), setupPassword: v.optional(v.string()), now: v.number() },
  returns: v.union(v.string(), v.null()),
  handler: async (ctx, { now, ...profile }) => await signUpRefusal(ctx, profile, now),
});
