/**
 * JSON over HTTP for the endpoints in convex/http.ts and convex/messagingApi.ts:
 * answers, request bodies, an agent API key from `Authorization: Bearer`,
 * and a thrown MaestroError turned into its HTTP status.
 */
import { ConvexError } from "convex/values";
import { hashApiKey, isApiKeyShape } from "../agentApiKeys";
import type { ErrorCode } from "./errors";

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

export const UNAUTHORIZED_AGENT = (message: string) =>
  new Response(JSON.stringify({ error: message }), {
    status: 401,
    headers: { "Content-Type": "application/json", "WWW-Authenticate": 'Bearer realm="Maestro agent API"' },
  });

/** The key's hash, or the 401 to answer: the key itself never leaves this action. */
export function agentKeyHash(request: Request): { hash: string } | { refusal: Response } {
  const header = request.headers.get("Authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match === null) return { refusal: UNAUTHORIZED_AGENT("Missing API key: send Authorization: Bearer <agent API key>.") };
  if (!isApiKeyShape(match[1])) return { refusal: UNAUTHORIZED_AGENT("Unknown API key.") };
  return { hash: hashApiKey(match[1]) };
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

export function apiError(result: { status: number; message: string }): Response {
  return result.status === 401 ? UNAUTHORIZED_AGENT(result.message) : json(result.status, { error: result.message });
}

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVALID_ARGUMENT: 400,
  CONFLICT: 409,
  RATE_LIMITED: 429,
};

/** A user-caused failure (MaestroError / ConvexError {code, message}) as its HTTP answer; anything else is rethrown (a 500). */
export function errorResponse(error: unknown): Response {
  if (error instanceof ConvexError) {
    const data = error.data as { code?: string; message?: string } | string;
    if (typeof data === "string") return json(400, { error: data });
    const status = STATUS_BY_CODE[(data.code ?? "") as ErrorCode];
    if (status !== undefined) return apiError({ status, message: data.message ?? "Refused." });
  }
  throw error;
}
