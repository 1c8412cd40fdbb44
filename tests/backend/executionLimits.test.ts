/**
 * The offline backend holds functions to Convex's limits on one transaction
 * (executionLimits.ts): a function over them fails here with the error a
 * deployment gives, and a mutation that fails commits nothing.
 */
import { ConvexHttpClient } from "convex/browser";
import { anyApi, type FunctionReference } from "convex/server";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { ConvexTestInternals } from "../../tools/local-backend/convexTestInternals";
import { CPU_READING_MAX_AGE_MS, ExecutionClock } from "../../tools/local-backend/executionLimits";
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

/** With `over`, the mutation fails with `message` and leaves no note in `channel`; with `under`, its one note is there. */
async function refusedThenStored(mutation: FunctionReference<"mutation">, channel: string, over: object, under: object, message: string) {
  await expect(http.mutation(mutation, { channel, ...over })).rejects.toThrow(message);
  expect(notesIn(channel)).toBe(0);
  await http.mutation(mutation, { channel, ...under });
  expect(notesIn(channel)).toBe(1);
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

test("a document over 1 MiB is refused with the deployment's error, and the mutation writing it commits nothing", async () => {
  // 1,100,000 characters of body and ~80 bytes of other fields: 1.05 MiB as Convex counts it; just under the limit it is stored.
  await refusedThenStored(anyApi.limits.insertLongNote, "long", { chars: 1_100_000 }, { chars: 1_048_000 }, "Value is too large (1.05 MiB > maximum size 1 MiB)");
});

test("arrays over 8,192 elements, objects over 1,024 fields and documents nested past 16 are refused, and only that write fails", async () => {
  const refusals: Array<[shape: string, ok: number, over: number, message: string]> = [
    ["array", 8192, 8193, "Array length is too long (8193 > maximum length 8192)"],
    ["object", 1024, 1025, "Object has too many fields (1025 > maximum number 1024)"],
    // The document is one level, its field's arrays the rest.
    ["deep", 15, 16, "Document is too nested (nested 17 levels deep > maximum nesting 16)"],
  ];
  for (const [shape, ok, over, message] of refusals) {
    const before = backend.engine.documents("", "values").length;
    expect(await http.mutation(anyApi.limits.insertShaped, { channel: `shape-${shape}`, shape, n: ok })).toBeNull();
    expect(await http.mutation(anyApi.limits.insertShaped, { channel: `shape-${shape}`, shape, n: over })).toBe(message);
    // The refused insert wrote nothing; the mutation's other write (a note each time) committed.
    expect(backend.engine.documents("", "values").length).toBe(before + 1);
    expect(notesIn(`shape-${shape}`)).toBe(2);
  }
});

test("a function's arguments or return value over Convex's limits on values fail as on a deployment", async () => {
  const items = (n: number) => Array.from({ length: n }, (_, i) => i);
  expect(await http.query(anyApi.limits.countItems, { items: items(8192) })).toBe(8192);
  await expect(http.query(anyApi.limits.countItems, { items: items(8193) })).rejects.toThrow("Array length is too long (8193 > maximum length 8192)");
  expect(await http.query(anyApi.limits.returnShaped, { shape: "array", n: 8192 })).toHaveLength(8192);
  await expect(http.query(anyApi.limits.returnShaped, { shape: "array", n: 8193 })).rejects.toThrow("Array length is too long (8193 > maximum length 8192)");
  await expect(http.query(anyApi.limits.returnShaped, { shape: "object", n: 1025 })).rejects.toThrow("Object has too many fields (1025 > maximum number 1024)");
  expect(await http.query(anyApi.limits.returnShaped, { shape: "deep", n: 64 })).toBeDefined();
  await expect(http.query(anyApi.limits.returnShaped, { shape: "deep", n: 65 })).rejects.toThrow("Value is too nested (nested 65 levels deep > maximum nesting 64)");
});

test("a function's arguments or return value over 16 MiB fail with Convex's messages; a mutation that returns too much commits nothing", async () => {
  const MiB16 = 16 * 1024 * 1024;
  // A string of n ASCII characters is n + 2 bytes to Convex; arguments { text } of n characters, n + 11.
  expect(await http.query(anyApi.limits.returnText, { chars: MiB16 - 2 })).toHaveLength(MiB16 - 2);
  await expect(http.query(anyApi.limits.returnText, { chars: MiB16 - 1 })).rejects.toThrow(
    /Function limits\.js:returnText return value is too large \(actual: 16 MiB, limit: 16 MiB\)$/,
  );
  await expect(http.action(anyApi.limits.returnTextFromAction, { chars: MiB16 + 600_000 })).rejects.toThrow(
    /Function limits\.js:returnTextFromAction return value is too large \(actual: 16\.57 MiB, limit: 16 MiB\)$/,
  );
  await refusedThenStored(
    anyApi.limits.writeThenReturnText,
    "too-much",
    { chars: MiB16 - 1 },
    { chars: 10 },
    "Function limits.js:writeThenReturnText return value is too large (actual: 16 MiB, limit: 16 MiB)",
  );
  // Nested calls from an action: the caller gets the error and may catch it.
  expect(await http.action(anyApi.limits.passText, { chars: MiB16 - 11, via: "arguments" })).toBe(MiB16 - 11);
  expect(await http.action(anyApi.limits.passText, { chars: MiB16 - 10, via: "arguments" })).toBe(
    "Arguments for limits.js:textLength are too large (actual: 16 MiB, limit: 16 MiB)",
  );
  expect(await http.action(anyApi.limits.passText, { chars: MiB16 - 1, via: "result" })).toBe(
    "Function limits.js:returnText return value is too large (actual: 16 MiB, limit: 16 MiB)",
  );
}, 60_000);

test("a query past 1 s of user code fails with Convex's timeout error", async () => {
  expect(await http.query(anyApi.limits.slowQuery, { channel: "small", ms: 5 })).toBe(1);
  await expect(http.query(anyApi.limits.slowQuery, { channel: "small", ms: 1100 })).rejects.toThrow(
    "Function execution timed out (maximum duration: 1s)",
  );
});

test("a mutation past 1 s fails even when it catches the error, and its write is not committed", async () => {
  await refusedThenStored(anyApi.limits.slowMutation, "slow", { ms: 1100 }, { ms: 1 }, "Function execution timed out (maximum duration: 1s)");
});

/** A clock over hand-moved wall and CPU clocks, inside a query, counting its CPU clock reads. */
function handClock() {
  const time = { wall: 0, cpu: 0, cpuReads: 0 };
  const internals = { executionContextStorage: { getStore: () => ({ componentPath: "", udfType: "query" }) } } as unknown as ConvexTestInternals;
  const clock = new ExecutionClock(internals, 1000, {
    wall: () => time.wall,
    cpu: () => {
      time.cpuReads += 1;
      return time.cpu;
    },
    cores: 2,
  });
  return { time, clock };
}

/** The function is within its time as the clocks stand, and past it once `moreCpuMs` more CPU is used. */
function expectTimeoutAfter(clock: ExecutionClock, time: { cpu: number }, moreCpuMs: number) {
  expect(() => clock.finished()).not.toThrow();
  time.cpu += moreCpuMs;
  expect(() => clock.finished()).toThrow("Function execution timed out (maximum duration: 1s)");
}

test("the CPU clock (a system call) is read once per transaction while its user code is within the limit by the wall clock", () => {
  const { time, clock } = handClock();
  clock.started();
  for (let i = 0; i < 50; i++) {
    time.wall += 10;
    time.cpu += 10;
    clock.check();
  }
  clock.finished();
  expect(time.cpuReads).toBe(1);
  // Past the limit by the wall clock while waiting for a core: the CPU clock decides, and the function used little of it.
  time.wall += 1_000;
  time.cpu += 10;
  expectTimeoutAfter(clock, time, 1_000);
});

test("transactions close together share one reading of the CPU clock, and a function's time is never over-counted for it", () => {
  const { time, clock } = handClock();
  // A hundred short transactions within CPU_READING_MAX_AGE_MS: one system call, not a hundred.
  for (let i = 0; i < 100; i++) {
    clock.started();
    // 1/16 ms: exact in binary, 6.25 ms in all.
    time.wall += 1 / 16;
    time.cpu += 1 / 16;
    clock.finished();
    clock.ended();
  }
  expect(time.cpuReads).toBe(1);
  // Both cores ran since the reading (6.25 ms of wall, 12.5 ms of CPU): none of it is the next function's.
  expect(time.wall).toBeLessThan(CPU_READING_MAX_AGE_MS);
  time.cpu = 2 * time.wall;
  clock.started();
  expect(time.cpuReads).toBe(1);
  time.wall += 1_500;
  time.cpu += 1_000;
  expectTimeoutAfter(clock, time, 1);
  clock.ended();
  // A reading older than CPU_READING_MAX_AGE_MS is taken afresh.
  const reads = time.cpuReads;
  time.wall += CPU_READING_MAX_AGE_MS + 1;
  clock.started();
  expect(time.cpuReads).toBe(reads + 1);
});

test("a database call's own time is not the function's", async () => {
  const { time, clock } = handClock();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a deployment global's two system calls
  const global: any = {
    syscall: () => {
      time.wall += 2_000;
      time.cpu += 2_000;
      return "{}";
    },
    asyncSyscall: async () => {
      time.wall += 2_000;
      time.cpu += 2_000;
      return "{}";
    },
  };
  clock.install(global);
  clock.started();
  global.syscall("1.0/get", "{}");
  await global.asyncSyscall("1.0/queryStream", "{}");
  time.wall += 900;
  time.cpu += 900;
  expect(() => clock.finished()).not.toThrow();
  time.wall += 200;
  time.cpu += 200;
  expect(() => clock.finished()).toThrow("Function execution timed out (maximum duration: 1s)");
});
