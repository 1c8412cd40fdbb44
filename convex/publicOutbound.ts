"use node";
/**
 * Outbound requests to addresses that people or agents gave Maestro (a
 * webhook, an A2A push target, an A2A agent's endpoint), checked where the
 * connection is made: the host name is resolved for this very connection and
 * every address it resolves to must be public (lib/webhooks
 * `isPublicAddress`), so a name that resolves to the machine itself, or
 * changes its answer between a check and the connection, reaches nothing.
 * No redirect is followed. Node-only helpers for the three actions that send
 * (webhookDelivery, a2aServerPush, a2aRemoteCalls): no Convex function here.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isPublicAddress } from "./lib/webhooks";

/** The address is not one `what` may reach: final, never retried. */
export class RefusedAddress extends Error {}

/**
 * DNS for one connection: every address the name resolves to must be
 * public, and the connection uses what was checked; `what` names who is
 * refused in the error ("webhooks", "A2A agents").
 */
export function publicOnlyLookup(what: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses: LookupAddress[]) => {
      if (error !== null) return callback(error, "", 0);
      if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
        return callback(new RefusedAddress(`${hostname} resolves to an address ${what} may not reach`), "", 0);
      }
      if (options.all === true) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * POSTs `body` to an already checked URL once, on a fresh connection,
 * following no redirect; the answer's status and Retry-After. Without
 * `allowPrivate` the connection goes only to public addresses.
 */
export async function postOnce(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { allowPrivate: boolean; timeoutMs: number; what: string },
): Promise<{ status: number; retryAfter: string | null }> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return await new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
        // A fresh connection each time, resolved and checked for this request (no pooled socket skips the check).
        agent: false,
        lookup: options.allowPrivate ? undefined : publicOnlyLookup(options.what),
        timeout: options.timeoutMs,
      },
      (response) => {
        const retryAfter = response.headers["retry-after"];
        response.resume();
        resolve({ status: response.statusCode ?? 0, retryAfter: typeof retryAfter === "string" ? retryAfter : null });
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on("error", reject);
    request.end(body);
  });
}
