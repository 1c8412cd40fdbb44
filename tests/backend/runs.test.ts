/**
 * Runs on the offline backend with the real `openai` client streaming from a
 * scripted model: the reply streams into the run's events and the thread
 * sees the agent typing; Stop cancels the model call with no tool run and
 * nothing posted; a model 500 is retried and the run completes once.
 */
import path from "node:path";
import type { ConvexHttpClient } from "convex/browser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ChatMessage } from "../../convex/brain/model";
import { replayRun } from "../../convex/lib/runTimeline";
import { PROJECT_ROOT, seedDemoSquad, startTestBackend, waitFor } from "./helpers";
import { scanLogFile } from "../../tools/local-backend/storage";
import { recordConsoleLog } from "./lifecycle";
import { scriptedModelEnv, startScriptedModel, type ScriptedAnswer } from "./scriptedModel";

let backend: Awaited<ReturnType<typeof startTestBackend>>;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
let ada: ConvexHttpClient;
let departmentId: Id<"departments">;
let script: (messages: ChatMessage[], index: number) => ScriptedAnswer = () => "Nothing to do.";
const logs: string[] = [];

beforeAll(async () => {
  model = await startScriptedModel((request, index) => script(request.messages, index));
  Object.assign(process.env, scriptedModelEnv(model), { MAESTRO_MODEL_MAX_RETRIES: "2" });
  recordConsoleLog(logs);
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  ({ member: ada, departmentId } = await seedDemoSquad(backend));
});

afterAll(async () => {
  await backend?.stop();
  await model?.close();
});

async function mention(title: string, content: string) {
  const taskId = await ada.mutation(api.tasks.create, { departmentId, title, description: "", assigneeSessionKeys: [] });
  await ada.mutation(api.messages.create, { taskId, content });
  await waitFor(async () => (await ada.query(api.runs.listForTask, { taskId })).length > 0, 10_000, "a run");
  const [run] = await ada.query(api.runs.listForTask, { taskId });
  return { taskId, runId: run._id };
}
async function ended(taskId: Id<"tasks">) {
  await waitFor(async () => (await ada.query(api.runs.listForTask, { taskId })).every((r) => r.status !== "queued" && r.status !== "running"), 20_000, "runs to end");
  return await ada.query(api.runs.listForTask, { taskId });
}
async function thread(taskId: Id<"tasks">) {
  const page = await ada.query(api.messages.list, { taskId, paginationOpts: { numItems: 100, cursor: null } });
  return page.page.reverse().map((m) => `${m.author.kind === "system" ? "system" : m.author.name}: ${m.content}`);
}

describe("streaming", () => {
  test("the reply streams into message_update events, shown as typing, then posted once", async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
    script = () => ({ content: words.join(""), pieces: words, pieceDelayMs: 15 });
    const { taskId, runId } = await mention("Stream", "@Jarvis tell me a story");
    await waitFor(async () => ((await ada.query(api.runs.streamingForTask, { taskId }))[0]?.text ?? "").startsWith("word0"), 10_000, "typing");
    const [run] = await ended(taskId);
    expect(run.status).toBe("completed");
    expect(await thread(taskId)).toEqual(["Ada: @Jarvis tell me a story", `Jarvis: ${words.join("").trim()}`]);
    const events = await ada.query(api.runEvents.listForRun, { runId });
    const updates = events.filter((e) => e.payload.type === "message_update");
    expect(updates.length).toBeGreaterThan(1);
    expect(updates.length).toBeLessThan(words.length);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const timeline = replayRun(events);
    expect(timeline.items.map((item) => item.kind)).toEqual(["user_message", "agent_start", "message", "end"]);
    expect(timeline.items[2]).toMatchObject({ kind: "message", text: words.join(""), streaming: false });
    expect(await ada.query(api.runs.streamingForTask, { taskId })).toEqual([]);
  });
});

