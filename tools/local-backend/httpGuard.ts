/**
 * Request checks shared by the backend's HTTP servers: which Host and Origin
 * may call, how much body may be sent, and what a bad body gets back.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { normalizeHostname } from "../config.js";

/** A request fault with the status and message the client gets. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** True when the request's Host header names one of `allowed` (normalized hostnames). */
export function hostAllowed(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const host = req.headers.host;
  return host !== undefined && allowed.has(normalizeHostname(host));
}

/** `scheme://host[:port]` as browsers send it in Origin; throws for a malformed entry. */
export function normalizeOrigin(origin: string): string {
  const url = URL.canParse(origin) ? new URL(origin) : null;
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new Error(`Allowed origin ${JSON.stringify(origin)} (allowedOrigins / MAESTRO_CORS_ORIGINS) is not an http(s) origin such as http://127.0.0.1:8080`);
  }
  return url.origin;
}

/** Compares secrets without leaking through timing where they first differ (lengths are hashed away too). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Reads the body, at most `limit` bytes. A larger one (by Content-Length, or
 * once the stream passes it) is refused with 413 before more is kept.
 *
 * Read from the stream's events, as `for await` reads them but without its
 * async iterator (a promise per chunk and one to end, plus the iterator's
 * own setup: ~4% of an agent's chat post). A body over the limit is left
 * paused for the 413 to discard, and a request closed before its end
 * rejects with Node's premature-close error, as the loop threw it.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => new HttpError(413, "PayloadTooLarge", `Request body is over ${limit} bytes.`);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        settle();
        // The rest is left to the refusal (sendFailure discards a bounded tail, then closes).
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      settle();
      // A body in one chunk (a small request's) is that chunk: the stream hands it over, no copy.
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    const onClose = () => {
      settle();
      reject(Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** The body as a JSON object; anything else (empty, malformed, `null`, an array, a number) is a 400. */
export async function readJsonObject(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const text = (await readBody(req, limit)).toString("utf8");
  if (text.trim() === "") throw new HttpError(400, "BadRequest", "Request body is empty; expected a JSON object.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "BadRequest", "Request body is not valid JSON.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new HttpError(400, "BadRequest", "Request body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

/** How long and how much of a refused body is read and thrown away, so the client sees the answer instead of a reset. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 1024 * 1024;

/**
 * Answers a failed request: an HttpError with its status and message, anything
 * else with a bare 500 (the stack goes to the log, never to the client).
 */
export function sendFailure(req: IncomingMessage, res: ServerResponse, error: unknown, log: (line: string) => void, what: string): void {
  if (!(error instanceof HttpError)) log(`${what} ${req.method} ${req.url} failed: ${error instanceof Error ? error.stack : String(error)}`);
  if (res.headersSent) {
    res.end();
    return;
  }
  const status = error instanceof HttpError ? error.status : 500;
  const body = error instanceof HttpError ? { code: error.code, message: error.message } : { code: "InternalServerError", message: "Internal server error" };
  if (status === 413) {
    // The rest of the body is not wanted: close after answering, discarding (not keeping) a bounded tail meanwhile.
    res.setHeader("Connection", "close");
    let discarded = 0;
    const timer = setTimeout(() => req.destroy(), LINGER_MS).unref();
    req.on("data", (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > LINGER_BYTES) req.destroy();
    });
    req.on("end", () => clearTimeout(timer));
    req.resume();
  }
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}
