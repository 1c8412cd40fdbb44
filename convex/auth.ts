/**
 * Accounts: Convex Auth with its Password provider (email + personal
 * password, scrypt-hashed; sessions, refresh, sign-out and its per-account
 * failed-attempt limit). The same functions run on the offline backend, a
 * self-hosted deployment and the cloud. Sign-up is closed: it needs either
 * the first-run owner setup or an invite, decided atomically in
 * `createOrUpdateUser` (records/accounts.ts).
 */
import { Password } from "@convex-dev/auth/providers/Password";
import { convexAuth } from "@convex-dev/auth/server";
import type { MutationCtx } from "./_generated/server";
import { normaliseEmail, passwordProblem } from "./lib/accounts";
import { MaestroError } from "./lib/errors";
import { admitNewAccount } from "./records/accounts";

/** Failed password guesses per account per hour before Convex Auth refuses that account. */
export const MAX_FAILED_SIGN_INS_PER_HOUR = 10;

const password = Password({
  profile(params) {
    const email = normaliseEmail(params.email);
    const name = typeof params.name === "string" ? params.name.trim() : undefined;
    // Passed through to createOrUpdateUser, which decides whether this sign-up is allowed.
    const grant = {
      inviteToken: typeof params.inviteToken === "string" ? params.inviteToken : undefined,
      setupPassword: typeof params.setupPassword === "string" ? params.setupPassword : undefined,
    };
    return { email, name, ...grant } as { email: string; name?: string };
  },
  validatePasswordRequirements(secret) {
    const problem = passwordProblem(secret);
    if (problem !== null) throw new MaestroError("INVALID_ARGUMENT", problem);
  },
});

export const { auth, signIn, signOut, store, isAuthenticated } = convexAuth({
  providers: [password],
  signIn: { maxFailedAttempsPerHour: MAX_FAILED_SIGN_INS_PER_HOUR },
  callbacks: {
    async createOrUpdateUser(ctx, { existingUserId, profile }) {
      if (existingUserId !== null) return existingUserId;
      return await admitNewAccount(ctx as unknown as MutationCtx, profile);
    },
  },
});
