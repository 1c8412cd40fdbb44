/**
 * The demo model (offline, rule-based): an OpenAI-compatible server on
 * 127.0.0.1 that `npm start` runs when no real model is configured, so the
 * squad answers, moves cards and delegates without a network or a key.
 * It speaks just enough of the API for Maestro: `POST /v1/chat/completions`
 * (streamed with `"stream": true`, as the brain asks) and `GET /v1/models`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { countTokens } from "../../convex/lib/tokens";
import { replyPaceMs } from "./pacing";
import { demoPaceMs, demoReply } from "./rules";
import { nativeAnswer, requestToolNames, textConversation } from "./native";
import { pieces, sendCompletionStream } from "./sse";

export { demoReply };

export const DEMO_MODEL_ID = "maestro-demo";
export const DEMO_MODEL_LABEL = "demo model (offline, rule-based)";
/** Largest request body accepted; Maestro's prompts are far smaller. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface DemoModel {
  /** The API root for an OpenAI client, ending in `/v1`. */
  baseURL: string;
  close(): Promise<void>;
}

/** Starts the demo model on 127.0.0.1; port 0 (the default) picks a free one. `paceMs`: the wait between streamed pieces (pacing.ts; 0, instant, by default). */
export async function startDemoModel(options: { port?: number; paceMs?: number } = {}): Promise<DemoModel> {
  let completions = 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendError(res, 500, `The demo model failed: ${error instanceof Error ? error.message : String(error)}`, "server_error");
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? "/").split("?")[0].replace(/\/+$/, "");
    if (req.method === "GET" && path === "/v1/models") {
      sendJson(res, 200, { object: "list", data: [{ id: DEMO_MODEL_ID, object: "model", created: 0, owned_by: "maestro" }] });
      return;
    }
    if (path !== "/v1/chat/completions") {
      sendError(res, 404, `The demo model serves POST /v1/chat/completions and GET /v1/models, not ${req.method} ${req.url}.`, "invalid_request_error");
      return;
    }
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      sendError(res, 405, "Use POST for /v1/chat/completions.", "invalid_request_error");
      return;
    }
    const body = await readJson(req);
    if (!body.ok) {
      sendError(res, body.status, body.message, "invalid_request_error");
      return;
    }
    const request = body.value as { stream?: unknown; messages?: unknown; tools?: unknown; stream_options?: { include_usage?: unknown } };
    // Native tool calls are read into the text form the rules answer, and their answer goes out as tool_calls (native.ts).
    const messages = textConversation(request.messages, request.tools);
    if (messages === null) {
      sendError(res, 400, '"messages" must be a non-empty array of {"role": "system"|"user"|"assistant"|"tool", "content": string}.', "invalid_request_error", "messages");
      return;
    }
    const content = demoReply(messages);
    const answer = nativeAnswer(content, requestToolNames(request.tools));
    const pace = replyPaceMs(demoPaceMs(messages), options.paceMs ?? 0);
    // OpenAI's accounting: each message costs its text plus about 3 tokens, and the reply is primed with 3 more.
    // Native tools count as their JSON (a little more than OpenAI's own rendering of them); the text view's tools section does not count twice.
    const toolTokens = Array.isArray(request.tools) && request.tools.length > 0 ? countTokens(JSON.stringify(request.tools)) : 0;
    const promptTokens = (Array.isArray(request.messages) ? (request.messages as Array<{ content?: unknown; tool_calls?: unknown }>) : []).reduce(
      (sum, m) => sum + 3 + countTokens(typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")) + (m.tool_calls === undefined ? 0 : countTokens(JSON.stringify(m.tool_calls))),
      3 + toolTokens,
    );
    const completionTokens = countTokens(content);
    completions += 1;
    if (request.stream === true) {
      await sendCompletionStream(res, {
        id: `chatcmpl-demo-${completions}`,
        model: DEMO_MODEL_ID,
        pieces: pieces(answer.text),
        calls: answer.calls,
        between: pace > 0 ? () => new Promise<void>((resolve) => setTimeout(resolve, pace)) : undefined,
        usage: request.stream_options?.include_usage === true ? { prompt_tokens: promptTokens, completion_tokens: completionTokens } : null,
      });
      return;
    }
    sendJson(res, 200, {
      id: `chatcmpl-demo-${completions}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: DEMO_MODEL_ID,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: answer.calls.length > 0 && answer.text === "" ? null : answer.text,
            refusal: null,
            ...(answer.calls.length === 0 ? {} : { tool_calls: answer.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) }),
          },
          finish_reason: answer.calls.length > 0 ? "tool_calls" : "stop",
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Read to the end even when too large, so the client still hears why.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) return { ok: false, status: 413, message: `The request body is over ${MAX_BODY_BYTES} bytes.` };
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { ok: false, status: 400, message: "The request body must be a JSON object." };
    }
    return { ok: true, value };
  } catch {
    return { ok: false, status: 400, message: "The request body is not valid JSON." };
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, message: string, type: string, param: string | null = null) {
  sendJson(res, status, { error: { message, type, param, code: null } });
}
