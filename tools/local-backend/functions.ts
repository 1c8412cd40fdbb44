/**
 * What a function call is to the servers: its kinds, who calls, what comes
 * back, how its path is spelled, and its errors as Convex sends them to
 * clients. Plain data and pure functions; every other engine file builds on it.
 */
import { convexToJson, type JSONValue, type Value } from "convex/values";
import type { UserIdentity } from "convex/server";

/** Path of the app itself among the deployment's components. */
export const ROOT = "";

export type FunctionType = "query" | "mutation" | "action";

export interface FunctionInfo {
  type: FunctionType | "httpAction";
  visibility: "public" | "internal";
}

/** Who is calling: a user (possibly anonymous) or the deployment's admin. */
export type Caller = { kind: "user"; identity: UserIdentity | null } | { kind: "admin" };

export interface FunctionOutcome {
  ok: boolean;
  /** `convexToJson` of the result on success. */
  value?: JSONValue;
  errorMessage?: string;
  /** `convexToJson` of a ConvexError's data. */
  errorData?: JSONValue;
  logLines: string[];
  /** Commit timestamp of a successful mutation (nanoseconds). */
  ts?: bigint;
}

export class FunctionNotFoundError extends Error {}

/** An HTTP request for an action, as the site server read it. */
export interface HttpActionRequest {
  /** The request target: path and query ("/mcp/chat.post?x=1"). */
  pathAndQuery: string;
  method: string;
  headers: Array<[string, string]>;
  /** Absent for GET and HEAD. */
  body: Uint8Array<ArrayBuffer> | undefined;
  /** Scheme, host and port the client called (`http://127.0.0.1:3211`): the action's `request.url` is on it. */
  origin?: string;
}

/** "tasks.js:list" / "tasks" → "tasks:list" / "tasks:default", as the Convex client canonicalizes. */
export function canonicalUdfPath(udfPath: string): string {
  const [modulePath, exportName = "default"] = splitUdfPath(udfPath);
  return `${modulePath}:${exportName}`;
}

export function splitUdfPath(udfPath: string): [string, string | undefined] {
  const colon = udfPath.lastIndexOf(":");
  const modulePath = (colon === -1 ? udfPath : udfPath.slice(0, colon)).replace(/\.js$/, "");
  return [modulePath, colon === -1 ? undefined : udfPath.slice(colon + 1)];
}

/** Error text and data as Convex sends them to clients. */
export function describeError(error: unknown): FunctionOutcome {
  if (error instanceof FunctionNotFoundError) return { ok: false, errorMessage: error.message, logLines: [] };
  const isConvexError = typeof error === "object" && error !== null && Symbol.for("ConvexError") in error;
  if (isConvexError) {
    const data = (error as { data: Value }).data;
    const message = typeof data === "string" ? data : JSON.stringify(convexToJson(data));
    return { ok: false, errorMessage: `Uncaught ConvexError: ${message}`, errorData: convexToJson(data), logLines: [] };
  }
  const message = error instanceof Error ? `${error.name === "Error" ? "Uncaught Error" : error.name}: ${error.message}` : String(error);
  return { ok: false, errorMessage: message, logLines: [] };
}
