/**
 * JSON over HTTP for convex/http.ts and convex/messagingApi.ts: answers,
 * request bodies, an agent API key from `Authorization: Bearer`, and a
 * thrown MaestroError turned into its status through lib/errors' one table.
 */
import type { ActionCtx } from "../_generated/server";
import { hashApiKey, isApiKeyShape } from "./apiKeys";
import { errorData, HTTP_STATUS, MaestroError } from "./errors";

/**
 * One HTTP route of convex/http.ts's table: where it answers, who may call
 * it (the challenge a 401 names; null for none) and its handler, which
 * throws MaestroErrors for refusals.
 */
export type HttpRoute = ({ path: string } | { pathPrefix: string }) & {
  method: "GET" | "POST" | "OPTIONS" | "DELETE";
  challenge: string | null;
  handler: (ctx: ActionCtx, request: Request) => Promise<Response>;
  /** Applied to every answer, refusals included (CORS headers). */
  cors?: (request: Request, response: Response) => Response;
};

/** The challenge a 401 names: the WebUI password (HTTP Basic) or an agent API key. */
export const BASIC_CHALLENGE = 'Basic realm="Maestro"';
export const BEARER_CHALLENGE = 'Bearer realm="Maestro agent API"';

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** A request an endpoint refuses itself (its body, query or path), before any function ran. */
export class RequestRefusal extends MaestroError {}

/** The client's address, as the proxy in front of the deployment names it (X-Forwarded-For; the offline backend sets it from the socket). */
export function clientAddress(request: Request): string {
  return (request.headers.get("X-Forwarded-For") ?? "").split(",")[0].trim() || "unknown";
}

/** The request's Origin when it is one of `allowed` (the app's origins), else null (also when the request names none). */
export function allowedOrigin(request: Request, allowed: readonly string[]): string | null {
  const origin = request.headers.get("Origin");
  return origin !== null && allowed.includes(origin) ? origin : null;
}

/** A browser's preflight for a route: allowed only from `origins()` (the app's), for `method` and a Content-Type. */
export function preflightFrom(origins: () => readonly string[], method: "POST") {
  return async (_ctx: ActionCtx, request: Request): Promise<Response> => {
    const origin = allowedOrigin(request, origins());
    if (origin === null) return new Response(null, { status: 403 });
    return new Response(null, {
      status: 204,
      headers: {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": method,
        "Access-Control-Allow-Headers": "Content-Type",
        "Access-Control-Max-Age": "600",
        Vary: "Origin",
      },
    });
  };
}

/** The CORS headers for the app's origin on every answer of a route (refusals included, so the app can read them). */
export function corsFrom(origins: () => readonly string[]) {
  return (request: Request, response: Response): Response => {
    const origin = allowedOrigin(request, origins());
    if (origin !== null) {
      response.headers.set("Access-Control-Allow-Origin", origin);
      response.headers.set("Vary", "Origin");
    }
    return response;
  };
}

/**
 * Refuses a browser's request from another site: an Origin that is not one
 * of the app's. Callers that are not browsers send no Origin.
 */
export function refuseForeignOrigin(request: Request, allowed: readonly string[]): void {
  if (request.headers.get("Origin") !== null && allowedOrigin(request, allowed) === null) {
    throw new RequestRefusal("FORBIDDEN", "Requests from this origin are not allowed.");
  }
}

/** Refuses a body not declared JSON: a cross-site form or `text/plain` fetch is sent without a preflight, a JSON one is not. */
export function requireJsonBody(request: Request): void {
  const type = (request.headers.get("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") throw new RequestRefusal("INVALID_ARGUMENT", "Send the body as JSON (Content-Type: application/json).");
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
function bearerToken(request: Request): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("Authorization") ?? "")?.[1] ?? null;
}

/** The key's hash; the key itself never leaves the HTTP action. UNAUTHENTICATED without a well-formed key. */
export function agentKeyHash(request: Request): string {
  const key = bearerToken(request);
  if (key === null) throw new MaestroError("UNAUTHENTICATED", "Missing API key: send Authorization: Bearer <agent API key>.");
  if (!isApiKeyShape(key)) throw new MaestroError("UNAUTHENTICATED", "Unknown API key.");
  return hashApiKey(key);
}

/** The hash of a well-formed key when the request carries one, else undefined (for endpoints a key only refines). */
export function optionalAgentKeyHash(request: Request): string | undefined {
  const key = bearerToken(request);
  return key !== null && isApiKeyShape(key) ? hashApiKey(key) : undefined;
}

/** The request's JSON object body; an empty body counts as `{}`. Null when it is not a JSON object. */
export async function jsonObjectBody(request: Request): Promise<Record<string, unknown> | null> {
  const raw = await request.text();
  if (raw.trim() === "") return {};
  try {
    const body: unknown = JSON.parse(raw);
    return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A user-caused failure (a MaestroError, also one rethrown from a query or
 * mutation the action called) as its HTTP answer `{"error": message}`, a 401
 * naming `challenge`; anything else is rethrown (a 500).
 */
export function errorResponse(error: unknown, challenge: string | null): Response {
  const data = errorData(error);
  if (data === null) throw error;
  const status = HTTP_STATUS[data.code];
  const headers: Record<string, string> = status === 401 && challenge !== null ? { "WWW-Authenticate": challenge } : {};
  if (status !== 429) return json(status, { error: data.message }, headers);
  // Every 429 says when to try again, in whole seconds (RFC 9110 Retry-After); a refusal that did not say waits a second.
  const retryAfterSeconds = Math.max(1, Math.ceil(data.retryAfterSeconds ?? 1));
  return json(status, { error: data.message, retryAfterSeconds }, { ...headers, "Retry-After": String(retryAfterSeconds) });
}

/** An HTTP action's handler whose MaestroErrors answer with their status (errorResponse). */
export function answering<Ctx>(challenge: string | null, handler: (ctx: Ctx, request: Request) => Promise<Response>): (ctx: Ctx, request: Request) => Promise<Response> {
  return async (ctx, request) => {
    try {
      return await handler(ctx, request);
    } catch (error) {
      return errorResponse(error, challenge);
    }
  };
}
