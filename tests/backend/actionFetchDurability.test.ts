/**
 * An action's call out waits for the disk: with the disk stalled, the
 * action's mutation is committed but its `fetch` does not leave until every
 * commit is durable. Without this, a run asked its model about a tool's post
 * that a kill -9 then lost (runRecovery.test.ts, under load).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { anyApi } from "convex/server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { adminClient, startTestBackend, waitFor } from "./helpers";

const api = anyApi;
let backend: Awaited<ReturnType<typeof startTestBackend>>;
const received: string[] = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    received.push(body);
    res.end("ok");
  });
});

beforeAll(async () => {
  backend = await startTestBackend();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  await backend.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test("an action's fetch leaves only once its mutation is on disk", async () => {
  // The disk "stalls": every wait for durability is held until released.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the engine's private store
  const store = (backend.engine as any).store as { whenDurable: (seq?: number) => Promise<void> };
  const original = store.whenDurable;
  let release!: () => void;
  const stalled = new Promise<void>((resolve) => (release = resolve));
  store.whenDurable = (seq?: number) => stalled.then(() => original.call(store, seq));
  const ticks = () => backend.engine.documents("", "ticks").filter((tick) => tick.source === "told").length;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  try {
    const call = adminClient(backend.url, backend.adminKey).action(api.ticks.recordThenCall, { source: "told", url });
    await waitFor(() => ticks() === 1, 10_000, "the mutation's commit");
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Committed, not yet on disk: nothing has gone out.
    expect(received).toEqual([]);
    release();
    await call;
    expect(received).toEqual(["told"]);
  } finally {
    release();
    store.whenDurable = original;
  }
});
