import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestBackend } from "./helpers";
import { createTurnGate } from "../../tools/local-backend/turns";

/** A clock the test moves by hand, so "the budget is spent" does not depend on the machine's speed. */
function manualClock() {
  let at = 0;
  return { now: () => at, spend: (ms: number) => (at += ms) };
}

/** Counts iterations of the event loop: a callback that re-arms itself in every check phase. */
function loopCounter() {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { get turns() { return turns; }, stop: () => (running = false) };
}

test("work starts at once while the turn's budget lasts", async () => {
  const clock = manualClock();
  const gate = createTurnGate(5, clock.now);
  const order: string[] = [];
  await Promise.all(
    ["a", "b", "c"].map(async (name) => {
      await gate.take();
      order.push(name);
      clock.spend(1);
    }),
  );
  expect(order).toEqual(["a", "b", "c"]);
});

test("once the budget is spent, later work waits for later turns, one per turn, in arrival order", async () => {
  const clock = manualClock();
  const gate = createTurnGate(5, clock.now);
  const loop = loopCounter();
  const started: Array<{ name: string; turn: number }> = [];
  await gate.take();
  clock.spend(6); // this turn's work overran the budget
  const names = ["first", "second", "third", "fourth"];
  await Promise.all(
    names.map(async (name) => {
      await gate.take();
      started.push({ name, turn: loop.turns });
      clock.spend(6);
    }),
  );
  loop.stop();
  expect(started.map((s) => s.name)).toEqual(names);
  // The loop went round (and polled its sockets) between any two of them.
  for (let i = 1; i < started.length; i++) expect(started[i].turn).toBeGreaterThan(started[i - 1].turn);
});

test("nothing overtakes waiting work, even in a fresh turn with budget to spare", async () => {
  const clock = manualClock();
  const gate = createTurnGate(5, clock.now);
  const order: string[] = [];
  await gate.take();
  clock.spend(6);
  const first = gate.take().then(() => order.push("first"));
  const second = gate.take().then(() => order.push("second"));
  // The first waiter starts in the next turn, which has a fresh budget; "second" still waits.
  await first;
  const newcomer = gate.take().then(() => order.push("newcomer"));
  await Promise.all([second, newcomer]);
  expect(order).toEqual(["first", "second", "newcomer"]);
});

test("after the queue drains, work starts at once again", async () => {
  const clock = manualClock();
  const gate = createTurnGate(5, clock.now);
  await gate.take();
  clock.spend(6);
  await gate.take();
  // A later turn with nobody waiting: taken in the same microtask.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  let started = false;
  const taken = gate.take().then(() => (started = true));
  await Promise.resolve();
  expect(started).toBe(true);
  await taken;
});

test("a pause resolves at once while the budget lasts, else after one turn, without queueing behind waiting work", async () => {
  const clock = manualClock();
  const gate = createTurnGate(5, clock.now);
  const loop = loopCounter();
  let paused = false;
  void gate.pause().then(() => (paused = true));
  await Promise.resolve();
  expect(paused).toBe(true);
  clock.spend(6);
  // Work queued for later turns, ahead of the pause.
  const queued: number[] = [];
  const waiters = [1, 2, 3].map((n) => gate.take().then(() => { queued.push(n); clock.spend(6); }));
  const turnBefore = loop.turns;
  await gate.pause();
  // The loop went round once; the queue is served one per turn, so most of it still waits.
  expect(loop.turns).toBeGreaterThan(turnBefore);
  expect(queued.length).toBeLessThan(3);
  await Promise.all(waiters);
  loop.stop();
  expect(queued).toEqual([1, 2, 3]);
});

describe("an action's queries and mutations", () => {
  let backend: Awaited<ReturnType<typeof startTestBackend>>;
  beforeAll(async () => {
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend.stop();
  });

  /** Runs the burst action; returns how many turns of the loop passed while its mutations committed. */
  const burst = async (count: number) => {
    const loop = loopCounter();
    const turnAtCommit: number[] = [];
    const notify = backend.engine.onCommit;
    backend.engine.onCommit = (changes, ts) => {
      turnAtCommit.push(loop.turns);
      notify(changes, ts);
    };
    try {
      const outcome = await backend.engine.runAction("ticks:burst", { source: `burst-${count}`, count }, { kind: "admin" });
      expect(outcome.ok).toBe(true);
    } finally {
      backend.engine.onCommit = notify;
      loop.stop();
    }
    expect(turnAtCommit).toHaveLength(count);
    return turnAtCommit[count - 1] - turnAtCommit[0];
  };

  test("pause at the server's turns, so the loop goes round while a busy action runs", async () => {
    // Without turns, 300 mutations from one action ran back to back in microtasks: not one loop turn between them.
    expect(await burst(300)).toBeGreaterThan(0);
  });

  test("each pause for a turn once the turn's budget is spent", async () => {
    const serverTurns = backend.engine.turns;
    backend.engine.turns = createTurnGate(0); // every budget is spent at once
    try {
      expect(await burst(50)).toBeGreaterThanOrEqual(49);
    } finally {
      backend.engine.turns = serverTurns;
    }
  });
});
