/**
 * The offline backend holds functions to Convex's limits on one transaction
 * (executionLimits.ts): a function over them fails here with the error a
 * deployment gives, and a mutation that fails commits nothing.
 */
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { adminClient, startTestBackend } from "./helpers";

let backend: Awaited<ReturnType<typeof startTestBackend>>;
let http: ConvexHttpClient;

beforeAll(async () => {
  backend = await startTestBackend();
  http = new ConvexHttpClient(backend.url);
});

afterAll(async () => {
  await backend?.stop();
});

function notesIn(channel: string): number {
  return backend.engine.documents("", "notes").filter((note) => note.channel === channel).length;
}

test("a query scanning more than 32,000 documents fails as on Convex, documents its .filter() skipped included", async () => {
  const admin = adminClient(backend.url, backend.adminKey);
  for (let start = 0; start < 32_001; start += 1000) {
    await admin.mutation(anyApi.bench.seedBulk, { channel: "big", count: Math.min(1000, 32_001 - start), startIndex: start });
  }
  // The filter keeps nothing, yet every note of the channel was read to decide that.
  await expect(http.query(anyApi.limits.findByBody, { channel: "big", body: "absent" })).rejects.toThrow(
    "Scanned too many documents in a single function execution (limit: 32000). This is a Convex limit: https://docs.convex.dev/production/state/limits",
  );
  // Under the limit the same read answers.
  await admin.mutation(anyApi.bench.seedBulk, { channel: "small", count: 10, startIndex: 0 });
  expect(await http.query(anyApi.limits.findByBody, { channel: "small", body: "seed-3" })).toBe(1);
});

test("a mutation writing more than 16,000 documents fails and commits none of them", async () => {
  await expect(http.mutation(anyApi.limits.insertMany, { channel: "flood", count: 16_001 })).rejects.toThrow(
    "Wrote too many documents in a single function execution (limit: 16000)",
  );
  expect(notesIn("flood")).toBe(0);
});

test("a query past 1 s of user code fails with Convex's timeout error", async () => {
  expect(await http.query(anyApi.limits.slowQuery, { channel: "small", ms: 5 })).toBe(1);
  await expect(http.query(anyApi.limits.slowQuery, { channel: "small", ms: 1100 })).rejects.toThrow(
    "Function execution timed out (maximum duration: 1s)",
  );
});

test("a mutation past 1 s fails even when it catches the error, and its write is not committed", async () => {
  await expect(http.mutation(anyApi.limits.slowMutation, { channel: "slow", ms: 1100 })).rejects.toThrow(
    "Function execution timed out (maximum duration: 1s)",
  );
  expect(notesIn("slow")).toBe(0);
  await http.mutation(anyApi.limits.slowMutation, { channel: "slow", ms: 1 });
  expect(notesIn("slow")).toBe(1);
});
