import path from "node:path";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { expect, test } from "vitest";
import { scanLogFile } from "../../tools/local-backend/storage";
import { adminClient, waitFor } from "./helpers";
import { spawnedBackends } from "./lifecycle";
import { killHard, stopGracefully } from "./process";

const backends = spawnedBackends();

test("every acknowledged write survives SIGKILL mid-load, with the same ids", async () => {
  const dataDir = backends.dataDir();
  const first = await backends.spawn({ dataDir });

  const acknowledged = new Map<string, string>();
  let stop = false;
  const writers = Array.from({ length: 8 }, (_, w) =>
    (async () => {
      const http = new ConvexHttpClient(first.url);
      for (let i = 0; !stop && i < 10_000; i++) {
        const body = `writer ${w} note ${i}`;
        try {
          const id = (await http.mutation(anyApi.notes.add, { channel: "load", body })) as string;
          acknowledged.set(id, body);
        } catch {
          return; // the backend died under us: this write was never acknowledged
        }
      }
    })(),
  );
  // Two more writers on the WebSocket protocol: their acknowledgement is the MutationResponse, which with
  // group commit waits for the sync covering the write. A call the kill interrupts never settles; it is left be.
  const socketClients = [0, 1].map(() => new ConvexClient(first.url, { unsavedChangesWarning: false }));
  for (const [w, client] of socketClients.entries()) {
    void (async () => {
      for (let i = 0; !stop && i < 10_000; i++) {
        const body = `socket writer ${w} note ${i}`;
        const id = (await client.mutation(anyApi.notes.add, { channel: "load", body })) as string;
        acknowledged.set(id, body);
      }
    })().catch(() => {});
  }
  await waitFor(() => acknowledged.size >= 200 && [...acknowledged.values()].some((body) => body.startsWith("socket")), 30_000, "200 acknowledged writes");
  await killHard(first);
  stop = true;
  await Promise.all(writers);
  await Promise.allSettled(socketClients.map((client) => client.close()));
  expect(acknowledged.size).toBeGreaterThanOrEqual(200);

  // On disk before any recovery: every line checksums (SIGKILL cannot tear a write), and every acknowledged write is in it.
  const logged = new Set<unknown>();
  const scan = scanLogFile(path.join(dataDir, "wal.jsonl"), (entry) => {
    if (entry.type === "commit") for (const [, doc] of entry.writes) logged.add(doc?.body);
  });
  expect(scan.corrupt).toBeNull();
  expect(scan.tornRecords).toBe(0);
  for (const body of acknowledged.values()) expect(logged.has(body), body).toBe(true);

  const second = await backends.spawn({ dataDir });
  const http = new ConvexHttpClient(second.url);
  const notes = (await http.query(anyApi.notes.list, { channel: "load" })) as Array<{ id: string; body: string }>;
  const byId = new Map(notes.map((n) => [n.id, n.body]));
  for (const [id, body] of acknowledged) expect(byId.get(id)).toBe(body);

  // New writes after the restart never reuse an id.
  const freshId = (await http.mutation(anyApi.notes.add, { channel: "load", body: "after restart" })) as string;
  expect(byId.has(freshId)).toBe(false);
});

test("a subscribed client keeps working across a backend restart", async () => {
  const dataDir = backends.dataDir();
  const first = await backends.spawn({ dataDir });
  const port = Number(new URL(first.url).port);

  const client = new ConvexClient(first.url, { unsavedChangesWarning: false });
  const seen: Array<Array<{ body: string }>> = [];
  client.onUpdate(anyApi.notes.list, { channel: "restart" }, (value: Array<{ body: string }>) => seen.push(value));
  await waitFor(() => seen.length === 1);
  await client.mutation(anyApi.notes.add, { channel: "restart", body: "before" });
  await waitFor(() => seen.at(-1)?.length === 1);

  await stopGracefully(first);
  const second = await backends.spawn({ dataDir, port });
  // Written by someone else while our client reconnects: it must still see it.
  await new ConvexHttpClient(second.url).mutation(anyApi.notes.add, { channel: "restart", body: "after" });
  await waitFor(() => seen.at(-1)?.length === 2, 30_000, "update after reconnect");
  expect(seen.at(-1)!.map((n) => n.body)).toEqual(["before", "after"]);
  const id = await client.mutation(anyApi.notes.add, { channel: "restart", body: "from the reconnected client" });
  expect(typeof id).toBe("string");
  await waitFor(() => seen.at(-1)?.length === 3);
  await client.close();
});

