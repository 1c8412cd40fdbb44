/**
 * What one WebSocket may cost everyone else (tools/local-backend/sync.ts
 * SocketLimits): a socket that stops reading is closed and its memory let
 * go once its unsent data passes the bound, and subscriptions beyond the
 * free few are refused once their queries cost a commit too much. How long
 * a second client's write takes while one socket holds its subscriptions is
 * measured in bench/sockets.bench.ts.
 */
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { signTestToken, startTestBackend, waitFor } from "./helpers";

type TestBackend = Awaited<ReturnType<typeof startTestBackend>>;
const api = anyApi;

let backend: TestBackend;
let token: string;
const clients: ConvexClient[] = [];

beforeAll(async () => {
  // A small bound and budget, so the test needs little data: one free subscription, then 0.001 ms of queries.
  backend = await startTestBackend({ socketLimits: { maxUnsentBytes: 256 * 1024, freeSubscriptions: 1, maxQueryMs: 0.001 } });
  token = await signTestToken(backend, { sub: "ada", name: "Ada Lovelace" });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await backend.stop();
});

/** A raw protocol socket subscribed to `channel`'s notes, which then stops reading (its TCP window fills and the server must buffer). */
async function stalledSubscriber(channel: string) {
  const ws = new WebSocket(`${backend.url.replace("http", "ws")}/api/1.48.0/sync`);
  const closed = new Promise<void>((resolve) => ws.on("close", () => resolve()));
  ws.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    ws.on("open", () => resolve());
    ws.on("error", reject);
  });
  ws.send(JSON.stringify({ type: "Connect", sessionId: `stalled-${channel}`, connectionCount: 0, lastCloseReason: null, clientTs: Date.now() }));
  ws.send(JSON.stringify({ type: "ModifyQuerySet", baseVersion: 0, newVersion: 1, modifications: [{ type: "Add", queryId: 0, udfPath: "notes:list", args: [{ channel }] }] }));
  await new Promise((resolve) => ws.once("message", resolve));
  const tcp = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  tcp.pause();
  return { ws, closed, resume: () => tcp.resume() };
}

describe("a socket that stops reading", () => {
  test("is closed once its unsent data passes the bound, and the others keep being served", async () => {
    const healthy = new ConvexClient(backend.url, { unsavedChangesWarning: false });
    clients.push(healthy);
    const seen: unknown[][] = [];
    healthy.onUpdate(api.notes.list, { channel: "slow-other" }, (value: unknown[]) => seen.push(value));
    await waitFor(() => seen.length === 1);

    const before = backend.sync.connectionCount;
    const stalled = await stalledSubscriber("slow");
    const writer = new ConvexHttpClient(backend.url);
    writer.setAuth(token);
    // Each note re-sends the whole list to the stalled socket: megabytes pile up for it while it reads nothing.
    const body = "x".repeat(50_000);
    for (let i = 0; i < 80 && backend.sync.overflowClosed === 0; i++) await writer.mutation(api.notes.add, { channel: "slow", body });
    await waitFor(() => backend.sync.overflowClosed === 1, 20_000, "the stalled socket to be closed");
    // The client reads again only to learn its socket was cut.
    stalled.resume();
    await stalled.closed;
    expect(backend.sync.connectionCount).toBe(before);

    await writer.mutation(api.notes.add, { channel: "slow-other", body: "still served" });
    await waitFor(() => seen.length === 2, 10_000, "the healthy client updated");
  });
});

describe("subscriptions by cost", () => {
  test("beyond the free ones, a subscription whose queries cost more than the budget is refused with a clear error", async () => {
    const greedy = new ConvexClient(backend.url, { unsavedChangesWarning: false });
    clients.push(greedy);
    const values: number[] = [];
    const errors: string[] = [];
    for (let i = 0; i < 4; i++) greedy.onUpdate(api.notes.list, { channel: `cost-${i}` }, () => values.push(i), (error: Error) => errors.push(error.message));
    await waitFor(() => values.length + errors.length >= 4, 10_000, "all answered");
    expect(values).toEqual([0]);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/their queries take more than 0.001 ms to run/);
  });
});
