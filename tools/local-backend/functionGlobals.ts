/**
 * The process globals as functions see them: `console.*` inside a function
 * becomes its log lines for the client, the app's queries may not read the
 * clock, a Response keeps a text body as bytes, and an action's `fetch`
 * waits for the disk. Installed once per process, before any function runs.
 */
import { BufferedResponse } from "./bufferedBodies.js";
import { callStorage } from "./callContext.js";
import type { ConvexTestInternals } from "./convexTestInternals.js";
import type { TransactionHooks } from "./convexTestPatches.js";
import { ROOT } from "./functions.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- console's methods are looked up by name */

let clockGuarded = false;

/**
 * Maestro's rule for `convex/`: no `Date.now()` (or `new Date()`) in queries,
 * whose results are cached and re-run only when their data changes. The
 * offline backend enforces it, so every test and dev session proves it.
 * Installed components are other people's code, written for Convex's own
 * rule (the clock is frozen during a query), so the guard leaves them be.
 */
export function installClockGuard(internals: ConvexTestInternals) {
  if (clockGuarded) return;
  clockGuarded = true;
  const RealDate = globalThis.Date;
  const guarded = () =>
    callStorage.getStore()?.inQuery === true && (internals.executionContextStorage.getStore()?.componentPath ?? ROOT) === ROOT;
  const refuse = () => {
    throw new Error(
      "Date.now() / new Date() is not allowed in queries: a query result is cached until its data changes. Pass the time as an argument or compute it in a mutation.",
    );
  };
  globalThis.Date = new Proxy(RealDate, {
    get(target, property, receiver) {
      if (property === "now" && guarded()) return refuse;
      return Reflect.get(target, property, receiver) as unknown;
    },
    construct(target, args, newTarget) {
      if (args.length === 0 && guarded()) refuse();
      return Reflect.construct(target, args, newTarget) as object;
    },
  });
}

let consoleInstalled = false;

/**
 * Routes `console.*` inside functions into the log lines sent to clients
 * (`[LOG] …`), and still prints them on the backend's own output.
 */
export function installConsoleCapture() {
  if (consoleInstalled) return;
  consoleInstalled = true;
  const real = globalThis.console;
  const levels: Record<string, string> = { log: "LOG", info: "INFO", warn: "WARN", error: "ERROR", debug: "DEBUG" };
  const proxy = Object.create(real) as Console;
  for (const [method, level] of Object.entries(levels)) {
    (proxy as any)[method] = (...args: unknown[]) => {
      const sink = callStorage.getStore()?.log;
      if (sink === undefined) return (real as any)[method](...args);
      const text = args.map((a) => (typeof a === "string" ? a : safeStringify(a))).join(" ");
      if (sink.open) sink.lines.push(`[${level}] ${text}`);
      (real as any)[method](`[convex] [${level}] ${text}`);
    };
  }
  globalThis.console = proxy;
}

function safeStringify(value: unknown): string {
  try {
    return typeof value === "bigint" ? `${value}n` : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

let responseInstalled = false;

/**
 * `new Response(text)` in a function (every HTTP action's answer) keeps its
 * text as bytes until the stream is asked for (bufferedBodies.ts), as a
 * deployment's own Fetch classes do without Node's stream per body. A
 * subclass, so everything else about a Response is Node's.
 */
export function installBufferedResponse() {
  if (responseInstalled) return;
  responseInstalled = true;
  globalThis.Response = BufferedResponse;
}

let fetchInstalled = false;

/**
 * An action's `fetch` goes out only once every commit so far is on disk, its
 * own mutations' included. On Convex a mutation an action runs is durable
 * when it returns; here its log line may still wait behind a running sync,
 * and a run that asked its model about a tool's post lost the post to a
 * kill -9 a moment later. Waiting here, not after each mutation, pays for
 * the disk once per call out (a run's model call), not once per write: a
 * wait per mutation put 10 ms on a small department's p99 mention.
 */
export function installDurableFetch(internals: ConvexTestInternals) {
  if (fetchInstalled) return;
  fetchInstalled = true;
  const real = globalThis.fetch;
  globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const hooks = internals.convexGlobalStorage.getStore()?.transactionManager?.__maestro as TransactionHooks<unknown> | undefined;
    if (hooks !== undefined && internals.executionContextStorage.getStore()?.udfType === "action") await hooks.whenDurable();
    return await real(input, init);
  };
}
