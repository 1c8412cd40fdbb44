/**
 * JSON-RPC 2.0 as MCP uses it, as plain values: one message parsed from a
 * request body, and the answers built. No transport here (convex/mcpApi.ts
 * is the Streamable HTTP edge).
 */

/** The JSON-RPC error codes MCP uses. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

export type RpcId = string | number;

export type RpcMessage =
  | { kind: "request"; id: RpcId; method: string; params: Record<string, unknown> }
  | { kind: "notification"; method: string; params: Record<string, unknown> }
  /** A response from the client (to a request the server never sends): acknowledged, nothing else. */
  | { kind: "response" };

export interface RpcError {
  jsonrpc: "2.0";
  id: RpcId | null;
  error: { code: number; message: string; data?: unknown };
}

export function rpcResult(id: RpcId, result: unknown) {
  return { jsonrpc: "2.0" as const, id, result };
}

export function rpcError(id: RpcId | null, code: number, message: string, data?: unknown): RpcError {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

function isId(value: unknown): value is RpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * One JSON-RPC message from a request body's text, or the error to answer
 * (a parse error, a batch — which MCP since 2025-06-18 no longer has — or a
 * malformed message).
 */
export function parseRpcMessage(raw: string): RpcMessage | RpcError {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return rpcError(null, RPC.PARSE_ERROR, "Parse error: the body is not JSON.");
  }
  if (Array.isArray(value)) return rpcError(null, RPC.INVALID_REQUEST, "Invalid Request: send one JSON-RPC message per request (no batches).");
  if (value === null || typeof value !== "object") return rpcError(null, RPC.INVALID_REQUEST, "Invalid Request: a JSON-RPC message is an object.");
  const message = value as Record<string, unknown>;
  const id = isId(message.id) ? message.id : null;
  if (message.jsonrpc !== "2.0") return rpcError(id, RPC.INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0".');
  if (message.method === undefined && ("result" in message || "error" in message) && isId(message.id)) return { kind: "response" };
  if (typeof message.method !== "string" || message.method === "") return rpcError(id, RPC.INVALID_REQUEST, 'Invalid Request: "method" must be a string.');
  if ("id" in message && !isId(message.id)) return rpcError(null, RPC.INVALID_REQUEST, 'Invalid Request: "id" must be a string or a number.');
  const params = message.params ?? {};
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    return rpcError(id, RPC.INVALID_PARAMS, 'Invalid params: "params" must be an object.');
  }
  if (id === null) return { kind: "notification", method: message.method, params: params as Record<string, unknown> };
  return { kind: "request", id, method: message.method, params: params as Record<string, unknown> };
}

/** MCP protocol versions this server speaks, newest first. */
export const MCP_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
/** What a request without an MCP-Protocol-Version header is taken to speak (the transport spec's rule for older clients). */
export const MCP_DEFAULT_PROTOCOL_VERSION = "2025-03-26";

/** The version to answer an initialize with: the client's when this server speaks it, else the newest it speaks. */
export function negotiateProtocolVersion(requested: unknown): string {
  return typeof requested === "string" && (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : MCP_PROTOCOL_VERSIONS[0];
}
