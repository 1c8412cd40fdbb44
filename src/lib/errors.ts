import { ConvexError } from "convex/values";

const FALLBACK_MESSAGE = "Something went wrong. Please try again.";

/**
 * The text a user should see for a failure: the `message` of a `ConvexError`
 * (our functions throw `{ code, message }`), a generic line for anything else,
 * since other errors are bugs whose text means nothing to a user.
 */
export function userMessage(error: unknown): string {
  if (error instanceof ConvexError) {
    const data: unknown = error.data;
    if (typeof data === "object" && data !== null && "message" in data && typeof data.message === "string") {
      return data.message;
    }
    if (typeof data === "string") return data;
  }
  return FALLBACK_MESSAGE;
}
