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
 *
 * On the offline backend the rows do not cross JSON at all on the way in:
 * the engine's global (the deployment's `Convex` object) carries
 * `maestroQueryAll`, which runs the same read through the execution clock
 * as the syscall does and hands back each row's cached JSON text
 * (convexTestInternals.ts); a row is parsed from it, a fresh object with
 * the keys in the order the syscall's JSON gives them, and decoded by
 * `jsonToConvex` only when it holds a value JSON cannot carry (a bigint,
 * bytes, a special float). The syscall's own JSON of the arguments, of the
 * joined result and the three syscall wrappers' promises were ~5% of a chat
 * post's CPU. Its errors reach the function as the syscall's do (a plain
 * Error of the same message).
 */
import { jsonToConvex, type JSONValue, type Value } from "convex/values";

export const QUERY_ALL_OP = "maestro/queryAll";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex's internal query class is untyped */
interface QueryImplInternals {
  state: { type: string; query?: unknown };
  startQuery(): number;
  collect(): Promise<Value[]>;
}

/** A row as the engine's direct read gives it: its JSON text, and whether that text needs `jsonToConvex`. */
export interface RowEntry {
  json: string;
  plain: boolean;
}

/** The deployment global's direct read of a whole query (installed by the engine). */
export type DirectQueryAll = (query: unknown) => Array<RowEntry | null>;

let installed = false;

/**
 * Patches the `QueryImpl` class that the app's functions (and convex-test)
 * load from the project's `convex` package. `currentGlobal` gives the
 * running function's deployment global (convex-test's convexGlobalStorage).
 */
export async function installQueryBatching(currentGlobal: () => { maestroQueryAll?: DirectQueryAll } | undefined): Promise<void> {
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
    const direct = currentGlobal()?.maestroQueryAll;
    if (direct !== undefined) {
      let entries: Array<RowEntry | null>;
      try {
        entries = direct(query);
      } catch (error) {
        // As performAsyncSyscall rethrows a syscall's error (no ConvexError comes from a read).
        throw new Error((error as Error).message);
      }
      const values: Value[] = new Array(entries.length);
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i];
        values[i] = entry === null ? null : entry.plain ? (JSON.parse(entry.json) as Value) : jsonToConvex(JSON.parse(entry.json) as JSONValue);
      }
      return values;
    }
    const { values } = (await performAsyncSyscall(QUERY_ALL_OP, { query })) as { values: JSONValue[] };
    return values.map((value) => jsonToConvex(value));
  };
}
