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
  /** Attempts on one account: a burst of 5, then one a minute. */
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

const { rateLimit } = defineRateLimits({ ...SIGN_IN_LIMITS, ...AGENT_LIMITS });

/** Takes one sign-in attempt from the address's and the account's buckets. */
export const takeSignInAttempt = internalMutation({
  args: { account: v.string(), address: v.string() },
  returns: v.union(v.null(), v.object({ retryAfterMs: v.number() })),
  handler: async (ctx, { account, address }) => {
    const now = Date.now();
    const byAddress = await rateLimit(ctx, { name: "signInAddress", key: address });
    if (!byAddress.ok) return { retryAfterMs: Math.max(1, (byAddress.retryAt ?? now + MINUTE) - now) };
    const byAccount = await rateLimit(ctx, { name: "signInAccount", key: account });
    if (!byAccount.ok) return { retryAfterMs: Math.max(1, (byAccount.retryAt ?? now + MINUTE) - now) };
    return null;
  },
});

/** From the sign-in route: null when both buckets allow the attempt, else how long to wait. */
export async function checkSignInLimits(ctx: ActionCtx, args: { account: string; address: string }): Promise<{ retryAfterMs: number } | null> {
  return await ctx.runMutation(internal.rateLimits.takeSignInAttempt, args);
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