test("every acknowledged write survives SIGKILL while compactions run beside the commits", async () => {
  const dataDir = backends.dataDir();
  // A log of 40 KB starts a compaction: a dozen commits or so, so several run (and one is likely cut short) during the load.
  const env = { MAESTRO_COMPACT_LOG_BYTES: "40000" };
  const first = await backends.spawn({ dataDir, env });
  // Enough documents that a snapshot takes several turns of the event loop (500 documents each).
  const admin = adminClient(first.url, first.adminKey);
  for (let start = 0; start < 3000; start += 1000) await admin.mutation(anyApi.bench.seedBulk, { channel: "seed", count: 1000, startIndex: start });

  const acknowledged = new Map<string, string>();
  let stop = false;
  const writers = Array.from({ length: 6 }, (_, w) =>
    (async () => {
      const http = new ConvexHttpClient(first.url);
      for (let i = 0; !stop && i < 10_000; i++) {
        const body = `writer ${w} note ${i}`;
        try {
          acknowledged.set((await http.mutation(anyApi.notes.add, { channel: "load", body })) as string, body);
        } catch {
          return; // the backend died under us: this write was never acknowledged
        }
      }
    })(),
  );
  await waitFor(() => acknowledged.size >= 600, 60_000, "600 acknowledged writes");
  await killHard(first);
  stop = true;
  await Promise.all(writers);

  const second = await backends.spawn({ dataDir, env });
  const http = new ConvexHttpClient(second.url);
  const notes = (await http.query(anyApi.notes.list, { channel: "load" })) as Array<{ id: string; body: string }>;
  const byId = new Map(notes.map((n) => [n.id, n.body]));
  for (const [id, body] of acknowledged) expect(byId.get(id)).toBe(body);
  expect(((await http.query(anyApi.notes.list, { channel: "seed" })) as unknown[]).length).toBe(3000);
});

test("a compaction walked while documents are deleted and added keeps every document that stayed, after a clean restart", async () => {
  const dataDir = backends.dataDir();
  // A log of 40 KB starts a compaction, so several walk the table while the deletes below run.
  const env = { MAESTRO_COMPACT_LOG_BYTES: "40000" };
  const first = await backends.spawn({ dataDir, env });
  const admin = adminClient(first.url, first.adminKey);
  for (let start = 0; start < 6000; start += 1000) await admin.mutation(anyApi.bench.seedBulk, { channel: "seed", count: 1000, startIndex: start });
  const http = new ConvexHttpClient(first.url);
  const seeded = (await http.query(anyApi.notes.list, { channel: "seed" })) as Array<{ id: string; body: string }>;
  expect(seeded).toHaveLength(6000);
  const compactions = () => first.output.join("").match(/Compaction: \d+ documents folded/g)?.length ?? 0;
  const before = compactions();

  // Every third seeded note is deleted, from the end of the table backwards (the part a running walk has yet to read),
  // while new notes are added: each step of a walk finds the table changed under it.
  const deleted = new Set<string>();
  const added = new Map<string, string>();
  const doomed = seeded.filter((_, i) => i % 3 === 0).reverse();
  for (let i = 0; i < doomed.length; i++) {
    await http.mutation(anyApi.bench.remove, { id: doomed[i].id });
    deleted.add(doomed[i].id);
    const body = `added ${i}`;
    added.set((await http.mutation(anyApi.notes.add, { channel: "load", body })) as string, body);
  }
  await waitFor(() => compactions() >= before + 3, 60_000, "three compactions during the deletes");
  await stopGracefully(first);

  const second = await backends.spawn({ dataDir, env });
  const after = new ConvexHttpClient(second.url);
  const kept = (await after.query(anyApi.notes.list, { channel: "seed" })) as Array<{ id: string; body: string }>;
  expect(kept.map((note) => note.id).sort()).toEqual(seeded.filter((note) => !deleted.has(note.id)).map((note) => note.id).sort());
  const load = (await after.query(anyApi.notes.list, { channel: "load" })) as Array<{ id: string; body: string }>;
  expect(new Map(load.map((note) => [note.id, note.body]))).toEqual(added);
});
