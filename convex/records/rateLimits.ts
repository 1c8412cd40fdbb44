/**
 * Rate limits, kept by the `@convex-dev/rate-limiter` component
 * (convex.config.ts): sign-in attempts per client address, failed sign-ins
 * per account and address and per account, and what one agent may call or
 * post per minute, and
 * channel/DM posts per agent or person.
 */
import { MINUTE, RateLimiter } from "@convex-dev/rate-limiter";
import { components } from "../_generated/api";
import type { ActionCtx, MutationCtx } from "../_generated/server";
import { UNVOUCHED_ADDRESS } from "../lib/accounts";
import { MaestroError } from "../lib/errors";

export const SIGN_IN_LIMITS = {
  /** Failed attempts on one account from one address: a burst of 5, then one a minute. The guesser slows; the real user elsewhere does not. */
  signInAccountAddress: { kind: "token bucket", rate: 1, period: MINUTE, capacity: 5 },
  /** Failed attempts on one account from everywhere: a ceiling on guesses spread over many addresses, refilling in seconds, so it never locks the real user out for long. */
  signInAccount: { kind: "token bucket", rate: 5, period: MINUTE, capacity: 20 },
  /**
   * Failed attempts from one address, across accounts (sign-in on every path
   * and the WebUI password): a ceiling on one address guessing many
   * accounts, high enough that one office behind a NAT is not locked out by
   * one person's mistakes — each person's own are counted per account (or,
   * for the WebUI password, per Basic user name) and address above.
   */
  signInAddress: { kind: "token bucket", rate: 30, period: MINUTE, capacity: 60 },
  /** Failed attempts from callers no route vouches for (auth:signIn called directly): they all share one address, and no office is behind it. */
  signInUnvouched: { kind: "token bucket", rate: 20, period: MINUTE, capacity: 20 },
  /** Every sign-in attempt from one address, right or wrong: bounds the password hashing one address can ask for. */
  signInAddressAttempts: { kind: "token bucket", rate: 120, period: MINUTE, capacity: 120 },
} as const;

export const AGENT_LIMITS = {
  /** Calls one agent makes on the MCP endpoints other than chat.post (chat.getNew). */
  agentApiCall: { kind: "token bucket", rate: 120, period: MINUTE, capacity: 60 },
  /** Chat posts one agent makes through the API. */
  agentPost: { kind: "token bucket", rate: 30, period: MINUTE, capacity: 10 },
} as const;

export const MESSAGING_LIMITS = {
  /** Channel, thread and DM posts by one agent or person (the messaging spec's spam control). */
  messagePost: { kind: "token bucket", rate: 60, period: MINUTE, capacity: 20 },
  /** Upload URLs and files added to messages, per person. */
  fileUpload: { kind: "token bucket", rate: 20, period: MINUTE, capacity: 10 },
  /** Test deliveries of a department's webhook: each is a request to the receiver, so an admin's button cannot become a flood. */
  webhookTest: { kind: "token bucket", rate: 6, period: MINUTE, capacity: 3 },
} as const;

export const RESET_LIMITS = {
  /** Password reset links one owner or admin makes: a handful at once, then a few a minute. */
  passwordResetCreate: { kind: "token bucket", rate: 5, period: MINUTE, capacity: 5 },
  /** Attempts to use a reset link from one address, right or wrong: bounds the password hashing one address can ask for. */
  passwordResetRedeem: { kind: "token bucket", rate: 10, period: MINUTE, capacity: 10 },
} as const;

export const rateLimiter = new RateLimiter(components.rateLimiter, { ...SIGN_IN_LIMITS, ...AGENT_LIMITS, ...MESSAGING_LIMITS, ...RESET_LIMITS });

/** The failure ceiling an address meets: the shared one of unvouched callers is lower. */
const addressCeiling = (address: string) => (address === UNVOUCHED_ADDRESS ? "signInUnvouched" : "signInAddress");

/** The key of one account's failures from one address. */
const accountAtAddress = (account: string, address: string) => `${account} ${address}`;

/**
 * Before a sign-in attempt: takes one attempt from the address's attempts
 * bucket and checks, without taking, that the address is under its failure
 * ceiling and the account has failures to spare from this address and
 * overall. Null when the attempt may go ahead, else how long to
 * wait.
 */
