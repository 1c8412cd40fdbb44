import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi, type FunctionReference } from "convex/server";
import { afterEach, expect, test } from "vitest";
import { PROJECT_ROOT, startTestBackend, tempDataDir, waitFor } from "./helpers";

const COMPONENTS_FIXTURE = path.join(PROJECT_ROOT, "tests/fixtures/components/convex");

type TestBackend = Awaited<ReturnType<typeof startTestBackend>>;
const running: TestBackend[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((backend) => backend.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<TestBackend> {
  const backend = await startTestBackend({ convexDir: COMPONENTS_FIXTURE, dataDir });
  running.push(backend);
  return backend;
}

async function stop(backend: TestBackend) {
  running.splice(running.indexOf(backend), 1);
  await backend.stop();
}

function newDataDir(): string {
  const dir = tempDataDir();
  dirs.push(dir);
  return dir;
}

/** Every committed document of the app and of each installed component. */
function allDocuments(backend: TestBackend) {
  return ["", ...backend.engine.componentPaths].flatMap((component) =>
    backend.engine.documents(component).map((doc) => ({ component, id: doc._id as string })),
  );
}

test("convex.config.ts installs the rate limiter, its batch worker and a project component", async () => {
  const backend = await start(newDataDir());
  expect(backend.engine.componentPaths).toEqual(["rateLimiter", "rateLimiter/batchWorker", "counter"]);
});

test("the rate limiter limits over HTTP, and its state survives a restart", async () => {
  const dataDir = newDataDir();
  const first = await start(dataDir);
  const http = new ConvexHttpClient(first.url);
  const results: Array<{ ok: boolean; retryAfter: number | null }> = [];
  for (let i = 0; i < 4; i++) results.push(await http.mutation(anyApi.limits.take, { key: "alice" }));
  expect(results.map((r) => r.ok)).toEqual([true, true, true, false]);
  expect(results[3].retryAfter).toBeGreaterThan(0);
  // The app's write and the component's land in one commit, as one transaction.
  const commits: Array<Set<string>> = [];
  const notify = first.engine.onCommit;
  first.engine.onCommit = (changes, ts) => {
    commits.push(new Set(changes.map((change) => `${change.component}:${change.table}`)));
    notify(changes, ts);
  };
  // Another key has its own budget.
  expect((await http.mutation(anyApi.limits.take, { key: "bob" })).ok).toBe(true);
  expect(first.engine.documents("rateLimiter", "rateLimits")).toHaveLength(2);
  // The earlier takes' scheduled functions may commit in between: the one holding bob's attempt is the one to check.
  expect(commits.find((tables) => tables.has(":attempts"))).toEqual(new Set([":attempts", ":_scheduled_functions", "rateLimiter:rateLimits"]));

  await stop(first);
  const second = await start(dataDir);
  const again = new ConvexHttpClient(second.url);
  expect(await again.query(anyApi.limits.remaining, { name: "perKey", key: "alice" })).toBe(0);
  expect((await again.mutation(anyApi.limits.take, { key: "alice" })).ok).toBe(false);
  expect((await again.mutation(anyApi.limits.take, { key: "bob" })).ok).toBe(true);
  // Restored into the component's own database, not the app's.
  expect(second.engine.documents("", "rateLimits")).toEqual([]);
  expect(second.engine.documents("rateLimiter", "rateLimits")).toHaveLength(2);
});

test("ids are unique across the app's and the components' tables, before and after a restart", async () => {
  const dataDir = newDataDir();
  const first = await start(dataDir);
  const http = new ConvexHttpClient(first.url);
  // Each call schedules an app function and writes the limiter's table; queued
  // limits make the batch worker (a component of the component) schedule its own.
  for (let i = 0; i < 3; i++) await http.mutation(anyApi.limits.take, { key: `user${i}` });
  await http.mutation(anyApi.limits.enqueue, { key: "queue", count: 1 });
  await waitFor(() => first.engine.documents("rateLimiter", "rateLimits").length === 4, 10_000, "queued update applied");

  const before = allDocuments(first);
  const scheduledIn = new Set(before.filter((d) => d.id.endsWith("_scheduled_functions")).map((d) => d.component));
  expect(scheduledIn).toEqual(new Set(["", "rateLimiter/batchWorker"]));
  expect(new Set(before.map((d) => d.id)).size).toBe(before.length);

  await stop(first);
  const second = await start(dataDir);
  const restored = allDocuments(second);
  expect(new Map(restored.map((d) => [d.id, d.component]))).toEqual(new Map(before.map((d) => [d.id, d.component])));
  const fresh = (await new ConvexHttpClient(second.url).mutation(anyApi.limits.take, { key: "late" })) as { attemptId: string };
  expect(restored.some((d) => d.id === fresh.attemptId)).toBe(false);
});

test("a subscription on a query that reads the limiter updates when the batch worker applies queued updates", async () => {
  const backend = await start(newDataDir());
  const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  const seen: number[] = [];
  client.onUpdate(anyApi.limits.remaining, { name: "queued", key: "k" }, (value: number) => seen.push(value));
  await waitFor(() => seen.length === 1, 10_000, "first result");
  expect(seen[0]).toBe(100);

  await client.mutation(anyApi.limits.enqueue, { key: "k", count: 7 });
  await waitFor(() => seen.at(-1) === 93, 10_000, "update from the batch worker");
  await client.mutation(anyApi.limits.enqueue, { key: "k", count: 3 });
  await waitFor(() => seen.at(-1) === 90, 10_000, "second update");
  await client.close();
});

/**
 * Schedules a job inside the counter component through `schedule` (due in
 * 1.5 s), stops the backend before it is due and starts another on the same
 * data: the job must resume there, so `watch` (an app query) reaches 1 and the
 * job ends in success.
 */
async function expectResumedAfterRestart(schedule: FunctionReference<"mutation">, watch: FunctionReference<"query">, name: string, what: string) {
  const dataDir = newDataDir();
  const first = await start(dataDir);
  await new ConvexHttpClient(first.url).mutation(schedule, { name, delayMs: 1_500 });
  const jobs = first.engine.documents("counter", "_scheduled_functions");
  expect(jobs.map((job) => (job.state as { kind: string }).kind)).toEqual(["pending"]);
  await stop(first);

  const second = await start(dataDir);
  const client = new ConvexClient(second.url, { unsavedChangesWarning: false });
  const seen: number[] = [];
  client.onUpdate(watch, { name }, (value: number) => seen.push(value));
  await waitFor(() => seen.at(-1) === 1, 15_000, what);
  const [job] = second.engine.documents("counter", "_scheduled_functions");
  expect((job.state as { kind: string }).kind).toBe("success");
  await client.close();
}

test("a function scheduled inside a component runs after a restart", async () => {
  await expectResumedAfterRestart(anyApi.counters.bumpLater, anyApi.counters.get, "later", "the resumed job's bump");
});

test("a component's call back into the app, scheduled through a function handle, runs after a restart", async () => {
  await expectResumedAfterRestart(anyApi.counters.callMeLater, anyApi.counters.callbacks, "cb", "the app's callback");
});

test("after a crash at any point, a scheduled mutation's effect is there at most once", async () => {
  const dataDir = newDataDir();
  const first = await start(dataDir);
  const http = new ConvexHttpClient(first.url);
  // One job runs in its own component, one calls back into the app through a function handle (its job in the component).
  await http.mutation(anyApi.counters.bumpLater, { name: "crash", delayMs: 0 });
  await http.mutation(anyApi.counters.callMeLater, { name: "crash", delayMs: 0 });
  const settled = (backend: TestBackend) =>
    backend.engine.documents("counter", "_scheduled_functions").every((job) => (job.state as { kind: string }).kind === "success");
  await waitFor(() => first.engine.documents("counter", "_scheduled_functions").length === 2 && settled(first), 10_000, "both jobs");
  // What a kill -9 leaves is a prefix of this log (a clean stop would fold it into the snapshot): try every one.
  const crashed = newDataDir();
  cpSync(dataDir, crashed, { recursive: true });
  await stop(first);
  const records = readFileSync(path.join(crashed, "wal.jsonl"), "utf8").split("\n").filter((line) => line !== "");
  for (let kept = 0; kept <= records.length; kept++) {
    const dir = newDataDir();
    cpSync(crashed, dir, { recursive: true });
    writeFileSync(path.join(dir, "wal.jsonl"), records.slice(0, kept).map((line) => `${line}\n`).join(""));
    const backend = await start(dir);
    await waitFor(() => settled(backend), 10_000, `jobs resumed from ${kept} records`);
    const scheduled = backend.engine.documents("counter", "_scheduled_functions").map((job) => job.name);
    const again = new ConvexHttpClient(backend.url);
    // Once if its job was scheduled before the cut (resumed, or run before it), never twice.
    expect(await again.query(anyApi.counters.get, { name: "crash" }), `bumps after ${kept} records`).toBe(scheduled.includes("counts:bump") ? 1 : 0);
    expect(await again.query(anyApi.counters.callbacks, { name: "crash" }), `callbacks after ${kept} records`).toBe(scheduled.includes("counters:callback") ? 1 : 0);
    await stop(backend);
  }
});
