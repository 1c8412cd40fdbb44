/**
 * Request and Response with a body held as bytes, for HTTP actions.
 *
 * Node 20's fetch classes turn every body into a ReadableStream when they are
 * made, and read it back through that stream's promises: for a chat post over
 * MCP (a small JSON request, a small JSON answer) building and reading the two
 * bodies was about a tenth of the backend's CPU, most of it promises that every
 * AsyncLocalStorage hook then visits. A Convex deployment has its own Fetch
 * classes; these play that part here. The body stays bytes until something
 * asks for `body` itself (the stream): then a stock Request or Response is made
 * from the bytes and everything about the body is its answer from then on, so
 * streams, `formData()` and the rest behave exactly as Node's. Until then
 * `text()`, `json()`, `arrayBuffer()` and `bytes()` read the bytes directly,
 * once, as the standard says (a second read is a TypeError); `blob()` and
 * `formData()`, rare here, go through the stock object.
 * Both are subclasses, so `instanceof Request`/`Response` holds and every
 * other member (headers, status, url, signal, ...) is Node's own.
 */

/**
 * Node's own classes, which the stock objects are made of: once the backend
 * installs BufferedResponse as the global Response, `new Response` would make
 * another buffered one (and asking it for its stream, another, without end).
 * Kept on a global symbol so a second copy of this module finds Node's, not
 * the installed class.
 */
const NODE_CLASSES = Symbol.for("maestro.localBackend.nodeFetchClasses");
const { Request: NodeRequest, Response: NodeResponse } = ((globalThis as Record<symbol, unknown>)[NODE_CLASSES] ??= {
  Request: globalThis.Request,
  Response: globalThis.Response,
}) as { Request: typeof Request; Response: typeof Response };

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Statuses whose responses have no body (the Fetch standard's "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function alreadyRead(): TypeError {
  return new TypeError("Body is unusable: Body has already been read");
}

/** The bytes of a body this module can hold as they are, else null (streams, Blobs, forms...). */
function bytesOf(body: unknown): Uint8Array | null {
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return null;
}

/**
 * A body kept as bytes until the stream is asked for. `materialize` makes
 * the stock object that takes over then.
 */
class HeldBody<Stock extends Body> {
  private used = false;
  private stock: Stock | null = null;

  constructor(
    private held: Uint8Array | null,
    private readonly materialize: (bytes: Uint8Array | null) => Stock,
  ) {}

  /** The stock object, made on first need; from then on it owns the body. */
  taken(): Stock {
    if (this.stock === null) {
      this.stock = this.materialize(this.used ? new Uint8Array(0) : this.held);
      // Already read: so is the stock body (reading it marks it used at once), and it refuses the next read as Node's would.
      if (this.used) this.stock.arrayBuffer().catch(() => {});
      this.held = null;
    }
    return this.stock;
  }

  get delegated(): boolean {
    return this.stock !== null;
  }

  get bodyUsed(): boolean {
    return this.stock === null ? this.used : this.stock.bodyUsed;
  }

  /** The bytes, marked read; a TypeError once they have been. */
  private take(): Uint8Array {
    if (this.used) throw alreadyRead();
    this.used = true;
    const bytes = this.held ?? new Uint8Array(0);
    this.held = null;
    return bytes;
  }

  /** The bytes without reading them (null once read or handed to a stream). */
  peek(): Uint8Array | null {
    return this.stock === null && !this.used ? this.held : null;
  }

