/**
 * Native tool calls against servers that speak the public Chat Completions
 * wire format: `data: {chat.completion.chunk}` events ending with
 * `data: [DONE]`, one shape each (streamed calls assembled by index, whole
 * Ollama-style calls with missing or repeated ids, a JSON completion
 * answering a streamed request, text and calls in one reply), read through
 * the real `openai` client by streamModel; then the brain end to end, with
 * the exact request a model server receives.
 */
import type { ConvexHttpClient } from "convex/browser";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { api } from "../../convex/_generated/api";
import { streamModel, type WireToolCall } from "../../convex/brain/model";
import { ModelError, type ModelConfig } from "../../convex/lib/modelConfig";
import { WIRE_NAME_PATTERN } from "../../convex/lib/toolNames";
import { scriptedSquad, squadTasks, waitFor } from "./helpers";
import { isJarvis, lastUser, startScriptedModel, type Script, type ScriptedModel } from "./scriptedModel";

const MESSAGES = [
  { role: "system" as const, content: "You are Jarvis (Squad lead)." },
  { role: "user" as const, content: "Split the landing page." },
];
const TOOLS = [
  { type: "function" as const, function: { name: "delegate_task", description: "Delegate.", parameters: { type: "object", properties: {} } } },
  { type: "function" as const, function: { name: "chat_post", description: "Post in chat.", parameters: { type: "object", properties: {} } } },
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

/** A `chat.completion.chunk` with one choice's delta, as the reference shows it. */
function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
}
/** A tool-call delta: `index`, and the id, type and name only when given (the first piece of a call). */
function callDelta(index: number, piece: { id?: string; name?: string; arguments?: string }) {
  const fn = { ...(piece.name === undefined ? {} : { name: piece.name }), ...(piece.arguments === undefined ? {} : { arguments: piece.arguments }) };
  return { index, ...(piece.id === undefined ? {} : { id: piece.id, type: "function" }), function: fn };
}

async function collect(config: ModelConfig) {
  const seen: WireToolCall[] = [];
  const deltas: string[] = [];
  const reply = await streamModel(config, { messages: MESSAGES, tools: TOOLS }, { onCall: (call) => seen.push({ ...call }), onDelta: (d) => deltas.push(d) });
  return { reply, seen, deltas };
}

