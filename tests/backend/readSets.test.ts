/**
 * Subscriptions re-run only when a commit touched what they read (their
 * read set: whole tables, index ranges, ids): a write to one table leaves a
 * query of another alone, and a write outside a query's index range too.
 */
import { ConvexClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { adminClient, startTestBackend, waitFor } from "./helpers";

const api = anyApi;
let backend: Awaited<ReturnType<typeof startTestBackend>>;
const clients: ConvexClient[] = [];

function watch(ref: unknown, args: Record<string, unknown>): unknown[][] {
  const c = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  clients.push(c);
  const seen: unknown[][] = [];
  c.onUpdate(ref as never, args as never, (value: unknown[]) => seen.push(value));
  return seen;
}

beforeAll(async () => {
  backend = await startTestBackend();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await backend.stop();
});

test("a commit re-runs the subscriptions that read what it wrote, and no other", async () => {
  // notes.list reads an index range of `notes` (one channel); values.all reads all of `values`.
  const notesView = watch(api.notes.list, { channel: "mine" });
  const valuesView = watch(api.values.all, {});
  await waitFor(() => notesView.length === 1 && valuesView.length === 1, 10_000, "initial results");
  const writer = adminClient(backend.url, backend.adminKey);

  let before = backend.sync.queryRuns;
  await writer.mutation(api.values.echo, { big: 1n, bytes: new Uint8Array([1]).buffer, nested: null });
  await waitFor(() => valuesView.length === 2, 10_000, "values update");
  expect(backend.sync.queryRuns - before).toBe(1);

  before = backend.sync.queryRuns;
  await writer.mutation(api.notes.add, { channel: "mine", body: "in range" });
  await waitFor(() => notesView.length === 2, 10_000, "notes update");
  expect(backend.sync.queryRuns - before).toBe(1);

  // Outside notes.list's range and in no table values.all reads: nothing re-runs.
  before = backend.sync.queryRuns;
  await writer.mutation(api.notes.add, { channel: "other", body: "out of range" });
  // A later in-range write proves the flush after the out-of-range one has run.
  await writer.mutation(api.notes.add, { channel: "mine", body: "second" });
  await waitFor(() => notesView.length === 3, 10_000, "second notes update");
  expect(backend.sync.queryRuns - before).toBe(1);
  expect(valuesView).toHaveLength(2);
});
