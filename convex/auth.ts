/**
 * Accounts: Convex Auth with its Password provider (email + personal
 * password, scrypt-hashed; sessions, refresh, sign-out and its per-account
 * failed-attempt limit). The same functions run on the offline backend, a
 * self-hosted deployment and the cloud. Sign-up is closed: it needs either
 * the first-run owner setup or an invite, decided atomically in
 * `createOrUpdateUser` (lib/accounts.ts).
 */
import { Password } from "@convex-dev/auth/providers/Password";
import { convexAuth } from "@convex-dev/auth/server";
import { ConvexError } from "convex/values";
import { admitNewAccount, PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS, normaliseEmail } from "./lib/accounts";
import type { MutationCtx } from "./_generated/server";

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
    if (secret.length < PASSWORD_MIN_CHARS || secret.length > PASSWORD_MAX_CHARS) {
      throw new ConvexError(`A password needs ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters.`);
    }
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
