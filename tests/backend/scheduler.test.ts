import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterAll, expect, test } from "vitest";
import { FIXTURE_CONVEX_DIR, startTestBackend, tempDataDir, waitFor } from "./helpers";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test("a scheduled mutation's write reaches a subscriber", async () => {
  const backend = await startTestBackend();
  cleanups.push(() => backend.stop());
  const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  cleanups.push(() => client.close());
  const seen: Array<Array<{ body: string }>> = [];
  client.onUpdate(anyApi.notes.list, { channel: "later" }, (v: Array<{ body: string }>) => seen.push(v));
  await waitFor(() => seen.length === 1);
  await client.mutation(anyApi.notes.addLater, { channel: "later", body: "scheduled", delayMs: 200 });
  expect(seen.at(-1)).toEqual([]);
  await waitFor(() => seen.at(-1)?.length === 1, 10_000, "scheduled write pushed");
  expect(seen.at(-1)![0].body).toBe("scheduled");
});

test("crons from convex/crons.ts run on their own and their writes reach a subscriber", async () => {
  const backend = await startTestBackend();
  cleanups.push(() => backend.stop());
  const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  cleanups.push(() => client.close());
  const counts: number[] = [];
  client.onUpdate(anyApi.ticks.count, { source: "cron" }, (n: number) => counts.push(n));
  await waitFor(() => (counts.at(-1) ?? 0) >= 2, 10_000, "two cron runs");
});

test("a scheduled function pending at shutdown runs after a restart", async () => {
  const dataDir = tempDataDir();
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestBackend({ dataDir });
  await new ConvexHttpClient(first.url).mutation(anyApi.notes.addLater, { channel: "resume", body: "survived", delayMs: 1_500 });
  await first.stop();
  const second = await startTestBackend({ dataDir });
  cleanups.push(() => second.stop());
  const http = new ConvexHttpClient(second.url);
  await waitFor(async () => ((await http.query(anyApi.notes.list, { channel: "resume" })) as unknown[]).length === 1, 10_000, "resumed job");
});

test("edited functions are reloaded and subscriptions re-run; a schema existing data breaks is refused", async () => {
  const convexDir = path.join(mkdtempSync(path.join(tmpdir(), "maestro-reload-")), "convex");
  cpSync(FIXTURE_CONVEX_DIR, convexDir, { recursive: true });
  cleanups.push(() => rmSync(path.dirname(convexDir), { recursive: true, force: true }));
  const logs: string[] = [];
  const backend = await startTestBackend({ convexDir, watch: true, log: (line) => logs.push(line) });
  cleanups.push(() => backend.stop());
  const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  cleanups.push(() => client.close());
  await client.mutation(anyApi.notes.add, { channel: "reload", body: "x" });
  const seen: unknown[] = [];
  client.onUpdate(anyApi.notes.countAll, {}, (v: unknown) => seen.push(v));
  await waitFor(() => seen.length === 1);

  const notesFile = path.join(convexDir, "notes.ts");
  const original = readFileSync(notesFile, "utf8");
  writeFileSync(notesFile, original.replace("(await ctx.db.query(\"notes\").collect()).length", "`count=${(await ctx.db.query(\"notes\").collect()).length}`"));
  await waitFor(() => seen.at(-1) === "count=1", 15_000, "reloaded query result");

  const schemaFile = path.join(convexDir, "schema.ts");
  writeFileSync(schemaFile, readFileSync(schemaFile, "utf8").replace("body: v.string()", "body: v.number()"));
  await waitFor(() => logs.some((l) => l.includes("Schema validation failed")), 15_000, "schema refusal");
  // The old schema stays in force: a string body is still accepted.
  await client.mutation(anyApi.notes.add, { channel: "reload", body: "still a string" });
});