describe("streamModel reads every shape of native tool calls", () => {
  test("streamed calls are assembled by index: id and name in the first delta, arguments in pieces, two calls interleaved", async () => {
    const config = await serve(() => ({
      chunks: [
        chunk({ role: "assistant", content: null }),
        chunk({ tool_calls: [callDelta(0, { id: "call_a", name: "delegate_task", arguments: "" })] }),
        chunk({ tool_calls: [callDelta(0, { arguments: '{"title": "He' })] }),
        chunk({ tool_calls: [callDelta(1, { id: "call_b", name: "chat_post", arguments: '{"te' })] }),
        chunk({ tool_calls: [callDelta(0, { arguments: 'ro copy"}' })] }),
        chunk({ tool_calls: [callDelta(1, { arguments: 'xt": "hi"}' })] }),
        chunk({}, "tool_calls"),
      ],
    }));
    const { reply, seen } = await collect(config);
    expect(reply.content).toBe("");
    expect(reply.calls).toEqual([
      { id: "call_a", name: "delegate_task", arguments: '{"title": "Hero copy"}' },
      { id: "call_b", name: "chat_post", arguments: '{"text": "hi"}' },
    ]);
    expect(seen.map((c) => c.id)).toEqual(["call_a", "call_b"]);
    // The request carried the tools as functions.
    expect(server!.requests[0].body.tools).toEqual(TOOLS);
  });

  test("Ollama-style: each call whole in one chunk, all at index 0, ids missing or repeated: never merged", async () => {
    const config = await serve((_request, index) => ({
      chunks:
        index === 0
          ? [
              chunk({ role: "assistant", content: "" }),
              chunk({ tool_calls: [{ index: 0, function: { name: "delegate_task", arguments: '{"title": "One"}' } }] }),
              chunk({ tool_calls: [{ index: 0, function: { name: "delegate_task", arguments: '{"title": "Two"}' } }] }),
              chunk({}, "stop"),
            ]
          : [
              chunk({ role: "assistant", content: "" }),
              chunk({ tool_calls: [callDelta(0, { id: "call_0", name: "delegate_task", arguments: '{"title": "One"}' })] }),
              chunk({ tool_calls: [callDelta(0, { id: "call_0", name: "chat_post", arguments: '{"text": "Two"}' })] }),
              chunk({}, "tool_calls"),
            ],
    }));
    const missing = (await collect(config)).reply.calls;
    expect(missing.map((c) => [c.name, c.arguments])).toEqual([["delegate_task", '{"title": "One"}'], ["delegate_task", '{"title": "Two"}']]);
    expect(new Set(missing.map((c) => c.id)).size).toBe(2);
    const repeated = (await collect(config)).reply.calls;
    expect(repeated.map((c) => [c.name, c.arguments])).toEqual([["delegate_task", '{"title": "One"}'], ["chat_post", '{"text": "Two"}']]);
    expect(repeated[0].id).toBe("call_0");
    expect(repeated[1].id).not.toBe("call_0");
  });

  test("a plain JSON completion with message.tool_calls answering a streamed request", async () => {
    const completion = {
      id: "c1",
      object: "chat.completion",
      model: "m",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "Splitting it.", tool_calls: [{ id: "call_x", type: "function", function: { name: "delegate_task", arguments: '{"title": "X"}' } }] },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 9, completion_tokens: 4 },
    };
    const config = await serve(() => ({ status: 200, body: JSON.stringify(completion) }));
    const { reply, seen } = await collect(config);
    expect(reply).toMatchObject({ content: "Splitting it.", calls: [{ id: "call_x", name: "delegate_task", arguments: '{"title": "X"}' }], promptTokens: 9 });
    expect(seen.map((c) => c.id)).toEqual(["call_x"]);
  });

  test("text and calls in one reply are both kept, and a call is handed on as soon as its arguments are complete", async () => {
    const config = await serve(() => ({
      chunks: [
        chunk({ role: "assistant", content: "I'll split it. " }),
        chunk({ tool_calls: [callDelta(0, { id: "call_1", name: "delegate_task", arguments: '{"title":' })] }),
        chunk({ tool_calls: [callDelta(0, { arguments: ' "A"}' })] }),
        chunk({ content: "Then " }),
        chunk({ tool_calls: [callDelta(1, { id: "call_2", name: "delegate_task", arguments: '{"title": "B"}' })] }),
        chunk({ content: "done." }),
        chunk({}, "tool_calls"),
      ],
    }));
    const order: string[] = [];
    const reply = await streamModel(config, { messages: MESSAGES, tools: TOOLS }, { onCall: (c) => order.push(`call ${c.id}`), onDelta: (d) => order.push(`text ${d}`) });
    expect(reply.content).toBe("I'll split it. Then done.");
    expect(reply.calls.map((c) => c.id)).toEqual(["call_1", "call_2"]);
    // call_1 is complete before "Then " arrives; call_2 before "done.".
    expect(order).toEqual(["text I'll split it. ", "call call_1", "text Then ", "call call_2", "text done."]);
  });
});

