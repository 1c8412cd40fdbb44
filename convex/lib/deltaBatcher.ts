/**
 * Batches streamed text so a long reply costs a handful of writes, not one
 * per token: the first delta goes out at once (the thread shows the agent
 * typing without delay), later ones when `maxChars` have gathered or
 * `maxDelayMs` after the first unsent one. Sends never overlap and keep order.
 * `send` answers whether to go on; after a "stop" nothing more is sent.
 */
export const STREAM_FLUSH_MS = 100;
export const STREAM_FLUSH_CHARS = 500;

export type SendVerdict = "ok" | "stop";

export class DeltaBatcher {
  private buffer = "";
  private timer: ReturnType<typeof setTimeout> | null = null;
  private chain: Promise<void> = Promise.resolve();
  private sentAny = false;
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

  /** Sends what is buffered (after any send in flight). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.stopped || this.buffer === "") return;
    const text = this.buffer;
    this.buffer = "";
    this.sentAny = true;
    this.chain = this.chain.then(async () => {
      if (this.stopped) return;
      try {
        if ((await this.send(text)) === "stop") {
          this.stopped = true;
          this.onStop();
        }
      } catch (error) {
        this.failure ??= error;
        this.stopped = true;
        this.onStop();
      }
    });
  }

  /** Sends the rest and waits for every send; rethrows a send's failure. */
  async close(): Promise<SendVerdict> {
    this.flush();
    await this.chain;
    if (this.failure !== null) throw this.failure;
    return this.stopped ? "stop" : "ok";
  }
}
