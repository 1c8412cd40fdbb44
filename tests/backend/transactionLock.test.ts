/**
 * Functions run one transaction at a time (convex-test's lock, handed on in
 * arrival order by the offline backend's patch): many concurrent mutations,
 * with queries between them, all finish, and each saw every commit before it
 * (a serial order), nothing lost and nothing twice.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { startTestBackend } from "./helpers";

let backend: Awaited<ReturnType<typeof startTestBackend>>;

beforeAll(async () => {
  backend = await startTestBackend();
});

afterAll(async () => {
  await backend?.stop();
});

test("300 concurrent mutations between queries: every one runs, each sees all commits before it", async () => {
  const admin = { kind: "admin" } as const;
  const calls: Array<Promise<unknown>> = [];
  const queries: Array<Promise<unknown>> = [];
  for (let i = 0; i < 300; i++) {
    calls.push(backend.engine.runMutation("notes:addCounted", { channel: "lock" }, admin));
    if (i % 30 === 0) queries.push(backend.engine.runQuery("notes:list", { channel: "lock" }, admin));
  }
  const outcomes = (await Promise.all(calls)) as Array<{ ok: boolean; value?: number }>;
  expect(outcomes.every((o) => o.ok)).toBe(true);
  // A serial order: the counts seen are exactly 0..299, each once.
  expect(outcomes.map((o) => o.value).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  for (const query of (await Promise.all(queries)) as Array<{ ok: boolean; value?: unknown[] }>) {
    expect(query.ok).toBe(true);
    // Each query saw a whole prefix of the commits: bodies 0..n-1.
    const bodies = (query.value as Array<{ body: string }>).map((n) => Number(n.body)).sort((a, b) => a - b);
    expect(bodies).toEqual(Array.from({ length: bodies.length }, (_, i) => i));
  }
  const final = await backend.engine.runQuery("notes:list", { channel: "lock" }, admin);
  expect((final.value as unknown[]).length).toBe(300);
});

test("a query waiting for the lock runs before the mutations queued ahead of it, and sees a whole prefix of them", async () => {
  const admin = { kind: "admin" } as const;
  const calls: Array<Promise<unknown>> = [];
  for (let i = 0; i < 50; i++) calls.push(backend.engine.runMutation("notes:addCounted", { channel: "reads-first" }, admin));
  // Asked in the same turn: the first mutation holds the lock, the others and the query wait for it.
  const query = backend.engine.runQuery("notes:list", { channel: "reads-first" }, admin);
  const seen = (await query).value as Array<{ body: string }>;
  // In arrival order it would have seen all 50; it went ahead of most of them.
  expect(seen.length).toBeLessThan(25);
  expect(seen.map((n) => Number(n.body)).sort((a, b) => a - b)).toEqual(Array.from({ length: seen.length }, (_, i) => i));
  const outcomes = (await Promise.all(calls)) as Array<{ ok: boolean }>;
  expect(outcomes.every((o) => o.ok)).toBe(true);
  const final = await backend.engine.runQuery("notes:list", { channel: "reads-first" }, admin);
  expect((final.value as unknown[]).length).toBe(50);
});
