/**
 * The app's unit tests run on a deployment that holds functions to Convex's
 * limits (setup.ts): a function that writes or returns more than Convex
 * takes fails here as it would in production, with the deployment's message,
 * and what it wrote is not stored.
 */
import { expect, test } from "vitest";
import { internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { setupTest } from "./setup";

async function demo() {
  const t = setupTest();
  const departmentId = await t.mutation(internal.seed.demo, {});
  const chatMessage = (id: number, text: string) => ({ id, departmentId, sessionId: "s", ts: "2026-01-01T00:00:00.000Z", author: "@human", text, truncated: false, redacted: false });
  const stored = () => t.run(async (ctx) => (await ctx.db.query("chat").withIndex("by_chat_id").take(20_000)).length);
  return { t, departmentId: departmentId as Id<"departments">, chatMessage, stored };
}

test("a document over 1 MiB is refused and not stored", async () => {
  const { t, chatMessage, stored } = await demo();
  const before = await stored();
  await expect(t.run(async (ctx) => await ctx.db.insert("chat", chatMessage(1, "x".repeat(1_100_000))))).rejects.toThrow(
    "Value is too large (1.05 MiB > maximum size 1 MiB)",
  );
  expect(await stored()).toBe(before);
});

test("a result with an array over 8,192 elements is refused", async () => {
  const { t } = await demo();
  expect(await t.run(async () => Array.from({ length: 8192 }, () => 0))).toHaveLength(8192);
  await expect(t.run(async () => Array.from({ length: 8193 }, () => 0))).rejects.toThrow("Array length is too long (8193 > maximum length 8192)");
});

test("arguments with an object over 1,024 fields are refused before the function runs", async () => {
  const { t, stored } = await demo();
  const before = await stored();
  const fields = Object.fromEntries(Array.from({ length: 1025 }, (_, i) => [`f${i}`, i]));
  await expect(t.mutation(internal.seed.demo, fields as never)).rejects.toThrow("Object has too many fields (1025 > maximum number 1024)");
  expect(await stored()).toBe(before);
});

test("writing more than 16,000 documents in one transaction fails and stores none of them", async () => {
  const { t, chatMessage, stored } = await demo();
  const before = await stored();
  await expect(
    t.run(async (ctx) => {
      for (let id = 1; id <= 16_001; id++) await ctx.db.insert("chat", chatMessage(id, "hi"));
    }),
  ).rejects.toThrow("Wrote too many documents in a single function execution (limit: 16000)");
  expect(await stored()).toBe(before);
});
