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

/**
 * Each slot's value at the slot's index (undefined: unset); never changed
 * once made (a `run` makes a new frame). An array, not a Map: a run copies
 * the frame, and a function call makes several runs (its context, request
 * metadata, auth, nested lock...), where copying a Map cost more than the
 * slice of a short array.
 */
type Frame = readonly unknown[];

// One carrier per process, shared by every copy of this module (tsx and a
// generated module may load it twice): the slots must all ride on it, and
// take their indexes from one counter.
const CARRIER_KEY = Symbol.for("maestro.localBackend.contextCarrier");
const carrier: AsyncLocalStorage<Frame> = ((globalThis as Record<symbol, unknown>)[CARRIER_KEY] as
  | AsyncLocalStorage<Frame>
  | undefined) ?? ((globalThis as Record<symbol, unknown>)[CARRIER_KEY] = new AsyncLocalStorage<Frame>()) as AsyncLocalStorage<Frame>;
const COUNTER_KEY = Symbol.for("maestro.localBackend.contextSlotCount");
const counter = ((globalThis as Record<symbol, unknown>)[COUNTER_KEY] ??= { slots: 0 }) as { slots: number };

const EMPTY: Frame = [];

export class ContextSlot<T> {
  /** This slot's place in every frame. */
  private readonly index = counter.slots++;

  /** The value of this slot in the current async context. */
  getStore(): T | undefined {
    return carrier.getStore()?.[this.index] as T | undefined;
  }

  /** Runs `fn` with this slot set to `store`; the other slots keep their values. */
  run<R, A extends unknown[]>(store: T, fn: (...args: A) => R, ...args: A): R {
    return carrier.run(this.with(store), fn, ...args);
  }

  /** Runs `fn` with this slot unset. */
  exit<R, A extends unknown[]>(fn: (...args: A) => R, ...args: A): R {
    const outer = carrier.getStore();
    if (outer === undefined || outer[this.index] === undefined) return fn(...args);
    return carrier.run(this.with(undefined), fn, ...args);
  }

  /** The current frame with this slot set to `store`. */
  private with(store: T | undefined): Frame {
    const frame = (carrier.getStore() ?? EMPTY).slice();
    frame[this.index] = store;
    return frame;
  }

  /** Sets this slot for the rest of the current synchronous execution and what it starts. */
  enterWith(store: T): void {
    carrier.enterWith(this.with(store));
  }

  /** Nothing to release: a slot holds no hook of its own. */
  disable(): void {}

  static snapshot = AsyncLocalStorage.snapshot;
  static bind = AsyncLocalStorage.bind;
}
