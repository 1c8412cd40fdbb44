/**
 * Outbound webhooks: where a department's events may be sent, how a
 * delivery is signed, and when a failed one is tried again. Pure, so the
 * Convex functions stay thin and this is tested on its own.
 */
import { MaestroError } from "./errors";
import { mintedKeyBytes, mintKey, WEBHOOK_SECRET } from "./secrets/minted";
import { hmacSha256Hex } from "./sha256";

export const WEBHOOK_MAX_ATTEMPTS = 6;
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** The first retry waits this long; each next one twice as long. */
export const WEBHOOK_BASE_DELAY_MS = 5_000;
/** Longest wait before a retry, whatever a Retry-After header asks. */
export const WEBHOOK_MAX_DELAY_MS = 15 * 60_000;
export const SIGNATURE_HEADER = "X-Maestro-Signature";

/** What a failed delivery tells the admin: never the receiver's status or error, so the settings are no port scanner. */
export const DELIVERY_FAILED = "The receiver could not be reached or did not accept the delivery.";

/** The setting a self-hoster sets to deliver to their own network (loopback and private addresses). */
export const ALLOW_PRIVATE_SETTING = "MAESTRO_WEBHOOK_ALLOW_PRIVATE";

/**
 * Host names that mean this machine or its own network, whatever DNS says:
 * localhost and the names reserved for local networks (`.local`, `.internal`
 * — cloud metadata lives at metadata.google.internal — `.localdomain`,
 * `.home.arpa`, `.lan`), and a single label with no dot, which only a local
 * resolver's search list can answer.
 */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|localdomain|home\.arpa|lan)\.?$|^[^.]+\.?$/i;

/** An IPv4 dotted quad as its four bytes, or null. */
function ipv4Bytes(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => Number.isInteger(b) && b <= 255) ? bytes : null;
}

/** An IPv6 address (brackets, a zone and an embedded dotted quad allowed) as its eight 16-bit groups, or null. */
function ipv6Groups(text: string): number[] | null {
  let body = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!body.includes(":")) return null;
  const tail = /:(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (tail !== null) {
    const v4 = ipv4Bytes(tail[1]);
    if (v4 === null) return null;
    body = `${body.slice(0, tail.index)}:${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  if ([...head, ...rest].some(Number.isNaN)) return null;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
}

/** Is this IPv4 address one the public internet routes (not loopback, private, link-local, shared, reserved, multicast)? */
function publicIpv4([a, b, c]: number[]): boolean {
  if (a === 0 || a === 10 || a === 127) return false; // "this network", private, loopback
  if (a === 100 && b >= 64 && b <= 127) return false; // shared address space (carrier NAT)
  if (a === 169 && b === 254) return false; // link-local, cloud metadata
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false; // IETF protocol assignments, documentation
  if (a === 198 && (b === 18 || b === 19)) return false; // benchmarking
  if (a === 198 && b === 51 && c === 100) return false; // documentation
  if (a === 203 && b === 0 && c === 113) return false; // documentation
  return a < 224; // multicast, reserved and broadcast above
}

/**
 * Whether a webhook may be delivered to this IP address: only addresses the
 * public internet routes. Refused: loopback, private, link-local, shared,
 * unique-local, multicast and unspecified addresses, every IPv4-mapped
 * (`::ffff:a.b.c.d`) and -compatible (`::a.b.c.d`) IPv6 address, and the
 * NAT64 and 6to4 forms of a refused IPv4 address. Text that is no IP
 * address is refused too.
 */
export function isPublicAddress(address: string): boolean {
  const v4 = ipv4Bytes(address);
  if (v4 !== null) return publicIpv4(v4);
  const g = ipv6Groups(address);
  if (g === null) return false;
  const embedded = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  if (g.slice(0, 6).every((x) => x === 0)) return false; // unspecified, loopback, and IPv4-compatible (deprecated; never routed)
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return false; // IPv4-mapped: a receiver has a plain address
  if (g[0] === 0x64 && g[1] === 0xff9b) return publicIpv4(embedded(g[6], g[7])); // NAT64
  if (g[0] === 0x2002) return publicIpv4(embedded(g[1], g[2])); // 6to4
  if ((g[0] & 0xfe00) === 0xfc00) return false; // unique-local fc00::/7
  if ((g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xffc0) === 0xfec0) return false; // link-local, old site-local
  if ((g[0] & 0xff00) === 0xff00) return false; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return false; // documentation
  return true;
}

/** The host of a URL as an IP address when it is written as one (IPv6 without brackets), else null. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, "");
  return ipv4Bytes(bare) !== null || ipv6Groups(bare) !== null ? bare : null;
}

/**
 * A webhook URL: https (or http), no credentials in it, and — unless the
 * deployment allows it — not a loopback or private address or a name for
 * this machine, so a department admin cannot point Maestro at the
 * machine's own services. Names that resolve to such an address are
 * refused at delivery, when they are resolved (convex/webhookDelivery.ts).
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
  if (!allowPrivate && !mayTarget(url.hostname)) {
    throw new MaestroError("INVALID_ARGUMENT", `Webhooks may not target loopback or private addresses (set ${ALLOW_PRIVATE_SETTING}=1 to allow).`);
  }
  return url.toString();
}

/**
 * Whether a URL's host (as `new URL` gives it: every IPv4 spelling —
 * `127.1`, `0x7f000001`, `2130706433`, octal — already made a dotted quad,
 * IPv6 in brackets) may be a target before it is resolved: a public IP
 * address, or a name that is not this machine's or its network's. The one
 * check for every address Maestro hands out to be reached: webhooks and
 * `web_fetch`. A name can still resolve to a private address: whoever
 * resolves it checks the address again (webhookDelivery, and the executor of
 * an external tool, as docs/api.md asks).
 */
export function mayTarget(hostname: string): boolean {
  const literal = literalAddress(hostname);
  if (literal !== null) return isPublicAddress(literal);
  return !LOCAL_NAME.test(hostname) && hostname !== "";
}

/** `sha256=<hex>` of HMAC-SHA256(secret, body), as the receiver recomputes it. */
export async function signBody(secret: string, body: string): Promise<string> {
  return `sha256=${await hmacSha256Hex(secret, body)}`;
}

/** A fresh signing secret: 32 random bytes, hex. */
export function newWebhookSecret(): string {
  return mintKey(WEBHOOK_SECRET, crypto.getRandomValues(new Uint8Array(mintedKeyBytes(WEBHOOK_SECRET))));
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