export async function checkSignInLimits(
  ctx: ActionCtx,
  { account, address }: { account: string; address: string },
): Promise<{ retryAfterMs: number } | null> {
  const attempts = await rateLimiter.limit(ctx, "signInAddressAttempts", { key: address });
  if (!attempts.ok) return { retryAfterMs: Math.max(1, attempts.retryAfter) };
  const byAddress = await rateLimiter.check(ctx, addressCeiling(address), { key: address });
  if (!byAddress.ok) return { retryAfterMs: Math.max(1, byAddress.retryAfter) };
  const here = await rateLimiter.check(ctx, "signInAccountAddress", { key: accountAtAddress(account, address) });
  if (!here.ok) return { retryAfterMs: Math.max(1, here.retryAfter) };
  const byAccount = await rateLimiter.check(ctx, "signInAccount", { key: account });
  if (!byAccount.ok) return { retryAfterMs: Math.max(1, byAccount.retryAfter) };
  return null;
}

/** The key of the WebUI password's failures for one Basic user name at one address. */
const webuiUserAtAddress = (user: string, address: string) => accountAtAddress(`webui:${user}`, address);

/**
 * Before the WebUI password is checked (HTTP Basic on /api/chat): whether
 * the Basic user name has guesses left at this address, and the address
 * under its ceiling (both checked, not taken, so a client with the right
 * password is never slowed). The user name plays the account: one person's
 * wrong guesses lock their own name, not everyone behind the same address.
 * Null when it may go ahead, else how long to wait.
 */
export async function checkPasswordAddress(ctx: ActionCtx, address: string, user: string): Promise<{ retryAfterMs: number } | null> {
  const here = await rateLimiter.check(ctx, "signInAccountAddress", { key: webuiUserAtAddress(user, address) });
  if (!here.ok) return { retryAfterMs: Math.max(1, here.retryAfter) };
  const byAddress = await rateLimiter.check(ctx, "signInAddress", { key: address });
  return byAddress.ok ? null : { retryAfterMs: Math.max(1, byAddress.retryAfter) };
}

/** After a wrong WebUI password: one failure taken from the user name's bucket at this address and from the address's ceiling. */
export async function recordPasswordFailure(ctx: ActionCtx, address: string, user: string): Promise<void> {
  await rateLimiter.limit(ctx, "signInAccountAddress", { key: webuiUserAtAddress(user, address) });
  await rateLimiter.limit(ctx, "signInAddress", { key: address });
}

/** After a refused password: one failure taken from the account's bucket at this address and from its overall one. */
export async function recordSignInFailure(ctx: ActionCtx, { account, address }: { account: string; address: string }): Promise<void> {
  await rateLimiter.limit(ctx, "signInAccountAddress", { key: accountAtAddress(account, address) });
  await rateLimiter.limit(ctx, "signInAccount", { key: account });
  await rateLimiter.limit(ctx, addressCeiling(address), { key: address });
}

/** What each bucket's refusal calls the thing there were too many of. */
const TOO_MANY: Record<keyof typeof AGENT_LIMITS | keyof typeof MESSAGING_LIMITS | "passwordResetCreate", string> = {
  agentApiCall: "Rate limit: too many calls from this agent.",
  agentPost: "Rate limit: too many posts from this agent.",
  messagePost: "Too many messages:",
  fileUpload: "Too many uploads:",
  webhookTest: "Too many test deliveries:",
  passwordResetCreate: "Too many reset links:",
};

/** Before a reset link is used: one attempt taken from the address's bucket; null when it may go ahead, else how long to wait. */
export async function limitResetAttempt(ctx: ActionCtx, address: string): Promise<{ retryAfterMs: number } | null> {
  const result = await rateLimiter.limit(ctx, "passwordResetRedeem", { key: address });
  return result.ok ? null : { retryAfterMs: Math.max(1, result.retryAfter) };
}

/**
 * Takes one token from `key`'s bucket, or refuses with RATE_LIMITED saying
 * how long to wait. Nothing is taken from a bucket that refuses.
 */
export async function limitOrThrow(ctx: MutationCtx, name: keyof typeof TOO_MANY, key: string, what: string = TOO_MANY[name]): Promise<void> {
  const result = await rateLimiter.limit(ctx, name, { key });
  if (result.ok) return;
  const seconds = Math.max(1, Math.ceil(result.retryAfter / 1000));
  const wait = what.endsWith(":") ? `${what} try again in ${seconds} s.` : `${what} Try again in ${seconds} s.`;
  throw new MaestroError("RATE_LIMITED", wait, seconds);
}