  /** Reads through the held bytes while nothing asked for the stream, else through the stock object. */
  private read<T>(direct: (bytes: Uint8Array) => T, stock: (body: Stock) => Promise<T>): Promise<T> {
    if (this.stock !== null) return stock(this.stock);
    try {
      return Promise.resolve(direct(this.take()));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  text(): Promise<string> {
    return this.read((bytes) => decoder.decode(bytes), (b) => b.text());
  }

  json(): Promise<unknown> {
    return this.read((bytes) => JSON.parse(decoder.decode(bytes)) as unknown, (b) => b.json() as Promise<unknown>);
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.read((bytes) => bytes.slice().buffer as ArrayBuffer, (b) => b.arrayBuffer());
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.read((bytes) => bytes.slice() as Uint8Array<ArrayBuffer>, (b) => b.bytes());
  }
}

export interface BufferedRequestInit {
  method: string;
  headers: Array<[string, string]> | Headers;
  body?: Uint8Array | null;
}

/** An HTTP action's Request: its body (when it has one) stays bytes until its stream is asked for. */
export class BufferedRequest extends NodeRequest {
  readonly #held: HeldBody<Request>;

  constructor(url: string | URL, init: BufferedRequestInit) {
    const bytes = init.body ?? null;
    // As Node's Request refuses them.
    if (bytes !== null && /^(GET|HEAD)$/i.test(init.method)) throw new TypeError("Request with GET/HEAD method cannot have body.");
    super(url, { method: init.method, headers: init.headers });
    const { url: href, method, headers } = this;
    this.#held = new HeldBody<Request>(bytes, (kept) => new NodeRequest(href, { method, headers, body: kept as Uint8Array<ArrayBuffer> | null }));
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    return this.#held.taken().body;
  }

  override get bodyUsed(): boolean {
    return this.#held.bodyUsed;
  }

  override text(): Promise<string> {
    return this.#held.text();
  }

  override json(): Promise<unknown> {
    return this.#held.json();
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#held.arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#held.bytes();
  }

  override blob(): Promise<Blob> {
    return this.#held.taken().blob();
  }

  override formData(): Promise<FormData> {
    return this.#held.taken().formData();
  }

  override clone(): Request {
    if (this.#held.delegated) return this.#held.taken().clone();
    if (this.#held.bodyUsed) throw new TypeError("Request.clone: Body has already been consumed.");
    const bytes = this.#held.peek();
    return new BufferedRequest(this.url, { method: this.method, headers: this.headers, body: bytes === null ? null : bytes.slice() });
  }
}

/** A Response made with a string or bytes: they stay as they are until its stream is asked for. */
export class BufferedResponse extends NodeResponse {
  readonly #held: HeldBody<Response> | null = null;

  constructor(body?: BodyInit | null, init?: ResponseInit) {
    const bytes = body === undefined || body === null ? null : bytesOf(body);
    const status = init?.status ?? 200;
    // Anything else (a stream, a Blob, a form, a status that may not have a body) is Node's own business.
    if (bytes === null || NULL_BODY_STATUSES.has(status)) {
      super(body, init);
      return;
    }
    super(null, init);
    // As Node's Response labels a string body.
    if (typeof body === "string" && !this.headers.has("content-type")) this.headers.set("content-type", "text/plain;charset=UTF-8");
    const { statusText, headers } = this;
    this.#held = new HeldBody<Response>(bytes, (kept) => new NodeResponse(kept as Uint8Array<ArrayBuffer> | null, { status, statusText, headers }));
  }

  /** The body's bytes while nobody has read it or asked for its stream; null otherwise (then read it as any Response). */
  untouchedBytes(): Uint8Array | null {
    return this.#held === null ? null : this.#held.peek();
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    return this.#held === null ? super.body : this.#held.taken().body;
  }

  override get bodyUsed(): boolean {
    return this.#held === null ? super.bodyUsed : this.#held.bodyUsed;
  }

  override text(): Promise<string> {
    return this.#held === null ? super.text() : this.#held.text();
  }

  override json(): Promise<unknown> {
    return this.#held === null ? super.json() : this.#held.json();
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#held === null ? super.arrayBuffer() : this.#held.arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#held === null ? super.bytes() : this.#held.bytes();
  }

  override blob(): Promise<Blob> {
    return this.#held === null ? super.blob() : this.#held.taken().blob();
  }

  override formData(): Promise<FormData> {
    return this.#held === null ? super.formData() : this.#held.taken().formData();
  }

  override clone(): Response {
    if (this.#held === null) return super.clone();
    if (this.#held.delegated) return this.#held.taken().clone();
    if (this.#held.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    return new BufferedResponse(this.#held.peek()!.slice(), { status: this.status, statusText: this.statusText, headers: this.headers });
  }
}

/**
 * How convex-test's `fetch` makes an HTTP action's Request (see
 * convexTestInternals.ts): buffered when the engine hands it bytes, Node's
 * own for anything else.
 */
export function httpActionRequest(url: string | URL, init: { method?: string; headers?: unknown; body?: unknown } = {}): Request {
  const body = init.body;
  if ((body === undefined || body === null || body instanceof Uint8Array) && (Array.isArray(init.headers) || init.headers instanceof Headers)) {
    return new BufferedRequest(url, { method: init.method ?? "GET", headers: init.headers as BufferedRequestInit["headers"], body: body ?? null });
  }
  return new NodeRequest(url, init as RequestInit);
}
