/**
 * A query's rows in one syscall instead of one per row. Convex's own
 * `QueryImpl.collect()` (behind `collect`, `take`, `first` and `unique`)
 * awaits `1.0/queryStreamNext` once per row, and on the offline backend each
 * of those is a promise, a JSON round trip and a context switch through every
 * AsyncLocalStorage: reading a 400-card column cost more in that plumbing
 * than in the reading. `collect()` on a query not yet started asks for every
 * row at once (`maestro/queryAll`, answered by the patched convex-test in
 * convexTestInternals.ts, with the same read tracking). That one syscall also
 * opens the stream and ends it: a `.first()` was three (`1.0/queryStream`,
 * the rows, `1.0/queryCleanup`), each a JSON round trip through every
 * syscall wrapper, about a tenth of a chat post's CPU over its five queries.
 * A query already being iterated row by row keeps the original path. What a
 * function sees is unchanged: the same rows, in the same order, as the same
 * values, and the same errors (an undeclared index is refused when the
 * query starts, as before).
 */
import { jsonToConvex, type JSONValue, type Value } from "convex/values";

export const QUERY_ALL_OP = "maestro/queryAll";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex's internal query class is untyped */
interface QueryImplInternals {
  state: { type: string; query?: unknown };
  startQuery(): number;
  collect(): Promise<Value[]>;
}

let installed = false;

/** Patches the `QueryImpl` class that the app's functions (and convex-test) load from the project's `convex` package. */
export async function installQueryBatching(): Promise<void> {
  if (installed) return;
  installed = true;
  // The same URL the functions' `import "convex/server"` reaches, so the same module instance.
  const serverUrl = import.meta.resolve("convex/server");
  const queryImpl = (await import(new URL("./impl/query_impl.js", serverUrl).href)) as { QueryImpl?: { prototype: QueryImplInternals } };
  const syscall = (await import(new URL("./impl/syscall.js", serverUrl).href)) as {
    performAsyncSyscall?: (op: string, args: unknown) => Promise<any>;
  };
  const proto = queryImpl.QueryImpl?.prototype;
  const performAsyncSyscall = syscall.performAsyncSyscall;
  if (proto === undefined || typeof proto.collect !== "function" || typeof proto.startQuery !== "function" || performAsyncSyscall === undefined) {
    throw new Error("convex/server's QueryImpl changed shape; update tools/local-backend/queryBatching.ts.");
  }
  const originalCollect = proto.collect;
  proto.collect = async function (this: QueryImplInternals): Promise<Value[]> {
    if (this.state.type !== "preparing") return await originalCollect.call(this);
    const query = this.state.query;
    // Consumed from here on, as after the original's last row (a second collect() is refused the same way).
    this.state = { type: "consumed" };
    const { values } = (await performAsyncSyscall(QUERY_ALL_OP, { query })) as { values: JSONValue[] };
    return values.map((value) => jsonToConvex(value));
  };
}
