/** The components convex/convex.config.ts uses, registered for convex-test deployments. */
import rateLimiterTest from "@convex-dev/rate-limiter/test";
import type { TestConvex } from "convex-test";
import type { GenericSchema, SchemaDefinition } from "convex/server";

export function registerComponents<S extends SchemaDefinition<GenericSchema, boolean>>(t: TestConvex<S>): void {
  rateLimiterTest.register(t, "rateLimiter");
}
