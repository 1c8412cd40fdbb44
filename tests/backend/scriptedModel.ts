import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatMessage } from "../../convex/brain/model";
import { nativeAnswer, requestToolNames, textConversation } from "../../tools/demo-model/native";
import { pieces, sendCompletionStream } from "../../tools/demo-model/sse";

/** One chat completion request as the scripted server received it. */
export interface ScriptedRequest {
  model: string;
  /** The conversation in the text form scripts read (native tool calls and results as `[TOOL: …]` and `=== TOOL RESULTS ===`; tools/demo-model/native.ts). */
  messages: ChatMessage[];
  stream: boolean;
  /** The request body exactly as it came (its `tools`, its `messages` with `tool_calls` and `tool` results). */
  body: { messages: unknown[]; tools?: unknown[]; [key: string]: unknown };
}

/** The last user message of a request: the prompt's question, or the tool results fed back. */
export function lastUser(messages: ChatMessage[]): string {
  return [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
}

/** Whether a request is Jarvis's (his system prompt names him). */
export function isJarvis(messages: ChatMessage[]): boolean {
  return /You are Jarvis \(/.test(messages[0].content);
}

/**
 * What the script answers: the reply text, or an HTTP error (`body` is sent
 * as is; omit it for an empty body). `delayMs` holds the answer back, to test
 * timeouts; `pieceDelayMs` waits between the streamed pieces.
 */
export type ScriptedAnswer =
  | string
  | { status: number; body?: string; delayMs?: number; headers?: Record<string, string> }
  | {
      content: string;
      delayMs?: number;
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
      /** The pieces to send (default: the content in small pieces), and a wait between them. */
      pieces?: string[];
      pieceDelayMs?: number;
    }
  /**
   * The event stream exactly: each object is sent as a `data:` event (a
   * `chat.completion.chunk` as written), each string as written; then
   * `data: [DONE]`, unless `cut` closes the connection after the events.
   */
  | {
      chunks: Array<Record<string, unknown> | string>;
      cut?: boolean;
      delayMs?: number;
      pieceDelayMs?: number;
      /** Told as each event has been handed to the connection (a benchmark's clock). */
      onSent?: (index: number) => void;
    };

export type Script = (request: ScriptedRequest, callIndex: number) => ScriptedAnswer | Promise<ScriptedAnswer>;

export interface ScriptedModel {
  /** The API root to give the client, ending in `/v1`. */
  baseURL: string;
  /** Every chat completion request, in arrival order, retries included. */
  requests: ScriptedRequest[];
  /** Holds back every later answer: for `ms` milliseconds, or until the promise `delay()` returns settles; null stops it. */
  setDelay(delay: number | (() => Promise<unknown>) | null): void;
  close(): Promise<void>;
}

/** The environment that points the app's model client at `model` (key "test-key", default model "scripted"). */
export function scriptedModelEnv(model: { baseURL: string }): Record<string, string> {
  return { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "test-key", MAESTRO_DEFAULT_MODEL: "scripted" };
}

/**
 * An OpenAI-compatible server on 127.0.0.1 that answers
 * `POST /v1/chat/completions` from `script`, for tests of the model layer
 * and the brain without a real model.
 */
export async function startScriptedModel(
  script: Script,
  /**
   * `toolCalls`: how the `[TOOL: …]` lines of a scripted answer go out when the request offers `tools`:
   * as native calls streamed in pieces (the default), as native calls each whole in one chunk, or as text.
   */
  options: { delayMs?: number; toolCalls?: "native" | "whole" | "text" } = {},
): Promise<ScriptedModel> {
  const requests: ScriptedRequest[] = [];
  let delay: number | (() => Promise<unknown>) | null = options.delayMs ?? null;
  const timers = new Set<NodeJS.Timeout>();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted model: ${String(error)}`, type: "server_error" } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      sendJson(res, 404, { error: { message: `scripted model: no route for ${req.method} ${req.url}`, type: "invalid_request_error" } });
      return;
    }
    const body = JSON.parse(await readBody(req)) as { model: string; messages: unknown[]; tools?: unknown[]; stream?: boolean };
    // The app only streams (convex/brain/model.ts); a plain request means a caller went around it.
    if (body.stream !== true) {
      sendJson(res, 400, { error: { message: "scripted model: only streamed completions are served", type: "invalid_request_error" } });
      return;
    }
    const messages = textConversation(body.messages, body.tools);
    if (messages === null) {
      sendJson(res, 400, { error: { message: "scripted model: a message is not one the API allows", type: "invalid_request_error" } });
      return;
    }
    const request: ScriptedRequest = { model: body.model, messages, stream: true, body };
    const callIndex = requests.length;
    requests.push(request);
    const answer = await script(request, callIndex);
    const answerDelay = typeof answer === "object" ? answer.delayMs : undefined;
    if (answerDelay !== undefined) await wait(answerDelay);
    else if (typeof delay === "number") await wait(delay);
    else if (delay !== null) await delay();
    if (res.destroyed) return;
    if (typeof answer === "object" && "status" in answer) {
      res.writeHead(answer.status, { "content-type": answer.body?.trimStart().startsWith("{") ? "application/json" : "text/plain", ...answer.headers });
      res.end(answer.body ?? "");
      return;
    }
    const pieceDelayMs = typeof answer === "object" ? answer.pieceDelayMs : undefined;
    if (typeof answer === "object" && "chunks" in answer) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const [i, chunk] of answer.chunks.entries()) {
        if (i > 0 && pieceDelayMs !== undefined) await wait(pieceDelayMs);
        if (res.destroyed) return;
        res.write(typeof chunk === "string" ? chunk : `data: ${JSON.stringify(chunk)}\n\n`);
        answer.onSent?.(i);
      }
      if (answer.cut === true) {
        // Wait for the events to leave, then drop the connection without ending the stream.
        await new Promise<void>((resolve) => res.write("", () => resolve()));
        res.socket?.destroy();
      } else res.end("data: [DONE]\n\n");
      return;
    }
    const written = typeof answer === "string" ? answer : answer.content;
    // The script writes `[TOOL: …]` lines; they go out as native calls when the request offers tools.
    const native = options.toolCalls === "text" ? { text: written, calls: [] } : nativeAnswer(written, requestToolNames(body.tools));
    const content = native.text;
    await sendCompletionStream(res, {
      id: `chatcmpl-scripted-${callIndex}`,
      model: `${request.model}-scripted`,
      calls: native.calls,
      wholeCalls: options.toolCalls === "whole",
      pieces: (typeof answer === "object" && native.calls.length === 0 ? answer.pieces : undefined) ?? pieces(content),
      usage: typeof answer === "string" ? { prompt_tokens: 11, completion_tokens: 7 } : answer.usage,
      ...(pieceDelayMs === undefined ? {} : { between: async () => { await wait(pieceDelayMs); return !res.destroyed; } }),
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    setDelay(next) {
      delay = next;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}
