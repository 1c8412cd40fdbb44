import { ConvexError } from "convex/values";

/** The fixed set of codes a user can see; the client branches on these. */
export type ErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "INVALID_ARGUMENT"
  | "CONFLICT"
  | "RATE_LIMITED";

/** A failure the caller caused and can read: thrown as `ConvexError({ code, message })`. */
export class MaestroError extends ConvexError<{ code: ErrorCode; message: string }> {
  constructor(code: ErrorCode, message: string) {
    super({ code, message });
  }
}
