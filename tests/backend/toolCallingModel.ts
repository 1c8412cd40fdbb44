/**
 * A scripted OpenAI-compatible Chat Completions server that calls tools
 * natively, for driving an outside agent's host (the OpenAI Agents SDK) in
 * tests: `POST /v1/chat/completions` answers each request with what the
 * script decides from it — tool calls (`message.tool_calls`, each
 * `{id, type: "function", function: {name, arguments}}` with the arguments as
 * a JSON string, `finish_reason: "tool_calls"`) or text (`finish_reason:
 * "stop"`) — as one JSON `chat.completion`, or, when the request asks for
 * `stream: true`, as `chat.completion.chunk` SSE events ending in
 * `data: [DONE]`. Written from the public Chat Completions reference.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** A message of a request, as the wire carries it. */
export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface ToolCallingRequest {
  messages: WireMessage[];
  /** The function names offered natively in `tools`. */
  tools: string[];
  body: Record<string, unknown>;
}

export type ToolCallingAnswer = { calls: Array<{ name: string; arguments: Record<string, unknown> }> } | { text: string };

export interface ToolCallingModel {
  /** The API root for an OpenAI client, ending in `/v1`. */
  baseURL: string;
  /** Every request received, in order. */
  requests: ToolCallingRequest[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
}

/** The text of a tool message's content (a string, or a list of text parts). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : "")).join("");
  return "";
}

/** Starts the server on 127.0.0.1 (a free port) with `script`. */
export async function startToolCallingModel(script: (request: ToolCallingRequest) => ToolCallingAnswer | Promise<ToolCallingAnswer>): Promise<ToolCallingModel> {
  const requests: ToolCallingRequest[] = [];
  let calls = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? "").split("?")[0].replace(/\/+$/, "");
      if (req.method !== "POST" || path !== "/v1/chat/completions") {
        res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: `No route ${req.method} ${path}`, type: "invalid_request_error" } }));
        return;
      }
      const body = await readJson(req);
      const tools = ((body.tools ?? []) as Array<{ type: string; function?: { name?: string } }>).filter((t) => t.type === "function").map((t) => t.function?.name ?? "");
      const request = { messages: body.messages as WireMessage[], tools, body };
      requests.push(request);
      const answer = await script(request);
      const id = `chatcmpl-${++calls}`;
      const created = Math.floor(Date.now() / 1000);
      const model = typeof body.model === "string" ? body.model : "scripted";
      const toolCalls = "calls" in answer ? answer.calls.map((c, i) => ({ id: `call_${calls}_${i}`, type: "function" as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) : undefined;
      const finish = toolCalls === undefined ? "stop" : "tool_calls";
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      if (body.stream !== true) {
        const message = toolCalls === undefined ? { role: "assistant", content: (answer as { text: string }).text, refusal: null } : { role: "assistant", content: null, refusal: null, tool_calls: toolCalls };
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage }));
        return;
      }
      res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
      const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
        res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] })}\n\n`);
      if (toolCalls === undefined) {
        chunk({ role: "assistant", content: "" }, null);
        chunk({ content: (answer as { text: string }).text }, null);
      } else {
        chunk({ role: "assistant", content: null }, null);
        toolCalls.forEach((call, index) => chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments } }] }, null));
      }
      chunk({}, finish);
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`);
      res.end("data: [DONE]\n\n");
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: String(error), type: "server_error" } }));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
