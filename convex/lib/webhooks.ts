/**
 * Outbound webhooks: where a department's events may be sent, how a
 * delivery is signed, and when a failed one is tried again. Pure, so the
 * Convex functions stay thin and this is tested on its own.
 */
import { MaestroError } from "./errors";

export const WEBHOOK_MAX_ATTEMPTS = 6;
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** The first retry waits this long; each next one twice as long. */
export const WEBHOOK_BASE_DELAY_MS = 5_000;
/** Longest wait before a retry, whatever a Retry-After header asks. */
export const WEBHOOK_MAX_DELAY_MS = 15 * 60_000;
export const SIGNATURE_HEADER = "X-Maestro-Signature";

const PRIVATE_HOST = [
  /^localhost$/i,
  /\.localhost$/i,
  /^127\./,
  /^10\./,
  /^192\.168\./,
  /^172\.(1[6-9]|2\d|3[01])\./,
  /^169\.254\./,
  /^0\./,
  /^\[?::1\]?$/,
  /^\[?f[cd][0-9a-f]{2}:/i,
  /^\[?fe80:/i,
];

/**
 * A webhook URL: https (or http), no credentials in it, and — unless the
 * deployment allows it — not a loopback or private address, so a
 * department admin cannot point Maestro at the machine's own services.
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new MaestroError("INVALID_ARGUMENT", "The webhook URL is not a valid URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new MaestroError("INVALID_ARGUMENT", "A webhook URL starts with https:// (or http://).");
  if (url.username !== "" || url.password !== "") throw new MaestroError("INVALID_ARGUMENT", "Put no user name or password in a webhook URL; deliveries are signed instead.");
  if (raw.length > 2_000) throw new MaestroError("INVALID_ARGUMENT", "A webhook URL is at most 2000 characters.");
  if (!allowPrivate && PRIVATE_HOST.some((re) => re.test(url.hostname))) {
    throw new MaestroError("INVALID_ARGUMENT", "Webhooks may not target loopback or private addresses (set MAESTRO_WEBHOOK_ALLOW_PRIVATE=1 to allow).");
  }
  return url.toString();
}

/** `sha256=<hex>` of HMAC-SHA256(secret, body), as the receiver recomputes it. */
export async function signBody(secret: string, body: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(body)));
  return `sha256=${Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** A fresh signing secret: 32 random bytes, hex. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Is this answer worth another try? Server errors, 408 and 429 are; other client errors are final. */
export function shouldRetry(status: number | null): boolean {
  return status === null || status >= 500 || status === 408 || status === 429;
}

/**
 * How long to wait before attempt `attempt + 1` (attempt counts from 1):
 * exponential from the base, or what Retry-After asks, within the cap.
 */
export function retryDelayMs(attempt: number, retryAfter: string | null): number {
  const backoff = WEBHOOK_BASE_DELAY_MS * 2 ** (attempt - 1);
  let asked: number | null = null;
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) asked = seconds * 1000;
    else if (!Number.isNaN(Date.parse(retryAfter))) asked = Math.max(0, Date.parse(retryAfter) - Date.now());
  }
  return Math.min(WEBHOOK_MAX_DELAY_MS, Math.max(backoff, asked ?? 0));
}
