/**
 * Maestro's MCP server over stdio, for hosts that start a local process: a
 * thin bridge that forwards every JSON-RPC message from stdin to the
 * deployment's Streamable HTTP endpoint (`POST <MAESTRO_SITE_URL>/mcp`,
 * convex/mcpApi.ts) with the agent's key, and writes each answer to stdout.
 * The tools, their schemas, the server's name (`maestro`) and instructions
 * are the endpoint's, so stdio and HTTP offer exactly the same surface.
 *
 *   MAESTRO_SITE_URL   the deployment's HTTP actions URL (default http://127.0.0.1:3211)
 *   MAESTRO_AGENT_KEY  the agent's API key, mk_… (an admin makes it in the agent modal)
 *
 * Run it with `npx maestro-mcp` in the Maestro folder, or from anywhere with
 * `node /path/to/maestro/tools/mcp/bin.js` (docs/api-and-mcp.md). stdout
 * carries the protocol only; everything else goes to stderr.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The offline backend's HTTP actions port (`npm start`). */
export const DEFAULT_SITE_URL = "http://127.0.0.1:3211";
/** Longest wait for one answer from Maestro. */
export const REQUEST_TIMEOUT_MS = 60_000;
/** The JSON-RPC error code for a message Maestro did not answer (an implementation-defined server error). */
export const BRIDGE_ERROR = -32000;

export interface BridgeOptions {
  /** The deployment's HTTP actions URL. */
  siteUrl: string;
  /** The agent's API key. */
  agentKey: string;
  timeoutMs?: number;
}

/** Options from the environment; throws with a message when the key is missing. */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): BridgeOptions {
  const agentKey = env.MAESTRO_AGENT_KEY?.trim() ?? "";
  if (agentKey === "") {
    throw new Error("MAESTRO_AGENT_KEY is not set: an admin creates an agent's API key in Maestro's agent modal (API keys).");
  }
  return { siteUrl: env.MAESTRO_SITE_URL?.trim() || DEFAULT_SITE_URL, agentKey };
}

/**
 * Forwards one message to `POST /mcp` and returns the endpoint's answer
 * (null for a notification's 202). A failure to reach Maestro, or an HTTP
 * refusal of a request (a revoked key's 401), becomes a JSON-RPC error for
 * that request, so the host sees why.
 */
export async function forward(options: BridgeOptions, message: JSONRPCMessage, protocolVersion: string | null): Promise<JSONRPCMessage | null> {
  const url = `${options.siteUrl.replace(/\/+$/, "")}/mcp`;
  const id = "id" in message && "method" in message ? message.id : null;
  const failed = (text: string): JSONRPCMessage | null => {
    if (id === null) {
      console.error(`maestro-mcp: ${text}`);
      return null;
    }
    return { jsonrpc: "2.0", id, error: { code: BRIDGE_ERROR, message: text } };
  };
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${options.agentKey}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...(protocolVersion === null ? {} : { "MCP-Protocol-Version": protocolVersion }),
      },
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return failed(`Cannot reach Maestro at ${url}: ${error instanceof Error ? error.message : String(error)}${cause}`);
  }
  if (response.status === 202) return null;
  const raw = await response.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Not JSON: reported below.
  }
  if (parsed !== null && typeof parsed === "object" && (parsed as { jsonrpc?: unknown }).jsonrpc === "2.0") return parsed as JSONRPCMessage;
  const reason = parsed !== null && typeof parsed === "object" && typeof (parsed as { error?: unknown }).error === "string" ? (parsed as { error: string }).error : raw.slice(0, 200);
  return failed(`Maestro answered ${response.status} at ${url}: ${reason}`);
}

/** Serves MCP over stdin/stdout until the host goes away. */
export async function main(): Promise<void> {
  let options: BridgeOptions;
  try {
    options = optionsFromEnv();
  } catch (error) {
    console.error(`maestro-mcp: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const transport = new StdioServerTransport();
  // The version initialize settled on, sent with every later request as the transport spec asks.
  let protocolVersion: string | null = null;
  // Answers still on their way when the host closes stdin are written before the process ends.
  const pending = new Set<Promise<void>>();
  transport.onmessage = (message) => {
    const answered = forward(options, message, protocolVersion)
      .then(async (answer) => {
        if (answer === null) return;
        const result = "result" in answer ? (answer.result as { protocolVersion?: unknown }) : null;
        if ("method" in message && message.method === "initialize" && typeof result?.protocolVersion === "string") protocolVersion = result.protocolVersion;
        await transport.send(answer);
      })
      .catch((error: unknown) => console.error(`maestro-mcp: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => pending.delete(answered));
    pending.add(answered);
  };
  transport.onerror = (error) => console.error(`maestro-mcp: ${error.message}`);
  transport.onclose = () => process.exit(0);
  process.stdin.on("end", () => {
    void Promise.allSettled([...pending]).then(() => process.exit(0));
  });
  await transport.start();
}

const entry = process.argv[1] === undefined ? "" : path.resolve(process.argv[1]);
if (entry === fileURLToPath(import.meta.url)) await main();
