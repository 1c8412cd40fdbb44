/**
 * Batches streamed text so a long reply costs a handful of writes, not one
 * per token: the first delta goes out at once (the thread shows the agent
 * typing without delay), later ones when `maxChars` have gathered or
 * `maxDelayMs` after the first unsent one. Sends never overlap and keep order.
 * While a send is out, nothing more is queued: what gathers meanwhile goes in
 * one send when it returns, so a slow backend gets fewer, larger writes
 * instead of a backlog (with 50 runs streaming, appends queue behind each
 * other). `send` answers whether to go on; after a "stop" nothing more is sent.
 */
export const STREAM_FLUSH_MS = 100;
export const STREAM_FLUSH_CHARS = 500;

export type SendVerdict = "ok" | "stop";

export class DeltaBatcher {
  private buffer = "";
  private timer: ReturnType<typeof setTimeout> | null = null;
  private chain: Promise<void> = Promise.resolve();
  private sentAny = false;
  /** A send is out; `flushWanted` records a flush asked for meanwhile. */
  private sending = false;
  private flushWanted = false;
  private stopped = false;
  private failure: unknown = null;

  constructor(
    private readonly send: (text: string) => Promise<SendVerdict>,
    private readonly onStop: () => void,
    private readonly limits: { maxChars: number; maxDelayMs: number } = { maxChars: STREAM_FLUSH_CHARS, maxDelayMs: STREAM_FLUSH_MS },
  ) {}

  /** True once a send answered "stop". */
  get isStopped(): boolean {
    return this.stopped;
  }

  push(delta: string): void {
    if (this.stopped || delta === "") return;
    this.buffer += delta;
    if (!this.sentAny || this.buffer.length >= this.limits.maxChars) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.limits.maxDelayMs);
  }

  /** Sends what is buffered now, or, while a send is out, as soon as it returns (together with what arrives meanwhile). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.stopped || this.buffer === "") return;
    if (this.sending) {
      this.flushWanted = true;
      return;
    }
    const text = this.buffer;
    this.buffer = "";
    this.sentAny = true;
    this.sending = true;
    this.flushWanted = false;
    this.chain = this.chain.then(async () => {
      try {
        if (this.stopped) return;
        if ((await this.send(text)) === "stop") {
          this.stopped = true;
          this.onStop();
        }
      } catch (error) {
        this.failure ??= error;
        this.stopped = true;
        this.onStop();
      } finally {
        this.sending = false;
      }
      if (this.flushWanted) this.flush();
    });
  }

  /** Sends the rest and waits for every send; rethrows a send's failure. */
  async close(): Promise<SendVerdict> {
    this.flush();
    // A send that returns may start the next one: wait until the chain stays put.
    for (let chain = this.chain; ; chain = this.chain) {
      await chain;
      if (chain === this.chain) break;
    }
    if (this.failure !== null) throw this.failure;
    return this.stopped ? "stop" : "ok";
  }
}
