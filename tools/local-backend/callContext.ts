/**
 * What the engine tracks about the function call running in this async
 * context: where a query records its reads, where log lines go, which client
 * request a mutation answers, and whether a query is running.
 */
import { ContextSlot } from "./contextSlots.js";
import type { ReadSet } from "./readSets.js";
import type { MutationRequestKey } from "./storage.js";

/**
 * One store, not one per field: Node copies every enabled store onto every
 * promise, and functions make many promises.
 */
export interface CallContext {
  /** Where a query records what it read. */
  readSet?: ReadSet;
  /** Log lines of the running function; `open` turns false when it returns, so work it scheduled logs elsewhere. */
  log?: { lines: string[]; open: boolean };
  /** The client request a mutation answers: its first commit carries the recorded outcome. */
  request?: { key: MutationRequestKey; done: boolean };
  /** True while a query runs: reading the clock there is refused (see functionGlobals.ts). */
  inQuery?: boolean;
}

export const callStorage = new ContextSlot<CallContext>();

/** Runs `fn` with `fields` set on the call context and the enclosing call's other fields kept. */
export function withCallContext<T>(fields: CallContext, fn: () => T): T {
  const outer = callStorage.getStore();
  return callStorage.run(outer === undefined ? fields : { ...outer, ...fields }, fn);
}
