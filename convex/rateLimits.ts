/**
 * Rate limits, kept by the `@convex-dev/rate-limiter` component (see
 * convex.config.ts): sign-in guesses per account and per client address,
 * and what one agent may do through the API or post per minute.
 */
import { HOUR, MINUTE, RateLimiter } from "@convex-dev/rate-limiter";
import { components } from "./_generated/api";
import type { ActionCtx, MutationCtx } from "./_generated/server";

export const SIGN_IN_LIMITS = {
  /** Attempts on one account: a burst of 5, then one a minute (about 60 guesses an hour at most). */
  signInAccount: { kind: "token bucket", rate: 1, period: MINUTE, capacity: 5 },
  /** Attempts from one address, across accounts. */
  signInAddress: { kind: "token bucket", rate: 20, period: MINUTE, capacity: 20 },
} as const;

export const AGENT_LIMITS = {
  /** Calls one agent makes on the MCP endpoints. */
  agentApiCall: { kind: "token bucket", rate: 120, period: MINUTE, capacity: 60 },
  /** Chat posts one agent makes, from inside Maestro or through the API. */
  agentPost: { kind: "token bucket", rate: 30, period: MINUTE, capacity: 10 },
} as const;

export const rateLimiter = new RateLimiter(components.rateLimiter, {
  ...SIGN_IN_LIMITS,
  ...AGENT_LIMITS,
  /** Invites one department sends. */
  invite: { kind: "fixed window", rate: 50, period: HOUR },
});

/** Takes one sign-in attempt from the account's and the address's buckets; null when both allow it. */
export async function checkSignInLimits(
  ctx: ActionCtx,
  { account, address }: { account: string; address: string },
): Promise<{ retryAfterMs: number } | null> {
  const byAddress = await rateLimiter.limit(ctx, "signInAddress", { key: address });
  if (!byAddress.ok) return { retryAfterMs: byAddress.retryAfter };
  const byAccount = await rateLimiter.limit(ctx, "signInAccount", { key: account });
  if (!byAccount.ok) return { retryAfterMs: byAccount.retryAfter };
  return null;
}

/** One agent action against its bucket; the refusal an endpoint answers, or null. */
export async function limitAgent(
  ctx: MutationCtx,
  name: keyof typeof AGENT_LIMITS,
  agentKey: string,
): Promise<{ kind: "error"; status: number; message: string } | null> {
  const result = await rateLimiter.limit(ctx, name, { key: agentKey });
  if (result.ok) return null;
  const seconds = Math.max(1, Math.ceil(result.retryAfter / 1000));
  return { kind: "error", status: 429, message: `Rate limit: too many ${name === "agentPost" ? "posts" : "calls"} from this agent. Try again in ${seconds} s.` };
}
