/**
 * MCP over Streamable HTTP on the HTTP actions origin (convex/http.ts):
 *
 *   POST /mcp   one JSON-RPC message; a request is answered with one JSON-RPC
 *               response as `application/json` (no SSE stream), a
 *               notification or response with 202 and no body
 *   GET  /mcp   405 (this server opens no stream of its own)
 *   DELETE /mcp 405 (there are no sessions to end)
 *
 * Authenticated by the agent's API key (`Authorization: Bearer mk_…`) on
 * every request, initialize included: 401 without a good key, 403 for an
 * architect's. Methods: `initialize` (the version negotiated as the spec
 * says: the client's when spoken here, else the newest), `ping`,
 * `tools/list`, `tools/call`, and the `notifications/*` a client sends.
 * Tools are convex/mcpTools.ts's table, listed under their wire names
 * (lib/toolNames) and called by either name; each runs as one request of
 * the HTTP API, handed in-process to that route (`dispatch`), so scopes,
 * limits, scanning and refusals are the API's own. A refusal is a tool
 * result with `isError` and `{"error", "status"}` (and `retryAfterSeconds`
 * when rate limited); an unknown tool is JSON-RPC error -32602.
 */
import { z } from "zod";
import { internal } from "./_generated/api";
import type { ActionCtx } from "./_generated/server";
import { appOriginsFromEnv } from "./lib/config";
import { errorData } from "./lib/errors";
import { agentKeyHash, BEARER_CHALLENGE, json, refuseForeignOrigin, RequestRefusal, type HttpRoute } from "./lib/httpJson";
import {
  MCP_DEFAULT_PROTOCOL_VERSION,
  MCP_PROTOCOL_VERSIONS,
  negotiateProtocolVersion,
  parseRpcMessage,
  RPC,
  rpcError,
  rpcResult,
  type RpcId,
} from "./lib/jsonRpc";
import { toolNameFromWire, wireNameTable, wireToolName } from "./lib/toolNames";
import { MCP_INSTRUCTIONS, MCP_TOOLS, type MaestroHttp, type McpTool } from "./mcpTools";

/** The server's name in initialize (the capability the specs call `maestro.chat` is one part of it). */
export const MCP_SERVER_NAME = "maestro";
/** The server's version in initialize: the app's (package.json). */
export const MCP_SERVER_VERSION = "0.1.0";
/** Largest JSON-RPC message read (a post is at most 10,000 characters). */
export const MAX_MCP_BODY_BYTES = 256 * 1024;

/** How a route of the HTTP API is called in-process: its handler, with its refusals answered (lib/httpJson answering). */
export type Dispatch = (ctx: ActionCtx, request: Request) => Promise<Response>;

const WIRE_NAMES = wireNameTable(MCP_TOOLS.map((t) => t.name));
const BY_NAME = new Map(MCP_TOOLS.map((t) => [t.name, t]));

/** A JSON Schema for MCP: no `$schema`, and `type: "object"` at the top (a union of objects gets it beside its anyOf). */
function mcpSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest.type === "object" ? rest : { type: "object", ...rest };
}

interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

let listed: Array<{ tool: McpTool; listed: ListedTool }> | null = null;

/** The tools as tools/list gives them, built once. */
function listedTools() {
  listed ??= MCP_TOOLS.map((tool) => ({
    tool,
    listed: {
      name: wireToolName(tool.name),
      title: tool.title,
      description: tool.description,
      inputSchema: mcpSchema(tool.input, "input"),
      outputSchema: mcpSchema(tool.output, "output"),
      annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: false, idempotentHint: tool.readOnly, openWorldHint: false },
    },
  }));
  return listed;
}

/** A refusal of the HTTP API, as a tool reports it. */
class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}

