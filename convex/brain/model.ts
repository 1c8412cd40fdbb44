/**
 * The model layer: one streamed chat completion from any OpenAI-compatible server
 * (OpenAI, Ollama, vLLM, LM Studio, the offline demo model). Everything that
 * can go wrong becomes a `ModelError` whose message a person can act on,
 * since the run shows it as is.
 */
import OpenAI from "openai";
import { CompletionAssembler, completionFromJson, type FunctionTool, type WireToolCall } from "../lib/completionStream";
import { ModelError, type ModelConfig } from "../lib/modelConfig";

export type { FunctionTool, WireToolCall };

/**
 * A message of the conversation as the brain keeps it: plain text, an
 * assistant's reply with the native tool calls it made, or one call's result
 * (`role: "tool"`, paired with its call by `toolCallId`).
 */
export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: WireToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

export interface ModelReply {
  /** The reply's text ("" when it only called tools). */
  content: string;
  /** Its native tool calls, in order (wire names, as the model sent them). */
  calls: WireToolCall[];
  /** What a run shows: the label when set, else the model name. */
  model: string;
  promptTokens: number;
  completionTokens: number;
}

const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** Longest piece of a server's error text repeated in a message. */
const MAX_DETAIL_CHARS = 300;

function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;
}

function notCompatible(server: string): string {
  return `Model call failed: ${server} did not answer like an OpenAI-compatible API (check OPENAI_BASE_URL; it usually ends in /v1)`;
}

/** An answer that came back as something other than a stream: its status, content type and body. */
interface PlainAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** How much of an unreadable answer a failure quotes. */
const QUOTED_BODY_CHARS = 200;

/** Says what came back when it is not a chat completion: status, content type and the first characters. */
function unreadable(server: string, answer: PlainAnswer): string {
  const body = answer.text.replace(/\s+/g, " ").trim();
  const quoted = body === "" ? "an empty body" : `“${body.slice(0, QUOTED_BODY_CHARS)}${body.length > QUOTED_BODY_CHARS ? "…" : ""}”`;
  return `${notCompatible(server)}: it answered ${answer.status} with ${answer.contentType === "" ? "no content type" : `content type ${answer.contentType}`} and ${quoted}, not a chat completion`;
}

