/**
 * A subscription's new result goes out only once the commits it shows are on
 * disk, and waiting for the disk holds back only the sending: the next
 * commit's subscriptions already re-run meanwhile, and the updates reach the
 * client in commit order. A flush with results to send syncs the log
 * itself, so they go out without waiting for the event loop to see a
 * background sync end.
 */
import { ConvexClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { adminClient, startTestBackend, waitFor } from "./helpers";

const api = anyApi;
let backend: Awaited<ReturnType<typeof startTestBackend>>;
let client: ConvexClient;

beforeAll(async () => {
  backend = await startTestBackend();
  client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
});

afterAll(async () => {
  await client.close();
  await backend.stop();
});

test("updates wait for the disk, in order, while later commits' queries already re-run", async () => {
  const seen: string[][] = [];
  client.onUpdate(api.notes.list, { channel: "durable" }, (notes: Array<{ body: string }>) => seen.push(notes.map((n) => n.body)));
  await waitFor(() => seen.length === 1, 10_000, "initial result");

  // The disk "stalls": the sync server's wait for durability is held until released.
  const engine = backend.engine;
  const original = engine.whenDurable.bind(engine);
  let release!: () => void;
  const stalled = new Promise<void>((resolve) => (release = resolve));
  engine.whenDurable = (seq?: number) => stalled.then(() => original(seq));
  const writer = adminClient(backend.url, backend.adminKey);
  try {
    const runsBefore = backend.sync.queryRuns;
    await writer.mutation(api.notes.add, { channel: "durable", body: "first" });
    await waitFor(() => backend.sync.queryRuns === runsBefore + 1, 10_000, "re-run after the first commit");
    await writer.mutation(api.notes.add, { channel: "durable", body: "second" });
    // The second commit's flush ran its query although the first update still waits for the disk.
    await waitFor(() => backend.sync.queryRuns === runsBefore + 2, 10_000, "re-run after the second commit");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toHaveLength(1);
  } finally {
    release();
    engine.whenDurable = original;
  }
  await waitFor(() => seen.length >= 2 && seen[seen.length - 1].length === 2, 10_000, "updates after the disk caught up");
  // In commit order: never the second result before the first.
  expect(seen.slice(1).map((bodies) => bodies.length)).toEqual(seen.length === 3 ? [1, 2] : [2]);
});

test("an update goes out as soon as its flush ran, without waiting for the event loop to see a background sync end", async () => {
  const seen: string[][] = [];
  client.onUpdate(api.notes.list, { channel: "prompt" }, (notes: Array<{ body: string }>) => seen.push(notes.map((n) => n.body)));
  await waitFor(() => seen.length === 1, 10_000, "initial result");
  // Background syncs never start, so none ever ends: as when a busy action keeps the event loop from its next turn.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the store's private background sync
  const store = (backend.engine as any).store as { startSync: () => void; syncCount: number };
  const startSync = store.startSync;
  store.startSync = () => {};
  const writer = adminClient(backend.url, backend.adminKey);
  try {
    const syncsBefore = store.syncCount;
    const added = writer.mutation(api.notes.add, { channel: "prompt", body: "at once" });
    await waitFor(() => seen.length === 2, 10_000, "the update, synced by its flush");
    expect(seen[1]).toEqual(["at once"]);
    expect(store.syncCount).toBe(syncsBefore + 1);
    // The flush's sync made the commit durable for its writer too.
    await added;
  } finally {
    store.startSync = startSync;
  }
});
