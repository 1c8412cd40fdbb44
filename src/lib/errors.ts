import { ConvexError } from "convex/values";

const FALLBACK_MESSAGE = "Something went wrong. Please try again.";

/**
 * The client's one error convention. Our Convex functions throw
 * `ConvexError({ code, message })` for what a user should see; the browser's
 * own user-facing failures (an upload the storage refused, a sign-in server
 * out of reach) are `ClientError`s; an expected failure that comes back as a
 * value (a slash command's `{ ok: false, error }`) is a `FailureResult`.
 * Anything else is a bug, whose text means nothing to a user.
 */

/** What our functions put in a `ConvexError`. */
export type ServerErrorData = { code?: string; message: string };

/** A failure met in the browser itself, in words fit to show. */
export class ClientError extends Error {}

/** An expected failure returned rather than thrown, with its message. */
export type FailureResult = { ok: false; error: string };

/** The `{ code, message }` of a server's `ConvexError` (a bare string becomes the message), or null for any other error. */
export function serverError(error: unknown): ServerErrorData | null {
  if (!(error instanceof ConvexError)) return null;
  const data: unknown = error.data;
  if (typeof data === "string") return { message: data };
  if (typeof data === "object" && data !== null && "message" in data && typeof data.message === "string") {
    return { code: "code" in data && typeof data.code === "string" ? data.code : undefined, message: data.message };
  }
  return null;
}

/**
 * The text a user should see for a thrown failure: the server's message, a
 * `ClientError`'s, else `fallback`.
 */
export function userMessage(error: unknown, fallback = FALLBACK_MESSAGE): string {
  const server = serverError(error);
  if (server !== null) return server.message;
  if (error instanceof ClientError) return error.message;
  return notFoundId(error) ?? fallback;
}

/** How a table's rows are named when an address holds no id of it. */
const ROW_NOUNS: Record<string, string> = { tasks: "Task", runs: "Run", channels: "Channel", agents: "Agent", channelMessages: "Message", departments: "Department" };

/**
 * "Run not found." for the argument validator's refusal of a string that is
 * no id of the table (a mistyped or truncated address): to the person it is
 * an unknown id like any other, not "Something went wrong". Null otherwise.
 */
export function notFoundId(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  // Convex words it "ArgumentValidationError … Validator: v.id("runs")"; the offline backend (convex-test) "Expected ID for table "runs"".
  const match = /ArgumentValidationError[\s\S]*?Validator: v\.id\("(\w+)"\)/.exec(error.message) ?? /Validator error: Expected ID for table "(\w+)"/.exec(error.message);
  const table = match?.[1];
  if (table === undefined) return null;
  return `${ROW_NOUNS[table] ?? "Item"} not found.`;
}

/** Whether a resolved value is a failure reported as a value. */
export function isFailureResult(value: unknown): value is FailureResult {
  return typeof value === "object" && value !== null && "ok" in value && value.ok === false && "error" in value && typeof value.error === "string";
}