function describeFailure(error: unknown, at: { server: string; timeoutMs: number; retries: number; statusText: string }): ModelError {
  const after = at.retries > 0 ? ` (after ${at.retries} ${at.retries === 1 ? "retry" : "retries"})` : "";
  if (error instanceof ModelError) return error;
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError(`Model call timed out after ${at.timeoutMs} ms from ${at.server}${after}`);
  }
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = deepestMessage((error as { cause?: unknown }).cause);
    return new ModelError(`Model call failed: could not connect to ${at.server}${after}${cause ? `: ${cause}` : ""}`);
  }
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const statusText = at.statusText || STATUS_TEXT[error.status] || "";
    const detail = serverDetail(error);
    return new ModelError(
      `Model call failed: ${error.status}${statusText ? ` ${statusText}` : ""} from ${at.server}${after}${detail ? `: ${detail}` : ""}`,
      error.status,
    );
  }
  if (error instanceof StreamCut) {
    return new ModelError(
      error.received > 0
        ? `Model call failed: the model server closed the connection after ${error.received.toLocaleString("en-US")} characters`
        : `Model call failed: ${at.server} closed the connection before answering${after}`,
    );
  }
  if (error instanceof SyntaxError) {
    return new ModelError(notCompatible(at.server));
  }
  return new ModelError(`Model call failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** The server's own words about an error: `{"error": {"message"}}`, or a plain-text body. */
function serverDetail(error: InstanceType<typeof OpenAI.APIError>): string {
  const body: unknown = error.error;
  if (typeof body === "object" && body !== null) {
    const message = (body as { message?: unknown }).message;
    if (typeof message === "string" && message.trim()) return truncate(message.trim());
  }
  // Otherwise the client's message is "<status> <text>" or "<status> status code (no body)".
  const text = error.message.replace(/^\d{3}\s*/, "").trim();
  return text === "" || /^status code \(no body\)$/.test(text) ? "" : truncate(text);
}

function deepestMessage(error: unknown): string {
  let current = error;
  let message = "";
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current.message) message = current.message;
    current = (current as { cause?: unknown }).cause; // Error.cause is ES2022; convex/ targets ES2021 types
  }
  return message === "fetch failed" ? "" : truncate(message);
}

function truncate(text: string): string {
  const oneLine = text.replace(/\s+/g, " ");
  return oneLine.length > MAX_DETAIL_CHARS ? `${oneLine.slice(0, MAX_DETAIL_CHARS)}…` : oneLine;
}

/** The base URL as shown in messages: no credentials, no trailing slash. */
function displayURL(baseURL: string): string {
  return baseURL.replace(/^(https?:\/\/)[^/@\s]*@/i, "$1").replace(/\/+$/, "");
}

/** For HTTP/2 and other servers that send no reason phrase. */
const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The answer's connection ended before the answer did (`received`: characters that had arrived). */
class StreamCut extends Error {
  constructor(readonly received: number) {
    super("the connection closed before the answer ended");
  }
}

/** A streamed call was cancelled through its signal (the run was stopped). */
export class ModelAbortedError extends Error {
  constructor() {
    super("The model call was cancelled");
    this.name = "ModelAbortedError";
  }
}

/** Longest wait a server's Retry-After may ask for before the call gives up instead (a run holds a lease meanwhile). */
export const MAX_RETRY_AFTER_MS = 30_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/**
 * How long to wait before retry number `retry` (0-based): what the server's
 * `Retry-After` (seconds or an HTTP date) or `retry-after-ms` asks, else
 * exponential backoff. Null when the server asks for more than
 * MAX_RETRY_AFTER_MS: waiting that long is not worth holding the run.
 */
export function retryDelayMs(retry: number, headers: { get(name: string): string | null } | undefined, now: number): number | null {
  const ms = headers?.get("retry-after-ms");
  const after = headers?.get("retry-after");
  let asked: number | undefined;
  if (ms && Number.isFinite(Number(ms))) asked = Number(ms);
  else if (after && Number.isFinite(Number(after))) asked = Number(after) * 1000;
  else if (after && !Number.isNaN(Date.parse(after))) asked = Date.parse(after) - now;
  if (asked !== undefined) return asked > MAX_RETRY_AFTER_MS ? null : Math.max(0, asked);
  return Math.min(FIRST_BACKOFF_MS * 2 ** retry, MAX_BACKOFF_MS);
}

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

export interface StreamOptions {
  /** Aborting it cancels the call at once (ModelAbortedError). */
  signal?: AbortSignal;
  /** Each piece of text as it arrives. */
  onDelta?: (delta: string) => void;
  /** Each native tool call once its arguments are complete, in order, while the rest of the answer still streams. */
  onCall?: (call: WireToolCall) => void;
  /**
   * An answer with no text and no call is "nothing more to say", not a
   * failure: for a run that already acted (a later round) or was only told
   * that a task it delegated changed. Otherwise it is "The model returned no text".
   */
  emptyIsAnswer?: boolean;
}

/**
 * One chat completion, streamed (`stream: true`), with `request.tools` as
 * native functions when given. Failures before any of the answer arrived
 * (timeouts, lost connections, 408, 409, 429, 5xx) are retried up to
 * `config.maxRetries` times with backoff that honours `Retry-After`; a
 * stream that fails after text arrived is not retried (the text is already
 * shown) and says how much had arrived. `config.timeoutMs` limits the wait
 * for each byte, so a long answer that keeps coming is never cut.
 *
 * @throws ModelError on any failure, ModelAbortedError when `signal` aborts.
 */
export async function streamModel(
  config: ModelConfig,
  request: { model?: string; messages: ChatMessage[]; tools?: FunctionTool[] },
  options: StreamOptions = {},
): Promise<ModelReply> {
  const model = request.model?.trim() || config.defaultModel;
  const server = displayURL(config.baseURL ?? OPENAI_BASE_URL);
  const attempt: Attempt = { count: 0, statusText: "", plain: null, head: null };
  const client = new OpenAI({
    apiKey: config.apiKey,
    baseURL: config.baseURL ?? OPENAI_BASE_URL,
    timeout: config.timeoutMs,
    maxRetries: 0,
    fetch: async (input, init) => {
      attempt.count += 1;
      const response = await fetch(input, init);
      attempt.statusText = response.statusText;
      // An answer that is not a stream (a JSON completion from a server that ignores stream: true, an HTML
      // page) is read here, so the caller can say what came back; the client is handed an empty stream.
      const contentType = response.headers.get("content-type") ?? "";
      if (!response.ok || response.body === null) return response;
      if (contentType.includes("text/event-stream")) {
        // The stream's first characters are kept, to quote when its events are not JSON.
        const head: HeadOfStream = { status: response.status, contentType, text: "" };
        attempt.head = head;
        const decoder = new TextDecoder();
        const tap = new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            if (head.text.length < QUOTED_BODY_CHARS * 2) head.text += decoder.decode(chunk, { stream: true });
            controller.enqueue(chunk);
          },
        });
        return new Response(response.body.pipeThrough(tap), { status: response.status, statusText: response.statusText, headers: response.headers });
      }
      attempt.plain = { status: response.status, contentType, text: await response.text() };
      return new Response("", { status: response.status, statusText: response.statusText, headers: { "content-type": "text/event-stream" } });
    },
  });
  const wire = { model, messages: wireMessages(request.messages), tools: request.tools };
  for (let retry = 0; ; retry++) {
    const state = { emitted: false, timedOut: false };
    attempt.plain = null;
    attempt.head = null;
    try {
      return await streamOnce(client, config, wire, options, state, attempt);
    } catch (error) {
      if (options.signal?.aborted) throw new ModelAbortedError();
      const failure = state.timedOut ? new OpenAI.APIConnectionTimeoutError() : error;
      if (failure instanceof SyntaxError && attempt.head !== null) {
        // Events that are not JSON: what came back, as a plain answer would be quoted.
        throw new ModelError(unreadable(server, attempt.head).replace(/, not a chat completion$/, ", not chat completion events"));
      }
      const status = failure instanceof OpenAI.APIError && typeof failure.status === "number" ? failure.status : undefined;
      const lost = failure instanceof StreamCut || (status === undefined && failure instanceof OpenAI.APIConnectionError);
      const retryable = !(failure instanceof ModelError) && (status === undefined ? lost : RETRYABLE_STATUS(status));
      const delay = retryable && !state.emitted && retry < config.maxRetries
        ? retryDelayMs(retry, failure instanceof OpenAI.APIError ? failure.headers : undefined, Date.now())
        : null;
      if (delay === null) throw describeFailure(failure, { server, timeoutMs: config.timeoutMs, retries: retry, statusText: attempt.statusText });
      await sleep(delay, options.signal);
    }
  }
}

/** The stream's status, content type and first characters. */
type HeadOfStream = PlainAnswer;

interface Attempt {
  count: number;
  statusText: string;
  plain: PlainAnswer | null;
  head: HeadOfStream | null;
}

/** The conversation as the Chat Completions API takes it: assistant `tool_calls` and `tool` results paired by id. */
export function wireMessages(messages: readonly ChatMessage[]): OpenAI.Chat.ChatCompletionMessageParam[] {
  return messages.map((m): OpenAI.Chat.ChatCompletionMessageParam => {
    if (m.role === "tool") return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
    if (m.role === "assistant" && m.toolCalls !== undefined && m.toolCalls.length > 0) {
      return {
        role: "assistant",
        content: m.content === "" ? null : m.content,
        tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments === "" ? "{}" : c.arguments } })),
      };
    }
    return { role: m.role, content: m.content };
  });
}

async function streamOnce(
  client: OpenAI,
  config: ModelConfig,
  request: { model: string; messages: OpenAI.Chat.ChatCompletionMessageParam[]; tools?: FunctionTool[] },
  options: StreamOptions,
  state: { emitted: boolean; timedOut: boolean },
  attempt: Attempt,
): Promise<ModelReply> {
  const controller = new AbortController();
  const outer = options.signal;
  const forward = () => controller.abort();
  if (outer?.aborted) controller.abort();
  outer?.addEventListener("abort", forward, { once: true });
  // One watchdog per call, not a new timer per chunk (a streamed reply is hundreds of chunks):
  // when it fires it waits again for what is left of the quiet time since the last byte.
  let lastByteAt = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watch = (ms: number) => {
    timer = setTimeout(() => {
      const quiet = Date.now() - lastByteAt;
      if (quiet < config.timeoutMs) return watch(config.timeoutMs - quiet);
      state.timedOut = true;
      controller.abort();
    }, ms);
  };
  watch(config.timeoutMs);
  const assembler = new CompletionAssembler();
  const emitCalls = (calls: WireToolCall[]) => {
    for (const call of calls) {
      state.emitted = true;
      options.onCall?.(call);
    }
  };
  try {
    const stream = await client.chat.completions.create(
      {
        model: request.model,
        messages: request.messages,
        ...(request.tools === undefined || request.tools.length === 0 ? {} : { tools: request.tools }),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: controller.signal },
    );
    try {
      // The raw chunks, read by our own assembler (the client's stream helper would merge calls that share an index).
      for await (const chunk of stream) {
        lastByteAt = Date.now();
        const { text, completed } = assembler.push(chunk);
        if (text !== "") {
          state.emitted = true;
          options.onDelta?.(text);
        }
        emitCalls(completed);
      }
    } catch (error) {
      const answered = error instanceof OpenAI.APIError && typeof error.status === "number";
      if (controller.signal.aborted || answered || error instanceof SyntaxError || error instanceof ModelError) throw error;
      // The connection ended under the stream ("terminated", a reset): retried when nothing had arrived.
      throw new StreamCut(assembler.received);
    }
    // The client's stream ends quietly when aborted: a cut answer must not pass for a whole one.
    if (controller.signal.aborted) throw outer?.aborted ? new ModelAbortedError() : new OpenAI.APIConnectionTimeoutError();
    let answer = assembler.end();
    const plain = attempt.plain;
    if (assembler.chunks === 0 && plain !== null) {
      // A server that ignores stream: true answers with the whole completion as JSON: read it as one piece.
      const whole = completionFromJson(plain.text);
      if (whole === null) throw new ModelError(unreadable(displayURL(config.baseURL ?? OPENAI_BASE_URL), plain));
      answer = { answer: whole, completed: whole.calls };
      if (whole.content !== "") {
        state.emitted = true;
        options.onDelta?.(whole.content);
      }
    } else if (assembler.chunks === 0) {
      // A wrong base URL often answers 200 with an HTML page, which streams as nothing at all.
      throw new ModelError(notCompatible(displayURL(config.baseURL ?? OPENAI_BASE_URL)));
    } else if (answer.answer.finishReason === null) {
      // Chunks came, then the stream ended without a finish_reason: the server closed it mid-answer.
      throw new StreamCut(assembler.received);
    }
    emitCalls(answer.completed);
    const { content, refusal, calls, usage } = answer.answer;
    if (content.trim() === "" && calls.length === 0 && !(options.emptyIsAnswer === true && refusal.trim() === "")) {
      throw new ModelError(refusal.trim() ? `The model refused: ${truncate(refusal.trim())}` : "The model returned no text");
    }
    return {
      content: content.trim(),
      calls,
      model: config.label ?? request.model,
      promptTokens: tokenCount(usage?.prompt_tokens),
      completionTokens: tokenCount(usage?.completion_tokens),
    };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", forward);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ModelAbortedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelAbortedError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
