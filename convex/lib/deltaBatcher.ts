/**
 * Batches streamed text so a long reply costs a handful of writes, not one
 * per token: the first delta goes out on the next turn of the event loop,
 * with whatever arrived in this one (the thread shows the agent typing
 * without delay), later ones at most once every `intervalMs` (counted from
 * the previous send's start, ± `jitter` of it), or early when `maxChars`
 * have gathered.
 * Sends never overlap and keep order. While a send is out, nothing more is
 * queued: what gathers meanwhile goes in one send when it returns, so a slow
 * backend gets fewer, larger writes instead of a backlog. `close` sends the
 * rest at once, whatever the interval, so no character is lost on the way to
 * an error; `drain` hands the rest back instead, for the caller's next write
 * (`message_end`) to carry. `send` answers whether to go on; after a "stop"
 * nothing more is sent.
 */

/**
 * At most one write per streaming run this often. Each write is a
 * transaction the backend runs one at a time, so with 50 runs streaming the
 * write rate is what queues other writes: flushing 100 ms after the first
 * unsent piece made ~75 writes per 10 s reply, 250 ms since the last send
 * ~42, 300 ms ~35, 500 ms ~22. Two updates a second still read as live
 * typing, and in bench:runs (same machine, alternating runs) 500 ms put the
 * p99 of other writes at 7.1–7.5 ms where 300 ms gave 11.5–18.4.
 */
export const STREAM_FLUSH_MS = 500;
/**
 * Each wait is the interval ± this fraction, at random: runs that started
 * together would otherwise write in step, in bursts the backend queues (with
 * 50 runs streaming, the busiest 10 ms saw 12–14 writes in step, 7–8 jittered).
 */
export const STREAM_FLUSH_JITTER = 0.25;
/** A batch this long goes out before its interval ends: one event's text stays bounded when a model streams fast. */
export const STREAM_FLUSH_CHARS = 2000;

export type SendVerdict = "ok" | "stop";

export class DeltaBatcher {
  private buffer = "";
  private timer: ReturnType<typeof setTimeout> | null = null;
  private chain: Promise<void> = Promise.resolve();
  /** When the last send started (ms since the epoch); null before the first. */
  private lastSendAt: number | null = null;
  /** The wait after the last send (the interval, jittered). */
  private gapMs = 0;
  /** A send is out; `flushWanted` records an immediate flush asked for meanwhile. */
  private sending = false;
  private flushWanted = false;
  private stopped = false;
  /** Set by `drain`: nothing more is sent. */
  private drained = false;
  private failure: unknown = null;

  constructor(
    private readonly send: (text: string) => Promise<SendVerdict>,
    private readonly onStop: () => void,
    private readonly limits: { maxChars: number; intervalMs: number; jitter?: number } = {
      maxChars: STREAM_FLUSH_CHARS,
      intervalMs: STREAM_FLUSH_MS,
      jitter: STREAM_FLUSH_JITTER,
    },
  ) {}

  /** True once a send answered "stop" (or failed). */
  get isStopped(): boolean {
    return this.stopped;
  }

  push(delta: string): void {
    if (this.stopped || this.drained || delta === "") return;
    this.buffer += delta;
    if (this.buffer.length >= this.limits.maxChars) this.flush();
    else this.schedule();
  }

  /** Sends the buffer once the interval since the last send has passed (on the next turn for the first). */
  private schedule(): void {
    // While a send is out, its return schedules what gathered meanwhile.
    if (this.timer !== null || this.sending || this.stopped || this.drained || this.buffer === "") return;
    const wait = this.lastSendAt === null ? 0 : this.lastSendAt + this.gapMs - Date.now();
    // Even a send due now waits for the next turn: a reply that arrives whole is then `drain`ed into the reply's end, one write fewer.
    this.timer = setTimeout(() => this.flush(), Math.max(0, wait));
  }

  /** Sends what is buffered now, or, while a send is out, as soon as it returns (together with what arrives meanwhile). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.stopped || this.drained || this.buffer === "") return;
    if (this.sending) {
      this.flushWanted = true;
      return;
    }
    const text = this.buffer;
    this.buffer = "";
    this.lastSendAt = Date.now();
    this.gapMs = this.limits.intervalMs * (1 + (this.limits.jitter ?? 0) * (2 * Math.random() - 1));
    this.sending = true;
    this.flushWanted = false;
    this.chain = this.chain.then(async () => {
      try {
        if ((await this.send(text)) === "stop") this.halt();
      } catch (error) {
        this.failure ??= error;
        this.halt();
      } finally {
        this.sending = false;
      }
      if (this.flushWanted) this.flush();
      else this.schedule();
    });
  }

  private halt(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.buffer = "";
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.onStop();
  }

  /** Sends the rest and waits for every send; rethrows a send's failure. */
  async close(): Promise<SendVerdict> {
    this.flush();
    await this.settle();
    return this.stopped ? "stop" : "ok";
  }

  /**
   * Waits for the send under way, sends nothing more, and returns the text
   * not sent yet (none after a "stop"): one write fewer when the caller's
   * next write can carry it. Rethrows a send's failure.
   */
  async drain(): Promise<{ verdict: SendVerdict; rest: string }> {
    this.drained = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.settle();
    const rest = this.buffer;
    this.buffer = "";
    return this.stopped ? { verdict: "stop", rest: "" } : { verdict: "ok", rest };
  }

  /** Waits until no send is out; rethrows a send's failure. */
  private async settle(): Promise<void> {
    // A send that returns may start the next one: wait until the chain stays put.
    for (let chain = this.chain; ; chain = this.chain) {
      await chain;
      if (chain === this.chain) break;
    }
    if (this.failure !== null) throw this.failure;
  }
}
