import { afterEach, describe, expect, test } from "vitest";
import { MAX_RETRY_AFTER_MS, ModelAbortedError, retryDelayMs, streamModel, type ChatMessage } from "../../convex/brain/model";
import { ModelError, modelConfigFromEnv, type ModelConfig } from "../../convex/lib/modelConfig";
import { startScriptedModel, type Script, type ScriptedModel } from "./scriptedModel";

const MESSAGES: ChatMessage[] = [
  { role: "system", content: "You are Writer (Copywriter)." },
  { role: "user", content: "Say hello." },
];

let server: ScriptedModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: Script): Promise<ModelConfig> {
  server = await startScriptedModel(script);
  return { apiKey: "test-key", baseURL: server.baseURL, defaultModel: "gpt-4o-mini", timeoutMs: 5_000, maxRetries: 2 };
}

async function failureOf(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

// Retry-After 0 keeps the retries quick; backoff itself is retryDelayMs's test.
const NOW = { "retry-after": "0" };

describe("streamModel: replies and failures", () => {
  test("returns the reply, its token usage and the model name, with the real openai client", async () => {
    const config = await serve(() => ({ content: "  Hello there.  ", usage: { prompt_tokens: 42, completion_tokens: 3 } }));
    const reply = await streamModel(config, { messages: MESSAGES });
    expect(reply).toEqual({ content: "Hello there.", calls: [], model: "gpt-4o-mini", promptTokens: 42, completionTokens: 3 });
    expect(server!.requests).toMatchObject([{ model: "gpt-4o-mini", messages: MESSAGES, stream: true }]);
    expect(server!.requests[0].body.tools).toBeUndefined();
  });

  test("usage the server leaves out counts as 0", async () => {
    const config = await serve(() => ({ content: "Hi.", usage: null }));
    expect(await streamModel(config, { messages: MESSAGES })).toMatchObject({ promptTokens: 0, completionTokens: 0 });
  });

  test("an agent's own model overrides the default; a blank one does not", async () => {
    const config = await serve(() => "ok");
    await streamModel(config, { model: "llama3.1", messages: MESSAGES });
    const reply = await streamModel(config, { model: "  ", messages: MESSAGES });
    expect(server!.requests.map((r) => r.model)).toEqual(["llama3.1", "gpt-4o-mini"]);
    expect(reply.model).toBe("gpt-4o-mini");
  });

  test("the label, when set, is what the reply names as its model", async () => {
    const config = await serve(() => "ok");
    const reply = await streamModel({ ...config, label: "demo model (offline, rule-based)" }, { model: "llama3.1", messages: MESSAGES });
    expect(reply.model).toBe("demo model (offline, rule-based)");
    expect(server!.requests[0].model).toBe("llama3.1");
  });

  test("a 503 and a 429 are retried and the retry's answer returned", async () => {
    const config = await serve((_request, call) => (call === 0 ? { status: 503, headers: NOW } : call === 1 ? { status: 429, body: '{"error": {"message": "slow down"}}', headers: NOW } : "Fine."));
    expect((await streamModel(config, { messages: MESSAGES })).content).toBe("Fine.");
    expect(server!.requests).toHaveLength(3);
  });

  test("a persistent 500 becomes a ModelError naming the status, the server and the retries", async () => {
    const config = await serve(() => ({ status: 500, headers: NOW }));
    const error = await failureOf(streamModel(config, { messages: MESSAGES }));
    expect(error.message).toBe(`Model call failed: 500 Internal Server Error from ${server!.baseURL} (after 2 retries)`);
    expect(error.status).toBe(500);
    expect(server!.requests).toHaveLength(3);
  });

  test("a 503 with maxRetries 0 is tried once", async () => {
    const config = await serve(() => ({ status: 503 }));
    const error = await failureOf(streamModel({ ...config, maxRetries: 0 }, { messages: MESSAGES }));
    expect(error.message).toBe(`Model call failed: 503 Service Unavailable from ${server!.baseURL}`);
    expect(server!.requests).toHaveLength(1);
  });

  test("a 4xx is not retried, and the server's own explanation is kept", async () => {
    const config = await serve(() => ({ status: 404, body: '{"error": {"message": "model \\"llama9\\" not found, try pulling it first"}}' }));
    const error = await failureOf(streamModel(config, { model: "llama9", messages: MESSAGES }));
    expect(error.message).toBe(`Model call failed: 404 Not Found from ${server!.baseURL}: model "llama9" not found, try pulling it first`);
    expect(error.status).toBe(404);
    expect(server!.requests).toHaveLength(1);
  });

  test("a server that answers too late becomes a timeout ModelError, after the retries", async () => {
    const config = await serve(() => ({ content: "too late", delayMs: 2_000 }));
    const started = Date.now();
    const error = await failureOf(streamModel({ ...config, timeoutMs: 150, maxRetries: 1 }, { messages: MESSAGES }));
    expect(error.message).toBe(`Model call timed out after 150 ms from ${server!.baseURL} (after 1 retry)`);
    expect(server!.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1_900);
  });

  test("an empty reply is an error, not an empty message", async () => {
    const config = await serve(() => "   ");
    expect((await failureOf(streamModel(config, { messages: MESSAGES }))).message).toBe("The model returned no text");
  });

  test("for a run that already acted, an empty reply is 'nothing more to say': no error, no text", async () => {
    const config = await serve(() => "   ");
    const reply = await streamModel(config, { messages: MESSAGES }, { emptyIsAnswer: true });
    expect(reply).toMatchObject({ content: "", calls: [] });
  });

  test("a server that is not OpenAI-compatible is named as such, with what it answered", async () => {
    const config = await serve(() => ({ status: 200, body: "<html>Welcome to nginx</html>" }));
    expect((await failureOf(streamModel(config, { messages: MESSAGES }))).message).toBe(
      `Model call failed: ${server!.baseURL} did not answer like an OpenAI-compatible API (check OPENAI_BASE_URL; it usually ends in /v1): it answered 200 with content type text/plain and “<html>Welcome to nginx</html>”, not a chat completion`,
    );
  });

  test("a 200 whose body is not a chat completion says its status, content type and first 200 characters (not 'no text')", async () => {
    const body = JSON.stringify({ status: "ok", detail: "x".repeat(400) });
    const config = await serve(() => ({ status: 200, body }));
    const error = await failureOf(streamModel({ ...config, maxRetries: 0 }, { messages: MESSAGES }));
    expect(error.message).not.toContain("returned no text");
    expect(error.message).toContain("it answered 200 with content type application/json");
    expect(error.message).toContain(`“${body.slice(0, 200)}…”`);
    expect(error.message).not.toContain(body.slice(0, 201));
  });

  test("a server that ignores stream: true and answers one JSON completion is read", async () => {
    const completion = { id: "c1", object: "chat.completion", model: "m", choices: [{ index: 0, message: { role: "assistant", content: "Whole answer." }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 2 } };
    const config = await serve(() => ({ status: 200, body: JSON.stringify(completion) }));
    const deltas: string[] = [];
    const reply = await streamModel(config, { messages: MESSAGES }, { onDelta: (delta) => deltas.push(delta) });
    expect(reply).toEqual({ content: "Whole answer.", calls: [], model: "gpt-4o-mini", promptTokens: 5, completionTokens: 2 });
    expect(deltas).toEqual(["Whole answer."]);
  });

  test("nothing listening becomes a readable connection error", async () => {
    const config = await serve(() => "unused");
    const baseURL = server!.baseURL;
    await server!.close();
    server = undefined;
    const error = await failureOf(streamModel({ ...config, maxRetries: 0 }, { messages: MESSAGES }));
    expect(error.message).toMatch(new RegExp(`^Model call failed: could not connect to ${baseURL.replace(/[.:/]/g, "\\$&")}: .*ECONNREFUSED`));
  });
});

describe("streamModel", () => {
  test("streams the reply in pieces and returns it whole, with usage", async () => {
    const config = await serve(() => ({ content: "Hello there, I will plan it.", pieces: ["Hello ", "there, ", "I will plan it."], usage: { prompt_tokens: 4, completion_tokens: 6 } }));
    const deltas: string[] = [];
    const reply = await streamModel(config, { messages: MESSAGES }, { onDelta: (delta) => deltas.push(delta) });
    expect(deltas).toEqual(["Hello ", "there, ", "I will plan it."]);
    expect(reply).toEqual({ content: "Hello there, I will plan it.", calls: [], model: "gpt-4o-mini", promptTokens: 4, completionTokens: 6 });
    expect(server!.requests[0].stream).toBe(true);
  });

  test("a 500, then an answer: retried once, honouring Retry-After", async () => {
    const config = await serve((_request, index) => (index === 0 ? { status: 500, headers: { "retry-after": "0" } } : "Recovered."));
    expect((await streamModel(config, { messages: MESSAGES })).content).toBe("Recovered.");
    expect(server!.requests).toHaveLength(2);
  });

  test("a persistent 429 ends after maxRetries with the status in the message; a Retry-After beyond the bound is not waited for", async () => {
    const config = await serve(() => ({ status: 429, headers: { "retry-after-ms": "1" } }));
    const error = await failureOf(streamModel(config, { messages: MESSAGES }));
    expect(error.message).toMatch(/^Model call failed: 429 Too Many Requests from http:\/\/127\.0\.0\.1:\d+\/v1 \(after 2 retries\)/);
    expect(server!.requests).toHaveLength(3);
    await server!.close();
    const patient = await serve(() => ({ status: 503, headers: { "retry-after": "3600" } }));
    expect((await failureOf(streamModel(patient, { messages: MESSAGES }))).status).toBe(503);
    expect(server!.requests).toHaveLength(1);
  });

  test("a quiet server times out per byte; aborting the signal cancels at once", async () => {
    const config = await serve(() => ({ content: "slow answer here", pieces: ["slow ", "answer ", "here"], pieceDelayMs: 2_000 }));
    const quick = { ...config, timeoutMs: 200, maxRetries: 0 };
    expect((await failureOf(streamModel(quick, { messages: MESSAGES }))).message).toContain("timed out after 200 ms");
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = streamModel(config, { messages: MESSAGES }, { signal: controller.signal, onDelta: (delta) => {
      deltas.push(delta);
      controller.abort();
    } });
    await expect(call).rejects.toBeInstanceOf(ModelAbortedError);
    expect(deltas).toEqual(["slow "]);
  });
});

describe("retryDelayMs", () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);
  test("Retry-After in seconds or as a date, retry-after-ms, else exponential backoff", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryDelayMs(0, headers({ "retry-after": "2" }), now)).toBe(2_000);
    expect(retryDelayMs(0, headers({ "retry-after-ms": "150" }), now)).toBe(150);
    expect(retryDelayMs(0, headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5_000);
    expect(retryDelayMs(0, undefined, now)).toBe(500);
    expect(retryDelayMs(1, headers({}), now)).toBe(1_000);
    expect(retryDelayMs(10, undefined, now)).toBe(8_000);
  });
  test("a wait beyond the bound is refused", () => {
    expect(retryDelayMs(0, headers({ "retry-after": String(MAX_RETRY_AFTER_MS / 1000 + 1) }), 0)).toBeNull();
  });
});