describe("a reply that arrives whole", () => {
  test("its text, message_end and the run's end are one write, after message_start", async () => {
    script = () => "On it, starting with the header.";
    const { taskId, runId } = await mention("Whole", "@Jarvis can you take the header?");
    const [run] = await ended(taskId);
    expect(run.status).toBe("completed");
    expect(await thread(taskId)).toEqual(["Ada: @Jarvis can you take the header?", "Jarvis: On it, starting with the header."]);
    // The run's events, grouped by the commit that wrote them (the write-ahead log holds one line per commit).
    const writes: string[][] = [];
    scanLogFile(path.join(backend.dataDir, "wal.jsonl"), (line) => {
      if (line.type !== "commit") return;
      // A run event is the document with the run's id and a payload (its stream counter has no payload).
      const types = line.writes.flatMap(([, doc]) => (doc?.runId === runId && doc.payload !== undefined ? [(doc.payload as { type: string }).type] : []));
      if (types.length > 0) writes.push(types);
    });
    expect(writes).toEqual([["user_message_submitted"], ["agent_start"], ["message_start"], ["message_update", "message_end", "agent_end"]]);
    const events = await ada.query(api.runEvents.listForRun, { runId });
    expect(events.find((e) => e.payload.type === "message_update")?.payload).toEqual({ type: "message_update", delta: "On it, starting with the header." });
  });
});

describe("Stop", () => {
  test("mid-stream: agent_end aborted, the model call cancelled, no tool run, nothing posted", async () => {
    const pieces = ["Looking ", "into ", "it.\n", '[TOOL: post_message ARG: {"content": "should never be posted"}]'];
    script = () => ({ content: pieces.join(""), pieces, pieceDelayMs: 400 });
    const requestsBefore = model.requests.length;
    const { taskId, runId } = await mention("Stop me", "@Jarvis do the long thing");
    await waitFor(async () => ((await ada.query(api.runs.streamingForTask, { taskId }))[0]?.text ?? "") !== "", 10_000, "typing");
    await ada.mutation(api.runs.stop, { taskId, runId });
    await waitFor(() => logs.some((line) => line.includes(`[run ${runId}] stopped`)), 10_000, "the action to stop");
    const [run] = await ended(taskId);
    expect(run).toMatchObject({ status: "aborted", reason: "stopped by Ada", toolCalls: [] });
    const events = await ada.query(api.runEvents.listForRun, { runId });
    expect(events.at(-1)!.payload).toEqual({ type: "agent_end", reason: "aborted", detail: "stopped by Ada" });
    expect(events.some((e) => e.payload.type === "tool_call")).toBe(false);
    expect(await thread(taskId)).toEqual(["Ada: @Jarvis do the long thing"]);
    expect(model.requests.length - requestsBefore).toBe(1);
  });
});

describe("Stop before the first token", () => {
  test("the quiet model call is cancelled by the keep-alive, and the run ends aborted", async () => {
    script = () => ({ content: "too late", delayMs: 30_000 });
    const { taskId, runId } = await mention("Quiet", "@Jarvis think hard");
    await waitFor(async () => (await ada.query(api.runs.listForTask, { taskId }))[0]?.status === "running", 10_000, "running");
    await ada.mutation(api.runs.stop, { taskId, runId });
    // The action returns long before the model would have answered.
    await waitFor(() => logs.some((line) => line.includes(`[run ${runId}] stopped`)), 10_000, "the action to stop");
    const events = await ada.query(api.runEvents.listForRun, { runId });
    expect(events.map((e) => e.payload.type)).toEqual(["user_message_submitted", "agent_start", "message_start", "control_submitted", "agent_end"]);
    expect(await thread(taskId)).toEqual(["Ada: @Jarvis think hard"]);
  });
});

describe("model failures", () => {
  test("a 500 once: retried, the run completes once", async () => {
    script = (_messages, index) => (index === model.requests.length - 1 && !failedOnce ? ((failedOnce = true), { status: 500, headers: { "retry-after": "0" } }) : "Recovered.");
    let failedOnce = false;
    const { taskId } = await mention("Flaky", "@Jarvis are you there?");
    const [run] = await ended(taskId);
    expect(run.status).toBe("completed");
    expect(failedOnce).toBe(true);
    expect(await thread(taskId)).toEqual(["Ada: @Jarvis are you there?", "Jarvis: Recovered."]);
  });

  test("a model that keeps failing ends the run with the reason, said in the thread", async () => {
    script = () => ({ status: 503, headers: { "retry-after": "0" } });
    const { taskId } = await mention("Down", "@Jarvis hello?");
    const [run] = await ended(taskId);
    expect(run.status).toBe("error");
    expect(run.reason).toMatch(/^Model call failed: 503 Service Unavailable .* \(after 2 retries\)/);
    expect((await thread(taskId)).at(-1)).toMatch(/^system: Jarvis could not finish: Model call failed: 503/);
  });
});
