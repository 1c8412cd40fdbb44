/**
 * The one error convention. A failure a person or an agent can read is a
 * `MaestroError({ code, message })` (a ConvexError, so its data crosses
 * function boundaries and reaches the client); a bug is a plain `Error`.
 * HTTP endpoints and the MCP server answer a code with its status from
 * `HTTP_STATUS`, and nothing else builds a ConvexError (eslint.config.js).
 */
import { ConvexError } from "convex/values";

/** The fixed set of codes a user can see; the client branches on these. */
export type ErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "INVALID_ARGUMENT"
  | "CONFLICT"
  | "RATE_LIMITED"
  /** Text over a configured size limit (the #maestro chat's), refused before it is scanned. */
  | "TOO_LARGE";

export type ErrorData = {
  code: ErrorCode;
  message: string;
  /** RATE_LIMITED only, where the caller is told when to try again (HTTP `Retry-After`). */
  retryAfterSeconds?: number;
};

/** A failure the caller caused and can read: thrown as `ConvexError({ code, message })`. */
export class MaestroError extends ConvexError<ErrorData> {
  constructor(code: ErrorCode, message: string, retryAfterSeconds?: number) {
    super(retryAfterSeconds === undefined ? { code, message } : { code, message, retryAfterSeconds });
  }
}

/** The HTTP status each code answers with, on every route and in the MCP server. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVALID_ARGUMENT: 400,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  TOO_LARGE: 413,
};

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(HTTP_STATUS, value);
}

/**
 * The `{ code, message }` of a MaestroError, also one rethrown by
 * `ctx.runMutation` in an action (then only a ConvexError with that data);
 * null for anything else (a bug).
 */
export function errorData(error: unknown): ErrorData | null {
  if (!(error instanceof ConvexError)) return null;
  const data: unknown = error.data;
  if (typeof data !== "object" || data === null) return null;
  const { code, message, retryAfterSeconds } = data as { code?: unknown; message?: unknown; retryAfterSeconds?: unknown };
  if (!isErrorCode(code) || typeof message !== "string") return null;
  return typeof retryAfterSeconds === "number" ? { code, message, retryAfterSeconds } : { code, message };
}

/** What a failure says: a MaestroError's message, else the error's own text. */
export function errorMessage(error: unknown): string {
  return errorData(error)?.message ?? (error instanceof Error ? error.message : String(error));
}
