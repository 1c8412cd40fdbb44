/**
 * Fair turns of the event loop for incoming work.
 *
 * A function call on this backend runs on promises alone (its syscalls,
 * commits and the transaction lock hand-offs resolve as microtasks), so a
 * request, once read, runs to its end in the callback that read it. With 100
 * clients posting, one turn of the loop read ~100 requests and ran them all
 * back to back (~200 ms) before it looked at the sockets again; a client
 * opening a connection then waited for seconds to be accepted (bench:chat's
 * p99 of 2 s was new connections, not slow posts). So new work takes a
 * turn: while the loop's current turn has spent less than TURN_BUDGET_MS it
 * starts at once; after that, and while anything waits, it waits in arrival
 * order, and one waiter starts per turn, so the loop polls its sockets
 * (accepting, reading, seeing fsyncs complete) between any two of them.
 * An action's queries and mutations pause once the turn's budget is spent
 * (convexTestPatches.ts): an action that ran many in a row ran them all in one turn,
 * and a delegated task reached the board tens of milliseconds late while
 * the sync flush and the fsync's callback waited behind it (bench:brain).
 * They pause rather than queue behind waiting requests: the action is work
 * already under way, and queueing each of its calls put a run's context
 * assembly behind every other run's (brain overhead per model call p50 4 →
 * 13 ms in bench:brain, for no gain in the mention's latency).
 */

/** Work a turn may start before later arrivals wait for the next one. */
export const TURN_BUDGET_MS = 5;

export interface TurnGate {
  /** Resolves when the caller may start its work: at once while the turn's budget lasts, else in a later turn, in arrival order. */
  take(): Promise<void>;
  /**
   * Resolves at once while the turn's budget lasts, else once the loop has
   * gone round (polled its sockets and seen finished fsyncs): a pause, not a
   * place in the queue, for work already under way.
   */
  pause(): Promise<void>;
}

export function createTurnGate(budgetMs = TURN_BUDGET_MS, now: () => number = () => performance.now()): TurnGate {
  /** When the current turn started its first piece of work; null until then. */
  let turnStarted: number | null = null;
  /** Work waiting for a later turn, oldest first. */
  const waiting: Array<() => void> = [];
  let pumping = false;

  const budgetLeft = () => {
    const at = now();
    if (turnStarted === null) {
      turnStarted = at;
      // The turn ends at this loop iteration's check phase; the next one has a fresh budget.
      setImmediate(() => {
        turnStarted = null;
      });
    }
    return at - turnStarted < budgetMs;
  };

  // One waiter per loop iteration: its work runs (until it waits for I/O) right after this callback, then the loop polls again.
  const pump = () => {
    waiting.shift()?.();
    if (waiting.length > 0) setImmediate(pump);
    else pumping = false;
  };

  return {
    pause() {
      if (budgetLeft()) return Promise.resolve();
      return new Promise<void>((resolve) => setImmediate(resolve));
    },
    take() {
      // Nobody overtakes work that is already waiting.
      if (waiting.length === 0 && budgetLeft()) return Promise.resolve();
      const turn = new Promise<void>((resolve) => waiting.push(resolve));
      if (!pumping) {
        pumping = true;
        setImmediate(pump);
      }
      return turn;
    },
  };
}
