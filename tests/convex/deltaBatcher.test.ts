import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { DeltaBatcher, STREAM_FLUSH_CHARS, STREAM_FLUSH_JITTER, STREAM_FLUSH_MS } from "../../convex/lib/deltaBatcher";

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
    { maxChars: 10, intervalMs: 100 },
  );
  return { batcher, sent, stops: () => stops };
}

/** A batcher whose sends stay out until the test answers them, oldest first (a slow backend). */
function slowRecorder(maxChars: number) {
  const sent: string[] = [];
  const answers: Array<() => void> = [];
  const batcher = new DeltaBatcher(
    (text) => {
      sent.push(text);
      return new Promise((resolve) => answers.push(() => resolve("ok")));
    },
    () => {},
    { maxChars, intervalMs: 100 },
  );
  return { batcher, sent, answers };
}

describe("DeltaBatcher", () => {
  test("the first send goes on the next turn, with what arrived in this one, then batches by size or delay, in order", async () => {
    const { batcher, sent } = recorder();
    batcher.push("Hi");
    batcher.push(" th");
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["Hi th"]);
    batcher.push("ere");
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["Hi th"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toEqual(["Hi th", "ere"]);
    batcher.push("0123456789abc");
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["Hi th", "ere", "0123456789abc"]);
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
    const { batcher, sent, answers } = slowRecorder(10);
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

  test("a steady stream: the first piece at once, then at most one send per interval, every character kept", async () => {
    const sent: Array<{ at: number; text: string }> = [];
    const started = Date.now();
    const batcher = new DeltaBatcher(
      async (text) => {
        sent.push({ at: Date.now() - started, text });
        return "ok";
      },
      () => {},
    );
    // The bench's reply: 200 pieces 50 ms apart (10 s).
    const pieces = Array.from({ length: 200 }, (_, i) => `w${i} `);
    for (const piece of pieces) {
      batcher.push(piece);
      await vi.advanceTimersByTimeAsync(50);
    }
    const whileStreaming = sent.length;
    expect(await batcher.close()).toBe("ok");
    expect(sent[0]).toEqual({ at: 0, text: "w0 " });
    expect(sent.map((s) => s.text).join("")).toBe(pieces.join(""));
    // The rest goes at close, whatever the interval; before that, sends keep their distance.
    const shortest = STREAM_FLUSH_MS * (1 - STREAM_FLUSH_JITTER);
    for (let i = 1; i < whileStreaming; i++) expect(sent[i].at - sent[i - 1].at).toBeGreaterThanOrEqual(shortest);
    expect(sent.length).toBeLessThanOrEqual(2 + Math.ceil(10_000 / shortest));
  });

  test("each wait is the interval ± the jitter, so runs that started together do not write in step", async () => {
    const random = vi.spyOn(Math, "random");
    try {
      const sent: number[] = [];
      const started = Date.now();
      const batcher = new DeltaBatcher(async () => {
        sent.push(Date.now() - started);
        return "ok";
      }, () => {}, { maxChars: 10_000, intervalMs: 100, jitter: 0.5 });
      // The shortest wait, then the longest.
      random.mockReturnValueOnce(0).mockReturnValueOnce(1);
      for (let i = 0; i < 40; i++) {
        batcher.push("x");
        await vi.advanceTimersByTimeAsync(5);
      }
      expect(sent.slice(0, 3)).toEqual([0, 50, 200]);
      await batcher.close();
    } finally {
      random.mockRestore();
    }
  });

  test("close sends the rest at once, before the interval ends (message_end, a model error)", async () => {
    const { batcher, sent } = recorder();
    batcher.push("first");
    await vi.advanceTimersByTimeAsync(10);
    batcher.push(" and the rest");
    expect(sent).toEqual(["first"]);
    // No timer is advanced: close does not wait for the interval.
    expect(await batcher.close()).toBe("ok");
    expect(sent).toEqual(["first", " and the rest"]);
  });

  test("after a quiet spell longer than the interval, a piece goes out at once", async () => {
    const { batcher, sent } = recorder();
    batcher.push("a");
    await vi.advanceTimersByTimeAsync(500);
    batcher.push("b");
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["a", "b"]);
    batcher.push("c");
    await vi.advanceTimersByTimeAsync(99);
    expect(sent).toEqual(["a", "b"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual(["a", "b", "c"]);
  });

  test("a send out longer than the interval: what gathered goes as soon as it returns", async () => {
    const { batcher, sent, answers } = slowRecorder(10_000);
    batcher.push("a");
    await vi.advanceTimersByTimeAsync(0);
    batcher.push("b");
    await vi.advanceTimersByTimeAsync(300);
    expect(sent).toEqual(["a"]);
    answers.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["a", "b"]);
    answers.shift()!();
    expect(await batcher.close()).toBe("ok");
  });

  test("a fast model: a batch of STREAM_FLUSH_CHARS goes before its interval ends", async () => {
    const sent: string[] = [];
    const batcher = new DeltaBatcher(async (text) => {
      sent.push(text);
      return "ok";
    }, () => {});
    batcher.push("a");
    await vi.advanceTimersByTimeAsync(1);
    batcher.push("x".repeat(STREAM_FLUSH_CHARS - 1));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["a"]);
    batcher.push("y");
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["a", `${"x".repeat(STREAM_FLUSH_CHARS - 1)}y`]);
    await batcher.close();
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

  test("drain sends nothing and hands back the text: a reply that arrives whole costs no write of its own", async () => {
    const { batcher, sent } = recorder();
    batcher.push("On ");
    batcher.push("it.");
    expect(await batcher.drain()).toEqual({ verdict: "ok", rest: "On it." });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toEqual([]);
  });

  test("drain waits for the send under way, then returns what gathered meanwhile, unsent, and takes nothing more", async () => {
    const { batcher, sent, answers } = slowRecorder(10_000);
    batcher.push("a");
    await vi.advanceTimersByTimeAsync(0);
    batcher.push("b");
    let drained: { verdict: string; rest: string } | null = null;
    const draining = batcher.drain().then((result) => (drained = result));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(drained).toBeNull();
    answers.shift()!();
    await draining;
    expect(drained).toEqual({ verdict: "ok", rest: "b" });
    batcher.push("c");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toEqual(["a"]);
    expect(answers).toHaveLength(0);
  });

  test("drain after a 'stop' returns no text; after a failed send it rethrows", async () => {
    const { batcher, sent } = recorder(["stop"]);
    batcher.push("first");
    await vi.advanceTimersByTimeAsync(0);
    batcher.push("second");
    expect(await batcher.drain()).toEqual({ verdict: "stop", rest: "" });
    expect(sent).toEqual(["first"]);
    const failing = new DeltaBatcher(async () => Promise.reject(new Error("backend gone")), () => {});
    failing.push("x");
    await vi.advanceTimersByTimeAsync(0);
    await expect(failing.drain()).rejects.toThrow("backend gone");
  });

  test("a failed send stops the batcher and close rethrows it", async () => {
    const batcher = new DeltaBatcher(async () => Promise.reject(new Error("backend gone")), () => {});
    batcher.push("x");
    await expect(batcher.close()).rejects.toThrow("backend gone");
  });
});
