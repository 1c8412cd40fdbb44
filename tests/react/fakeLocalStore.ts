import type { OptimisticLocalStore } from "convex/browser";
import { getFunctionName, type FunctionReference } from "convex/server";

type Entry = { name: string; args: Record<string, unknown>; value: unknown };

/**
 * An in-memory stand-in for Convex's optimistic local store: query results
 * keyed by function name and arguments, as the client keeps them.
 */
export function fakeLocalStore() {
  const entries: Entry[] = [];
  const find = (name: string, args: Record<string, unknown>) =>
    entries.find((e) => e.name === name && JSON.stringify(e.args) === JSON.stringify(args));

  const store: OptimisticLocalStore = {
    getQuery(query: FunctionReference<"query">, ...rest: unknown[]) {
      const args = (rest[0] ?? {}) as Record<string, unknown>;
      return find(getFunctionName(query), args)?.value as never;
    },
    getAllQueries(query: FunctionReference<"query">) {
      const name = getFunctionName(query);
      return entries.filter((e) => e.name === name).map((e) => ({ args: e.args, value: e.value })) as never;
    },
    setQuery(query: FunctionReference<"query">, args: Record<string, unknown>, value: unknown) {
      const name = getFunctionName(query);
      const existing = find(name, args);
      if (existing) existing.value = value;
      else entries.push({ name, args, value });
    },
  } as OptimisticLocalStore;
  return store;
}
