/**
 * Rate limits: sign-in guesses per account and per client address, and what
 * one agent may call or post per minute. Kept with convex-helpers' rate
 * limiter in this deployment's own `rateLimits` table, so the same code runs
 * on the offline backend and on Convex.
 */
import { defineRateLimits } from "convex-helpers/server/rateLimit";
import { v } from "convex/values";
import { internal } from "./_generated/api";
import { internalMutation, type ActionCtx, type MutationCtx } from "./_generated/server";

const SECOND = 1000;
const MINUTE = 60 * SECOND;

export const SIGN_IN_LIMITS = {
  /** Failed attempts on one account: a burst of 5, then one a minute. */
  signInAccount: { kind: "token bucket", rate: 1, period: MINUTE, capacity: 5 },
  /** Attempts from one address, across accounts. */
  signInAddress: { kind: "token bucket", rate: 20, period: MINUTE, capacity: 20 },
} as const;

export const AGENT_LIMITS = {
  /** Calls one agent makes on the MCP endpoints. */
  agentApiCall: { kind: "token bucket", rate: 120, period: MINUTE, capacity: 60 },
  /** Chat posts one agent makes through the API. */
  agentPost: { kind: "token bucket", rate: 30, period: MINUTE, capacity: 10 },
} as const;

const { rateLimit, checkRateLimit } = defineRateLimits({ ...SIGN_IN_LIMITS, ...AGENT_LIMITS });

const retryAfterMs = (retryAt: number | undefined, now: number) => Math.max(1, (retryAt ?? now + MINUTE) - now);

/**
 * Before a sign-in attempt: takes one attempt from the address's bucket and
 * checks, without taking, that the account still has failures to spare.
 */
export const takeSignInAttempt = internalMutation({
  args: { account: v.string(), address: v.string() },
  returns: v.union(v.null(), v.object({ retryAfterMs: v.number() })),
  handler: async (ctx, { account, address }) => {
    const now = Date.now();
    const byAddress = await rateLimit(ctx, { name: "signInAddress", key: address });
    if (!byAddress.ok) return { retryAfterMs: retryAfterMs(byAddress.retryAt, now) };
    const byAccount = await checkRateLimit(ctx, { name: "signInAccount", key: account });
    if (!byAccount.ok) return { retryAfterMs: retryAfterMs(byAccount.retryAt, now) };
    return null;
  },
});

/** After a refused password: one failure taken from the account's bucket. */
export const takeSignInFailure = internalMutation({
  args: { account: v.string() },
  returns: v.null(),
  handler: async (ctx, { account }) => {
    await rateLimit(ctx, { name: "signInAccount", key: account });
    return null;
  },
});

/** From the sign-in route: null when the attempt may go ahead, else how long to wait. */
export async function checkSignInLimits(ctx: ActionCtx, args: { account: string; address: string }): Promise<{ retryAfterMs: number } | null> {
  return await ctx.runMutation(internal.rateLimits.takeSignInAttempt, args);
}

/** From the sign-in route, when the password was wrong. */
export async function recordSignInFailure(ctx: ActionCtx, account: string): Promise<void> {
  await ctx.runMutation(internal.rateLimits.takeSignInFailure, { account });
}

/** One agent action against its bucket; the refusal an endpoint answers, or null. */
export async function limitAgent(
  ctx: MutationCtx,
  name: keyof typeof AGENT_LIMITS,
  agentKey: string,
): Promise<{ kind: "error"; status: number; message: string } | null> {
  const result = await rateLimit(ctx, { name, key: agentKey });
  if (result.ok) return null;
  const seconds = Math.max(1, Math.ceil(((result.retryAt ?? Date.now() + MINUTE) - Date.now()) / SECOND));
  return { kind: "error", status: 429, message: `Rate limit: too many ${name === "agentPost" ? "posts" : "calls"} from this agent. Try again in ${seconds} s.` };
}
