/// <reference types="vite/client" />
/**
 * Registers the components `convex/convex.config.ts` installs with a
 * convex-test deployment, under the same paths, using each package's own
 * test helper. Call it on every `convexTest(...)` whose functions use
 * `components` from `convex/_generated/api`.
 */
import presence from "@convex-dev/presence/test";
import rateLimiter from "@convex-dev/rate-limiter/test";
import type { TestConvex } from "convex-test";
import type { GenericSchema, SchemaDefinition } from "convex/server";

/** Component paths registered, parents first; the offline backend's discovery of convex.config.ts must agree. */
export const COMPONENT_PATHS = ["rateLimiter", "rateLimiter/batchWorker", "presence", "presence/batchWorker"] as const;

export function registerComponents<Schema extends SchemaDefinition<GenericSchema, boolean>>(t: TestConvex<Schema>) {
  // Also registers its batch worker at "rateLimiter/batchWorker".
  rateLimiter.register(t as unknown as TestConvex<SchemaDefinition<GenericSchema, boolean>>, "rateLimiter");
  // Also registers its disconnect worker at "presence/batchWorker".
  presence.register(t as unknown as TestConvex<SchemaDefinition<GenericSchema, boolean>>, "presence");
  return t;
}
