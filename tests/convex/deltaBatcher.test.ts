import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { DeltaBatcher } from "../../convex/lib/deltaBatcher";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function recorder(verdicts: Array<"ok" | "stop"> = []) {
  const sent: string[] = [];
  let stops = 0;
  const batcher = new DeltaBatcher(
    async (text) => {
      sent.push(text);
      return verdicts.shift() ?? "ok";
    },
    () => {
      stops += 1;
    },
    { maxChars: 10, maxDelayMs: 100 },
  );
  return { batcher, sent, stops: () => stops };
}

describe("DeltaBatcher", () => {
  test("the first delta goes at once, then batches by size or delay, in order", async () => {
    const { batcher, sent } = recorder();
    batcher.push("Hi");
    batcher.push(" th");
    batcher.push("ere");
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["Hi"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toEqual(["Hi", " there"]);
    batcher.push("0123456789abc");
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["Hi", " there", "0123456789abc"]);
    batcher.push("tail");
    expect(await batcher.close()).toBe("ok");
    expect(sent.join("")).toBe("Hi there0123456789abctail");
  });

  test("a long reply is a handful of sends, not one per token", async () => {
    const { batcher, sent } = recorder();
    for (let i = 0; i < 200; i++) batcher.push("tok ");
    await batcher.close();
    expect(sent.join("")).toBe("tok ".repeat(200));
    expect(sent.length).toBeLessThanOrEqual(1 + Math.ceil(800 / 10));
    expect(sent.length).toBeLessThan(200);
  });

  test("while a send is out, what arrives meanwhile goes in one send when it returns, in order", async () => {
    const sent: string[] = [];
    const answers: Array<() => void> = [];
    const batcher = new DeltaBatcher(
      (text) => {
        sent.push(text);
        return new Promise((resolve) => answers.push(() => resolve("ok")));
      },
      () => {},
      { maxChars: 10, maxDelayMs: 100 },
    );
    batcher.push("first");
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["first"]);
    // The backend is slow: five flush periods and a size trigger pass while the first send is out.
    for (let i = 0; i < 5; i++) {
      batcher.push(`p${i} `);
      await vi.advanceTimersByTimeAsync(100);
    }
    batcher.push("0123456789");
    expect(sent).toEqual(["first"]);
    answers.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["first", "p0 p1 p2 p3 p4 0123456789"]);
    // A quick backend: pieces that arrive during a send wait for their delay, as before.
    answers.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    batcher.push("a");
    batcher.push("b");
    await vi.advanceTimersByTimeAsync(50);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(50);
    expect(sent).toEqual(["first", "p0 p1 p2 p3 p4 0123456789", "ab"]);
    batcher.push("tail");
    const closed = batcher.close();
    answers.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    answers.shift()!();
    expect(await closed).toBe("ok");
    expect(sent.join("")).toBe("firstp0 p1 p2 p3 p4 0123456789abtail");
  });

  test("a 'stop' answer calls onStop once and nothing more is sent", async () => {
    const { batcher, sent, stops } = recorder(["stop"]);
    batcher.push("first");
    await vi.advanceTimersByTimeAsync(0);
    batcher.push("second");
    expect(await batcher.close()).toBe("stop");
    expect(sent).toEqual(["first"]);
    expect(stops()).toBe(1);
    expect(batcher.isStopped).toBe(true);
  });

  test("a failed send stops the batcher and close rethrows it", async () => {
    const batcher = new DeltaBatcher(async () => Promise.reject(new Error("backend gone")), () => {});
    batcher.push("x");
    await expect(batcher.close()).rejects.toThrow("backend gone");
  });
});