describe("modelConfigFromEnv", () => {
  test("nothing configured is null, so the caller can say so plainly", () => {
    expect(modelConfigFromEnv({})).toBeNull();
    expect(modelConfigFromEnv({ OPENAI_API_KEY: "  ", OPENAI_BASE_URL: "" })).toBeNull();
  });

  test("a key alone talks to OpenAI with the defaults", () => {
    expect(modelConfigFromEnv({ OPENAI_API_KEY: "sk-test" })).toEqual({
      apiKey: "sk-test",
      defaultModel: "gpt-4o-mini",
      timeoutMs: 60_000,
      maxRetries: 2,
    });
  });

  test("a base URL alone is enough, with a placeholder key", () => {
    expect(
      modelConfigFromEnv({
        OPENAI_BASE_URL: "http://127.0.0.1:11434/v1/",
        MAESTRO_DEFAULT_MODEL: "llama3.1",
        MAESTRO_MODEL_LABEL: "Ollama",
        MAESTRO_MODEL_TIMEOUT_MS: "120000",
        MAESTRO_MODEL_MAX_RETRIES: "0",
      }),
    ).toEqual({
      apiKey: "not-needed",
      baseURL: "http://127.0.0.1:11434/v1",
      defaultModel: "llama3.1",
      label: "Ollama",
      timeoutMs: 120_000,
      maxRetries: 0,
    });
  });

  test.each([
    [{ OPENAI_API_KEY: "k", MAESTRO_MODEL_TIMEOUT_MS: "60s" }, 'MAESTRO_MODEL_TIMEOUT_MS must be a whole number of milliseconds above 0, got "60s"'],
    [{ OPENAI_API_KEY: "k", MAESTRO_MODEL_TIMEOUT_MS: "0" }, 'MAESTRO_MODEL_TIMEOUT_MS must be a whole number of milliseconds above 0, got "0"'],
    [{ OPENAI_API_KEY: "k", MAESTRO_MODEL_MAX_RETRIES: "-1" }, 'MAESTRO_MODEL_MAX_RETRIES must be a whole number, 0 or more, got "-1"'],
    [{ OPENAI_BASE_URL: "127.0.0.1:11434" }, 'OPENAI_BASE_URL must be an http(s) URL such as http://127.0.0.1:11434/v1, got "127.0.0.1:11434"'],
  ])("an unusable value is refused by name: %j", (env, message) => {
    expect(() => modelConfigFromEnv(env)).toThrow(new ModelError(message));
  });
});