describe("streamModel: failures a person can act on", () => {
  test("an event stream whose events are not JSON names the status, the content type and the first 200 characters", async () => {
    const garbage = `data: <html>${"x".repeat(300)}</html>\n\n`;
    const config = await serve(() => ({ status: 200, body: garbage, headers: { "content-type": "text/event-stream" } }));
    const error = (await streamModel({ ...config, maxRetries: 0 }, { messages: MESSAGES }).catch((e: unknown) => e)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toContain("it answered 200 with content type text/event-stream");
    expect(error.message).toContain(`“${garbage.replace(/\s+/g, " ").trim().slice(0, 200)}…”`);
  });

  test("a connection closed after the headers, before any text, is retried", async () => {
    const config = await serve((_request, index) =>
      index === 0 ? { chunks: [], cut: true } : { chunks: [chunk({ content: "Recovered." }), chunk({}, "stop")] },
    );
    const reply = await streamModel(config, { messages: MESSAGES });
    expect(reply.content).toBe("Recovered.");
    expect(server!.requests).toHaveLength(2);
  });

  test("a stream cut mid-reply says after how many characters, not 'terminated', and is not retried", async () => {
    const text = "x".repeat(1204);
    const config = await serve(() => ({ chunks: [chunk({ content: text.slice(0, 600) }), chunk({ content: text.slice(600) })], cut: true }));
    const error = (await streamModel(config, { messages: MESSAGES }).catch((e: unknown) => e)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe("Model call failed: the model server closed the connection after 1,204 characters");
    expect(server!.requests).toHaveLength(1);
  });
});

// ---------------------------------------------------------------- the brain end to end

/** Jarvis's first reply: five native calls, the second of which waits for a person's approval. */
const FIRST_CALLS = [
  { id: "call_post", name: "post_message", arguments: '{"content": "Starting on it."}' },
  { id: "call_urgent", name: "delegate_task", arguments: '{"title": "Hero copy", "description": "The hero.", "assignees": ["Writer"], "instruction": "Write it.", "priority": "high"}' },
  { id: "call_broken", name: "delegate_task", arguments: '{"title": "Form", ' },
  { id: "call_unknown", name: "no_such_tool", arguments: "{}" },
  { id: "call_schema", name: "delegate_task", arguments: '{"title": "Form"}' },
];

let script: Script = () => "Nothing to do.";
const squad = scriptedSquad((request, index) => (isJarvis(request.messages) ? script(request, index) : "Noted."));
let ada: ConvexHttpClient;
beforeAll(() => {
  ({ member: ada } = squad);
});
const { newestRun, childrenOf, mention, thread } = squadTasks(squad);

describe("the brain with native tool calls", () => {
  test("the exact request: tools as valid JSON Schema under wire names; every call's result paired by id, also after an approval resumed in a new attempt", async () => {
    script = (request) => {
      if (lastUser(request.messages).startsWith("=== TOOL RESULTS ===")) return "All settled.";
      return {
        chunks: [
          chunk({ role: "assistant", content: "On it. " }),
          ...FIRST_CALLS.map((call, index) => chunk({ tool_calls: [callDelta(index, call)] })),
          chunk({}, "tool_calls"),
        ],
      };
    };
    const before = squad.model.requests.length;
    const taskId = await mention("Native launch", "@Jarvis delegate the hero copy to Writer, urgent");
    await newestRun(taskId, "waiting");
    const [card] = await ada.query(api.approvals.listForTask, { taskId });
    expect(card).toMatchObject({ tool: "delegate_task", status: "pending" });
    await ada.mutation(api.approvals.respond, { taskId, approvalId: card._id, decision: "approve" });
    const done = await newestRun(taskId, "completed");
    expect((await thread(taskId)).at(-1)?.content).toBe("All settled.");
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Hero copy"]);
    expect(done.toolCalls.map((c) => [c.name, c.outcome])).toEqual([
      ["post_message", "ok"],
      ["delegate_task", "ok"],
      ["delegate_task", "invalid"],
      ["no_such_tool", "invalid"],
      ["delegate_task", "invalid"],
    ]);

    const requests = squad.model.requests.slice(before).filter((r) => isJarvis(r.messages));
    expect(requests).toHaveLength(2);
    for (const { body } of requests) {
      const tools = body.tools as Array<{ type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
      expect(tools.map((t) => t.function.name)).toEqual(["delegate_task", "propose_plan", "post_message", "update_task_status", "ask_question", "chat_post", "chat_getNew"]);
      for (const tool of tools) {
        expect(tool.type).toBe("function");
        expect(tool.function.name).toMatch(WIRE_NAME_PATTERN);
        expect(tool.function.parameters.type).toBe("object");
        // Valid JSON Schema: read back by an independent reader, it accepts and refuses as the tool does.
        expect(() => z.fromJSONSchema(tool.function.parameters as never)).not.toThrow();
      }
      const delegate = z.fromJSONSchema(tools[0].function.parameters as never);
      expect(delegate.safeParse(JSON.parse(FIRST_CALLS[1].arguments)).success).toBe(true);
      expect(delegate.safeParse({ title: "Form" }).success).toBe(false);
      // The tools are not listed again in the prompt's text.
      expect(JSON.stringify(body.messages[0])).not.toContain("[TOOL: <name>");
    }
    // The resumed attempt replays the same reply, its calls under the same ids, and one tool message per call, in order.
    const replay = requests[1].body.messages as Array<{ role: string; content: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
    const assistant = replay.findIndex((m) => m.role === "assistant" && m.tool_calls !== undefined);
    expect(replay[assistant].content).toBe("On it.");
    expect(replay[assistant].tool_calls!.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual(FIRST_CALLS.map((c) => [c.id, c.name, c.arguments]));
    const results = replay.slice(assistant + 1, assistant + 1 + FIRST_CALLS.length);
    expect(results.map((m) => [m.role, m.tool_call_id])).toEqual(FIRST_CALLS.map((c) => ["tool", c.id]));
    expect(results[0].content).toBe("posted in the thread");
    expect(JSON.parse(results[1].content!)).toMatchObject({ ok: true, title: "Hero copy" });
    expect(results[2].content).toMatch(/^delegate_task: the arguments are not valid JSON/);
    expect(results[3].content).toMatch(/^unknown tool "no_such_tool"/);
    expect(results[4].content).toMatch(/^delegate_task: invalid arguments \(description: description is required/);
    // The ids are on the run's events too.
    const events = await ada.query(api.runEvents.listForRun, { runId: done._id });
    const callIds = events.flatMap((e) => (e.payload.type === "tool_call" && e.payload.callId !== undefined ? [e.payload.callId] : []));
    expect(callIds).toEqual(FIRST_CALLS.map((c) => c.id));
    const starts = events.filter((e) => e.payload.type === "agent_start");
    expect(starts.length).toBe(2);
  });

  test("a reply with text around native calls runs the calls (not 'The model returned no text', not dropped)", async () => {
    script = (request) => {
      if (lastUser(request.messages).startsWith("=== TOOL RESULTS ===")) return `Delegated: ${lastUser(request.messages).split("\n")[1]}`;
      return {
        chunks: [
          chunk({ role: "assistant", content: "Splitting the page. " }),
          chunk({ tool_calls: [callDelta(0, { id: "call_1", name: "delegate_task", arguments: '{"title": "Signup form", "description": "The form.", ' })] }),
          chunk({ tool_calls: [callDelta(0, { arguments: '"assignees": ["Dev Bot"], "instruction": "Build it."}' })] }),
          chunk({ content: "Done soon." }),
          chunk({}, "tool_calls"),
        ],
      };
    };
    const taskId = await mention("Native split", "@Jarvis split the signup form off");
    const done = await newestRun(taskId, "completed");
    expect(done.toolCalls.map((c) => [c.name, c.outcome])).toEqual([["delegate_task", "ok"]]);
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Signup form"]);
    expect((await thread(taskId)).at(-1)?.content).toMatch(/^Delegated: \[OBSERVATION delegate_task\] \{"ok":true/);
  });

  test("text, two streamed calls, then more text: the words are posted in the thread once each, the first before the cards, and both cards exist", async () => {
    const openAiLike = "sk-proj-Wd3nR7tY1bV5kM9qX2hJ6cF4sG8uL0pZ4aQe";
    const call = (index: number, id: string, title: string) => {
      const args = JSON.stringify({ title, description: `The ${title.toLowerCase()}.`, assignees: ["Writer"], instruction: "Write it." });
      // The id and name in the first delta, the arguments in two pieces.
      return [
        chunk({ tool_calls: [callDelta(index, { id, name: "delegate_task", arguments: args.slice(0, 20) })] }),
        chunk({ tool_calls: [callDelta(index, { arguments: args.slice(20) })] }),
      ];
    };
    script = (request) => {
      if (lastUser(request.messages).startsWith("=== TOOL RESULTS ===")) return "Both are with Writer now.";
      return {
        chunks: [
          chunk({ role: "assistant", content: "" }),
          chunk({ content: "I'll split the page " }),
          chunk({ content: "in two." }),
          ...call(0, "call_hero", "Hero copy"),
          ...call(1, "call_faq", "FAQ copy"),
          chunk({ content: ` Writer has both (key ${openAiLike}).` }),
          chunk({}, "tool_calls"),
        ],
        pieceDelayMs: 20,
      };
    };
    const taskId = await mention("Native words", "@Jarvis split the page copy for Writer");
    const done = await newestRun(taskId, "completed");
    expect(done.toolCalls.map((c) => [c.name, c.outcome])).toEqual([["delegate_task", "ok"], ["delegate_task", "ok"]]);
    const children = await childrenOf(taskId);
    expect(children.map((c) => c.title)).toEqual(["FAQ copy", "Hero copy"]);
    const messages = await thread(taskId);
    const jarvis = messages.filter((m) => m.author.kind === "agent").map((m) => m.content);
    // Each piece of the reply's text once, in order, then the final reply; never the calls' markup.
    expect(jarvis).toEqual(["I'll split the page in two.", "Writer has both (key [redacted]). (Note: content redacted by scanner)", "Both are with Writer now."]);
    expect(messages.some((m) => m.content.includes(openAiLike.slice(8)))).toBe(false);
    // The words before the calls are posted before the calls acted (the cards were made after it).
    const said = messages.find((m) => m.content === "I'll split the page in two.")!;
    for (const child of children) expect(said._creationTime).toBeLessThan(child._creationTime);
  });

  test("text mode: no tools in the request, the prompt lists them as [TOOL: …] lines, and those lines run; auto still reads them", async () => {
    const delegation = (title: string) => `[TOOL: delegate_task ARG: {"title": "${title}", "description": "d", "assignees": ["Writer"], "instruction": "Do it."}]`;
    script = (request) => {
      const last = lastUser(request.messages);
      if (last.startsWith("=== TOOL RESULTS ===")) return "Handed over.";
      // A raw text answer: its [TOOL: …] line stays in the content whatever the request offers.
      return { chunks: [chunk({ role: "assistant", content: `Sure.\n${delegation(/text mode/.test(last) ? "Text copy" : "Auto copy")}` }), chunk({}, "stop")] };
    };
    await ada.mutation(api.modelSettings.setToolCalls, { departmentId: squad.departmentId, toolCalls: "text" });
    try {
      const before = squad.model.requests.length;
      const taskId = await mention("Text mode", "@Jarvis text mode: delegate the copy to Writer");
      await newestRun(taskId, "completed");
      expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Text copy"]);
      // The words around the [TOOL: …] line are posted, as for native calls, then the final reply.
      expect((await thread(taskId)).filter((m) => m.author.kind === "agent").map((m) => m.content)).toEqual(["Sure.", "Handed over."]);
      const first = squad.model.requests.slice(before).find((r) => isJarvis(r.messages))!;
      expect(first.body.tools).toBeUndefined();
      expect(JSON.stringify(first.body.messages[0])).toContain("[TOOL: <name> ARG: {<JSON arguments>}]");
    } finally {
      await ada.mutation(api.modelSettings.setToolCalls, { departmentId: squad.departmentId, toolCalls: null });
    }
    const before = squad.model.requests.length;
    const taskId = await mention("Auto mode", "@Jarvis delegate the copy to Writer");
    await newestRun(taskId, "completed");
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Auto copy"]);
    expect(squad.model.requests.slice(before).find((r) => isJarvis(r.messages))!.body.tools).toBeDefined();
  });

  /** A reply that delegates `first` at once, then streams slowly (`slowChunks` × 150 ms), then delegates `second`. */
  function slowReply(first: string, second: string, slowChunks: number): Script {
    const call = (index: number, title: string) =>
      chunk({ tool_calls: [callDelta(index, { id: `call_${title.replace(/\W/g, "")}`, name: "delegate_task", arguments: JSON.stringify({ title, description: "d", assignees: ["Writer"], instruction: "Go." }) })] });
    return (request) => {
      if (lastUser(request.messages).startsWith("=== TOOL RESULTS ===")) return "Both handed over.";
      return {
        chunks: [chunk({ role: "assistant", content: "First, " }), call(0, first), ...Array.from({ length: slowChunks }, (_, i) => chunk({ content: `thinking ${i}. ` })), call(1, second), chunk({}, "tool_calls")],
        pieceDelayMs: 150,
      };
    };
  }

  test("a call starts once its arguments are complete, while the reply still streams; the next one when it completes", async () => {
    script = slowReply("Early copy", "Late copy", 8);
    const taskId = await mention("Early dispatch", "@Jarvis hand the copy over");
    await waitFor(async () => (await childrenOf(taskId)).length > 0, 10_000, "the first delegation");
    const [run] = await ada.query(api.runs.listForTask, { taskId });
    // The first task exists while the reply is still streaming: no message_end yet, and the second call not made.
    const events = await ada.query(api.runEvents.listForRun, { runId: run._id });
    expect(events.some((e) => e.payload.type === "message_end")).toBe(false);
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Early copy"]);
    const done = await newestRun(taskId, "completed");
    expect(done.toolCalls.map((c) => [c.name, c.outcome])).toEqual([["delegate_task", "ok"], ["delegate_task", "ok"]]);
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Early copy", "Late copy"]);
  });

  test("Stop cancels the stream and the calls not started yet; the call that ran keeps its result", async () => {
    script = slowReply("Stop copy", "Never copy", 20);
    const taskId = await mention("Stop dispatch", "@Jarvis hand the copy over");
    await waitFor(async () => (await childrenOf(taskId)).length > 0, 10_000, "the first delegation");
    const [run] = await ada.query(api.runs.listForTask, { taskId });
    await ada.mutation(api.runs.stop, { taskId, runId: run._id });
    const stopped = await newestRun(taskId, "aborted");
    // Well within the reply's 3 s: the stream was cancelled, and its second call never started.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Stop copy"]);
    const events = await ada.query(api.runEvents.listForRun, { runId: stopped._id });
    expect(events.filter((e) => e.payload.type === "tool_call").map((e) => (e.payload as { name: string }).name)).toEqual(["delegate_task"]);
    expect(events.filter((e) => e.payload.type === "tool_result")).toHaveLength(1);
  });

  test("a denied call and a call over the per-reply limit get their results back as tool messages too, paired by id", async () => {
    const calls = [
      { id: "call_denied", name: "dm_list", arguments: "{}" },
      ...Array.from({ length: 8 }, (_, i) => ({ id: `call_post_${i}`, name: "post_message", arguments: JSON.stringify({ content: `Note ${i}.` }) })),
    ];
    script = (request) =>
      lastUser(request.messages).startsWith("=== TOOL RESULTS ===")
        ? "Noted all of it."
        : { chunks: [chunk({ role: "assistant", content: "" }), ...calls.map((call, index) => chunk({ tool_calls: [callDelta(index, call)] })), chunk({}, "tool_calls")] };
    const before = squad.model.requests.length;
    const taskId = await mention("Native limits", "@Jarvis post some notes");
    await newestRun(taskId, "completed");
    const second = squad.model.requests.slice(before).filter((r) => isJarvis(r.messages))[1];
    const tools = (second.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>).filter((m) => m.role === "tool");
    expect(tools.map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id));
    expect(tools[0].content).toBe("permission denied: Jarvis may not call dm_list");
    expect(tools[1].content).toBe("posted in the thread");
    expect(tools.at(-1)!.content).toBe("not run: at most 8 tool calls per reply");
    // A reply made only of calls says nothing of its own: the thread has what its calls posted, then the final reply.
    const said = (await thread(taskId)).filter((m) => m.author.kind === "agent").map((m) => m.content);
    expect(said).toEqual([...Array.from({ length: 7 }, (_, i) => `Note ${i}.`), "Noted all of it."]);
  });
});