/** The HTTP API as one key's agent, called in-process through `dispatch`. */
function inProcessApi(ctx: ActionCtx, dispatch: Dispatch, request: Request): MaestroHttp {
  const origin = new URL(request.url).origin;
  const authorization = request.headers.get("Authorization") ?? "";
  const call = async (method: "GET" | "POST", path: string, body?: Record<string, unknown>) => {
    const url = new URL(`${origin}${path}`);
    // An argument of "." or ".." would make the URL point elsewhere (`/tasks/..` is `/`): a tool reaches only its own route.
    if (url.pathname !== path.split("?")[0]) throw new ApiRefusal(404, "Not found: an id is never . or ..", undefined);
    const response = await dispatch(
      ctx,
      new Request(url, {
        method,
        headers: { Authorization: authorization, Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: reported with the status below.
    }
    if (response.ok) return parsed;
    const answer = (parsed ?? {}) as { error?: unknown; retryAfterSeconds?: unknown };
    const header = Number(response.headers.get("Retry-After") ?? "");
    const retryAfter = typeof answer.retryAfterSeconds === "number" ? answer.retryAfterSeconds : Number.isFinite(header) && header > 0 ? header : undefined;
    throw new ApiRefusal(response.status, typeof answer.error === "string" ? answer.error : `${response.status} ${response.statusText}`.trim(), retryAfter);
  };
  return {
    get: (path, query = {}) => {
      const entries = Object.entries(query).filter((e): e is [string, string | number] => e[1] !== undefined);
      return call("GET", entries.length === 0 ? path : `${path}?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`);
    },
    post: (path, body) => call("POST", path, body),
  };
}

function textResult(value: unknown, isError: boolean) {
  const content = [{ type: "text" as const, text: JSON.stringify(value) }];
  return isError ? { content, isError: true } : { content, structuredContent: value };
}

/** `tools/call`: the tool by either name, its arguments checked, then its one call of the HTTP API. */
async function callTool(api: MaestroHttp, id: RpcId, params: Record<string, unknown>) {
  const name = typeof params.name === "string" ? params.name : "";
  const toolName = toolNameFromWire(WIRE_NAMES, name);
  const tool = toolName === undefined ? undefined : BY_NAME.get(toolName);
  if (tool === undefined) return rpcError(id, RPC.INVALID_PARAMS, `Unknown tool: ${JSON.stringify(name.slice(0, 80))}. tools/list names the tools.`);
  const given = params.arguments ?? {};
  if (given === null || typeof given !== "object" || Array.isArray(given)) return rpcError(id, RPC.INVALID_PARAMS, 'Invalid params: "arguments" must be an object.');
  const args: Record<string, unknown> = { ...(given as Record<string, unknown>) };
  for (const [old, current] of Object.entries(tool.aliases ?? {})) {
    if (old in args && !(current in args)) args[current] = args[old];
    delete args[old];
  }
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    return rpcResult(id, textResult({ error: `Invalid arguments for tool ${wireToolName(tool.name)}: ${z.prettifyError(parsed.error)}`, status: 400 }, true));
  }
  try {
    return rpcResult(id, textResult(await tool.call(api, parsed.data), false));
  } catch (error) {
    if (!(error instanceof ApiRefusal)) throw error;
    const body = error.retryAfterSeconds === undefined ? { error: error.message, status: error.status } : { error: error.message, status: error.status, retryAfterSeconds: error.retryAfterSeconds };
    return rpcResult(id, textResult(body, true));
  }
}

/** Whether the #maestro chat is on for the key's department (its tools are listed only then). */
async function chatEnabled(api: MaestroHttp): Promise<boolean> {
  const status = (await api.get("/mcp/chat.status")) as { enabled?: unknown } | null;
  return status?.enabled === true;
}

async function answer(api: MaestroHttp, id: RpcId, method: string, params: Record<string, unknown>) {
  switch (method) {
    case "initialize":
      return rpcResult(id, {
        protocolVersion: negotiateProtocolVersion(params.protocolVersion),
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: MCP_SERVER_NAME, title: "Maestro", version: MCP_SERVER_VERSION },
        instructions: MCP_INSTRUCTIONS,
      });
    case "ping":
      return rpcResult(id, {});
    case "tools/list": {
      const chat = await chatEnabled(api);
      return rpcResult(id, { tools: listedTools().filter((t) => chat || t.tool.chat !== true).map((t) => t.listed) });
    }
    case "tools/call":
      return await callTool(api, id, params);
    default:
      return rpcError(id, RPC.METHOD_NOT_FOUND, `Method not found: ${method.slice(0, 80)}. This server answers initialize, ping, tools/list and tools/call.`);
  }
}

/** The request's body text, refused over MAX_MCP_BODY_BYTES. */
async function boundedText(request: Request): Promise<string> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > MAX_MCP_BODY_BYTES) throw new RequestRefusal("TOO_LARGE", `A message is at most ${MAX_MCP_BODY_BYTES} bytes.`);
  const raw = await request.text();
  if (new TextEncoder().encode(raw).length > MAX_MCP_BODY_BYTES) throw new RequestRefusal("TOO_LARGE", `A message is at most ${MAX_MCP_BODY_BYTES} bytes.`);
  return raw;
}

/** The MCP routes, calling the rest of the API through `dispatch` (http.ts builds it from its route table). */
export function mcpRoutes(dispatch: Dispatch): HttpRoute[] {
  const notAllowed = async () => new Response(JSON.stringify({ error: "This MCP endpoint takes POST only (no SSE stream, no sessions)." }), { status: 405, headers: { Allow: "POST", "Content-Type": "application/json" } });
  return [
    {
      path: "/mcp",
      method: "POST",
      challenge: BEARER_CHALLENGE,
      handler: async (ctx, request) => {
        // A browser page on another site must not drive an agent's key (DNS rebinding included): the spec's Origin check.
        refuseForeignOrigin(request, appOriginsFromEnv());
        const keyHash = agentKeyHash(request);
        await ctx.runQuery(internal.agentApiKeys.checkKey, { keyHash });
        const version = request.headers.get("MCP-Protocol-Version") ?? MCP_DEFAULT_PROTOCOL_VERSION;
        if (!(MCP_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
          return json(400, rpcError(null, RPC.INVALID_REQUEST, `Unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40))}: this server speaks ${MCP_PROTOCOL_VERSIONS.join(", ")}.`));
        }
        const message = parseRpcMessage(await boundedText(request));
        if ("error" in message) return json(400, message);
        if (message.kind !== "request") return new Response(null, { status: 202 });
        const api = inProcessApi(ctx, dispatch, request);
        try {
          return json(200, await answer(api, message.id, message.method, message.params));
        } catch (error) {
          // A refusal before any tool ran (the key went bad mid-call) is the caller's; anything else is a bug, reported without its details.
          const data = errorData(error);
          if (data !== null) return json(200, rpcError(message.id, RPC.INVALID_REQUEST, data.message));
          console.error("mcp: internal error", error);
          return json(200, rpcError(message.id, RPC.INTERNAL_ERROR, "Internal error."));
        }
      },
    },
    { path: "/mcp", method: "GET", challenge: null, handler: notAllowed },
    { path: "/mcp", method: "DELETE", challenge: null, handler: notAllowed },
  ];
}
