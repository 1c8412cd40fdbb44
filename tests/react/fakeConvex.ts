/**
 * A fake `convex/react` for component tests that drive a container: query
 * results and mutation handlers by function name ("agents:create"). Use it
 * with `vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact))`
 * and `resetConvex()` before each test.
 */
import { getFunctionName } from "convex/server";

export const convex = {
  queries: new Map<string, unknown>(),
  mutations: new Map<string, (args: unknown) => Promise<unknown>>(),
};

export const fakeConvexReact = {
  useQuery: (query: never) => convex.queries.get(getFunctionName(query)),
  useMutation: (mutation: never) => (args: unknown) => {
    const run = convex.mutations.get(getFunctionName(mutation));
    if (!run) throw new Error(`No fake for ${getFunctionName(mutation)}`);
    return run(args);
  },
  /** Actions are faked as mutations are, by function name in `convex.mutations`. */
  useAction: (action: never) => (args: unknown) => {
    const run = convex.mutations.get(getFunctionName(action));
    if (!run) throw new Error(`No fake for ${getFunctionName(action)}`);
    return run(args);
  },
};

export function resetConvex(): void {
  convex.queries.clear();
  convex.mutations.clear();
}
