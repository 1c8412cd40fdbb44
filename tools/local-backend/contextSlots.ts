/**
 * Many async-local values carried by one AsyncLocalStorage.
 *
 * On Node 20 every enabled AsyncLocalStorage instance copies its value onto
 * every promise the process creates (a promise hook, once per instance per
 * promise). convex-test keeps six of them and the engine two more, and a
 * function call makes hundreds of promises: at 100 agents posting, the
 * propagation alone was ~7% of the backend's CPU. A `ContextSlot` has the
 * AsyncLocalStorage interface convex-test and the engine use (`run`,
 * `getStore`, `exit`, `enterWith`), but all slots live in one frame held by
 * a single real AsyncLocalStorage, so a promise costs one propagation
 * whatever the number of slots. `run` copies the small frame; promises,
 * which far outnumber runs, copy nothing.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Slot → its value; never changed once made (a `run` makes a new frame). */
type Frame = ReadonlyMap<ContextSlot<unknown>, unknown>;

// One carrier per process, shared by every copy of this module (tsx and a
// generated module may load it twice): the slots must all ride on it.
const CARRIER_KEY = Symbol.for("maestro.localBackend.contextCarrier");
const carrier: AsyncLocalStorage<Frame> = ((globalThis as Record<symbol, unknown>)[CARRIER_KEY] as
  | AsyncLocalStorage<Frame>
  | undefined) ?? ((globalThis as Record<symbol, unknown>)[CARRIER_KEY] = new AsyncLocalStorage<Frame>()) as AsyncLocalStorage<Frame>;

const EMPTY: Frame = new Map();

export class ContextSlot<T> {
  /** The value of this slot in the current async context. */
  getStore(): T | undefined {
    return carrier.getStore()?.get(this as ContextSlot<unknown>) as T | undefined;
  }

  /** Runs `fn` with this slot set to `store`; the other slots keep their values. */
  run<R, A extends unknown[]>(store: T, fn: (...args: A) => R, ...args: A): R {
    const frame = new Map(carrier.getStore() ?? EMPTY);
    frame.set(this as ContextSlot<unknown>, store);
    return carrier.run(frame, fn, ...args);
  }

  /** Runs `fn` with this slot unset. */
  exit<R, A extends unknown[]>(fn: (...args: A) => R, ...args: A): R {
    const outer = carrier.getStore();
    if (outer === undefined || !outer.has(this as ContextSlot<unknown>)) return fn(...args);
    const frame = new Map(outer);
    frame.delete(this as ContextSlot<unknown>);
    return carrier.run(frame, fn, ...args);
  }

  /** Sets this slot for the rest of the current synchronous execution and what it starts. */
  enterWith(store: T): void {
    const frame = new Map(carrier.getStore() ?? EMPTY);
    frame.set(this as ContextSlot<unknown>, store);
    carrier.enterWith(frame);
  }

  /** Nothing to release: a slot holds no hook of its own. */
  disable(): void {}

  static snapshot = AsyncLocalStorage.snapshot;
  static bind = AsyncLocalStorage.bind;
}
