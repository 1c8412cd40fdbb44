/**
 * A scheduled action starts only once the commit that scheduled it is on
 * disk: its effects reach outside (a webhook sent with node:http, outside
 * the fetch gate), and none may announce a write that a crash then loses.
 * In process, with the disk stalled; then the app's own webhook delivery
 * across a kill -9, with a slow disk.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterEach, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { adminClient, OWNER_PASSWORD, PROJECT_ROOT, seedDemoSquad, signInWithPassword, waitFor } from "./helpers";
import { spawnedBackends, startedBackends } from "./lifecycle";
import { killHard } from "./process";

const backend = startedBackends();
const backends = spawnedBackends();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A receiver on 127.0.0.1 that hands each request's body to `onRequest` as soon as it has it, then answers 200. */
async function receiver(onRequest: (body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      onRequest(body);
      res.end("ok");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

test("with the disk stalled, a mutation commits but the action it scheduled does not start (nothing goes out) until the disk catches up", async () => {
  const b = await backend();
  const received: string[] = [];
  const url = await receiver((body) => received.push(body));
  // The disk "stalls": every wait for durability is held until released.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the engine's private store
  const store = (b.engine as any).store as { whenDurable: (seq?: number) => Promise<void> };
  const original = store.whenDurable;
  let release!: () => void;
  const stalled = new Promise<void>((resolve) => (release = resolve));
  store.whenDurable = (seq?: number) => stalled.then(() => original.call(store, seq));
  const ticks = () => b.engine.documents("", "ticks").filter((tick) => tick.source === "announced").length;
  try {
    const call = adminClient(b.url, b.adminKey).mutation(anyApi.ticks.recordThenSchedule, { source: "announced", url });
    await waitFor(() => ticks() === 1, 10_000, "the mutation's commit");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Committed, not yet on disk: the action has not told anyone.
    expect(received).toEqual([]);
    const job = b.engine.documents("", "_scheduled_functions").find((doc) => doc.name === "tellOutside:post");
    expect((job?.state as { kind: string } | undefined)?.kind).toBe("pending");
    release();
    await call;
    await waitFor(() => received.length === 1, 10_000, "the action's call out");
    expect(received).toEqual(["announced"]);
  } finally {
    release();
    store.whenDurable = original;
  }
});

test("kill -9 the moment a webhook arrives, on a slow disk: the event it announced is there after the restart", { timeout: 120_000 }, async () => {
  const dataDir = backends.dataDir();
  const convexDir = path.join(PROJECT_ROOT, "convex");
  // Each log sync takes 300 ms longer than the disk's: commits made meanwhile wait in memory, as behind a slow fsync.
  const env = { MAESTRO_WEBHOOK_ALLOW_PRIVATE: "1", MAESTRO_WAL_SYNC_DELAY_MS: "300" };
  const first = await backends.spawn({ dataDir, convexDir, env });
  const { member: ada, departmentId, email } = await seedDemoSquad(first);
  const announced: Array<{ id: string; type: string }> = [];
  let armed = false;
  const url = await receiver((body) => {
    const event = JSON.parse(body) as { id: string; type: string };
    announced.push(event);
    // The crash comes the moment the outside world has heard of the event.
    if (armed && event.type === "webhooks.test") {
      armed = false;
      process.kill(first.child.pid!, "SIGKILL");
    }
  });
  await ada.mutation(api.webhooks.set, { departmentId, url });
  armed = true;
  // A write with no event starts a sync; the event's commit comes while that sync runs, so its log line waits in memory.
  // (skipQueue: the HTTP client would otherwise send the second only once the first is answered, after its sync.)
  const write = ada.mutation(api.tasks.create, { departmentId, title: "Starts a sync" }, { skipQueue: true }).catch(() => null);
  await new Promise((resolve) => setTimeout(resolve, 30));
  const test = ada.mutation(api.webhooks.sendTest, { departmentId }, { skipQueue: true }).catch(() => null);
  await waitFor(() => announced.some((event) => event.type === "webhooks.test"), 30_000, "the test event's delivery");
  await killHard(first);
  await Promise.all([write, test]);

  const second = await backends.spawn({ dataDir, convexDir, env: { MAESTRO_WEBHOOK_ALLOW_PRIVATE: "1" } });
  const admin = new ConvexHttpClient(second.url);
  admin.setAuth(await signInWithPassword(second.siteUrl, email, OWNER_PASSWORD));
  const heard = announced.find((event) => event.type === "webhooks.test")!;
  const log = await admin.query(api.events.list, { departmentId, type: "webhooks.test", paginationOpts: { numItems: 10, cursor: null } });
  expect(log.page.map((event) => event._id)).toContain(heard.id);
});
