import { HOUR, RateLimiter } from "@convex-dev/rate-limiter";
import { expect, test } from "vitest";
import { components } from "../../convex/_generated/api";
import { registerComponents } from "./components";
import { setupTest } from "./setup";

const limiter = new RateLimiter(components.rateLimiter, {
  signIn: { kind: "fixed window", rate: 2, period: HOUR },
});

test("the rate limiter from convex/_generated/api allows the configured rate, then refuses with a retry time", async () => {
  const t = registerComponents(setupTest());
  const attempt = (key: string) => t.run(async (ctx) => await limiter.limit(ctx, "signIn", { key }));
  expect((await attempt("ada")).ok).toBe(true);
  expect((await attempt("ada")).ok).toBe(true);
  const refused = await attempt("ada");
  expect(refused.ok).toBe(false);
  expect(refused.retryAfter).toBeGreaterThan(0);
  expect(refused.retryAfter).toBeLessThanOrEqual(HOUR);
  // Keys are limited separately.
  expect((await attempt("grace")).ok).toBe(true);
  const left = await t.run(async (ctx) => await limiter.getValue(ctx, "signIn", { key: "ada" }));
  expect(left.value).toBe(0);
});
