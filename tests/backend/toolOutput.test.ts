/**
 * An external tool's round trip end to end on the offline backend: Jarvis
 * calls `web_fetch` (run outside Maestro), his run waits on the call, a
 * member hands back its output with `runs.toolOutput`, and the resumed run
 * goes on from the call with the output as its result, with a scripted
 * OpenAI-compatible model; unanswered, the call times out on the backend's
 * scheduler and the run goes on with the timeout as the call's error.
 * tests/convex/toolOutput.test.ts has the refusals.
 */
import type { ConvexHttpClient } from "convex/browser";
import { beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { UNTRUSTED_LABEL } from "../../convex/lib/untrusted";
import { scriptedSquad, waitFor } from "./helpers";
import { isJarvis, lastUser } from "./scriptedModel";

const FETCH = '[TOOL: web_fetch ARG: {"url": "https://example.com/pricing"}]';

let ada: ConvexHttpClient;
let departmentId: Id<"departments">;

/** Jarvis fetches the page, then repeats the first line of what the results said. */
const squad = scriptedSquad((request) => {
  if (!isJarvis(request.messages)) return "Noted.";
  const last = lastUser(request.messages);
  return last.startsWith("=== TOOL RESULTS ===") ? `Read it: ${last.split("\n")[1]}` : `Let me look.\n${FETCH}`;
});

beforeAll(async () => {
  ({ member: ada, departmentId } = squad);
  const jarvis = (await ada.query(api.agents.list, { departmentId })).find((agent) => agent.name === "Jarvis")!;
  const { _id: agentId, name, role, kind, model, systemPrompt, isSquadLead, allowedTools } = jarvis;
  await ada.mutation(api.agents.update, { agentId, name, role, kind, model, systemPrompt, isSquadLead, allowedTools: [...allowedTools, "web_fetch"] });
});

async function runOf(taskId: Id<"tasks">, status: string) {
  await waitFor(async () => (await ada.query(api.runs.listForTask, { taskId }))[0]?.status === status, 20_000, `the run to be ${status}`);
  return (await ada.query(api.runs.listForTask, { taskId }))[0];
}

describe("an external tool's output", () => {
  test("the run waits on web_fetch; the submitted output is the call's result and the run completes with it", async () => {
    const taskId = await ada.mutation(api.tasks.create, { departmentId, title: "Pricing", description: "", assigneeSessionKeys: [] });
    await ada.mutation(api.messages.create, { taskId, content: "@Jarvis what does example.com charge?" });
    const waiting = await runOf(taskId, "waiting");
    // The drawer says what it waits for: the tool's output, not a person.
    expect(waiting.waitingOnTool).toBe("web_fetch");
    const events = await ada.query(api.runEvents.listForRun, { runId: waiting._id });
    const call = events.map((e) => e.payload).find((p) => p.type === "tool_call");
    expect(call).toMatchObject({ type: "tool_call", name: "web_fetch", args: '{"url":"https://example.com/pricing"}' });
    // Nothing ran it: the call has no result yet.
    expect(events.some((e) => e.payload.type === "tool_result")).toBe(false);

    const toolCallId = `${waiting._id}:${(call as { index: number }).index}`;
    await ada.mutation(api.runs.toolOutput, { runId: waiting._id, tool: "web_fetch", toolCallId, output: "Pricing: $10 a seat." });
    const done = await runOf(taskId, "completed");
    expect(done.waitingOnTool).toBeUndefined();
    const after = (await ada.query(api.runEvents.listForRun, { runId: done._id })).map((e) => e.payload);
    expect(after.filter((p) => p.type === "tool_output_submitted")).toEqual([{ type: "tool_output_submitted", tool: "web_fetch", toolCallId, content: "Pricing: $10 a seat." }]);
    expect(after.filter((p) => p.type === "tool_result")).toEqual([{ type: "tool_result", index: 0, name: "web_fetch", outcome: "ok", observation: "Pricing: $10 a seat." }]);
    const thread = (await ada.query(api.messages.list, { taskId, paginationOpts: { numItems: 20, cursor: null } })).page;
    expect(thread[0]).toMatchObject({ author: { kind: "agent", name: "Jarvis" }, content: expect.stringContaining("Pricing: $10 a seat.") });
    // Once: the call is answered.
    await expect(ada.mutation(api.runs.toolOutput, { runId: done._id, tool: "web_fetch", toolCallId, output: "again" })).rejects.toThrow(/not waiting/);
  });

  test("an 88 KB output is cut so that it stays valid JSON and says how much was left out", async () => {
    const taskId = await ada.mutation(api.tasks.create, { departmentId, title: "Big pricing", description: "", assigneeSessionKeys: [] });
    await ada.mutation(api.messages.create, { taskId, content: "@Jarvis what does example.com charge for everything?" });
    const waiting = await runOf(taskId, "waiting");
    const call = (await ada.query(api.runEvents.listForRun, { runId: waiting._id })).map((e) => e.payload).find((p) => p.type === "tool_call") as { index: number };
    const plans = Array.from({ length: 800 }, (_, i) => ({ name: `Plan ${i}`, price: `$${i} a seat`, notes: "n".repeat(60) }));
    const output = JSON.stringify({ url: "https://example.com/pricing", plans });
    expect(output.length).toBeGreaterThan(88_000);
    const before = squad.model.requests.length;
    await ada.mutation(api.runs.toolOutput, { runId: waiting._id, tool: "web_fetch", toolCallId: `${waiting._id}:${call.index}`, output });
    await runOf(taskId, "completed");
    const request = squad.model.requests.slice(before).find((r) => isJarvis(r.messages))!;
    const result = (request.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "tool")!.content;
    expect(result.length).toBeLessThanOrEqual(4000);
    expect(result).not.toContain("[truncated]");
    // An outside executor's output reaches the model labelled as untrusted data, and after the label it is valid JSON.
    const label = `(${UNTRUSTED_LABEL}) `;
    expect(result.startsWith(label)).toBe(true);
    const read = JSON.parse(result.slice(label.length)) as { plans: unknown[]; omitted: number; note: string };
    expect(read.plans.length + read.omitted).toBe(800);
    expect(read.omitted).toBeGreaterThan(0);
    expect(read.note).toContain(`${read.omitted} of 800 plans left out`);
  });

  test("nobody hands the output back: the call times out on the backend's scheduler, the model reads the timeout and the run completes; a late output is refused", async () => {
    // The deployment's timeout, short for the test (lib/limits externalCallTimeoutMs reads it when the run pauses).
    process.env.MAESTRO_EXTERNAL_CALL_TIMEOUT_MS = "2000";
    try {
      const taskId = await ada.mutation(api.tasks.create, { departmentId, title: "Pricing, unanswered", description: "", assigneeSessionKeys: [] });
      await ada.mutation(api.messages.create, { taskId, content: "@Jarvis what does example.com charge?" });
      const waiting = await runOf(taskId, "waiting");
      expect(waiting.waitingExpiresAt).toBeGreaterThan(Date.now() - 2000);
      const listed = await ada.query(api.runs.waitingToolCalls, { departmentId, paginationOpts: { numItems: 10, cursor: null } });
      const call = listed.page.find((c) => c.runId === waiting._id)!;
      expect(call).toMatchObject({ tool: "web_fetch", arguments: '{"url":"https://example.com/pricing"}', expiresAt: waiting.waitingExpiresAt });

      const done = await runOf(taskId, "completed");
      const events = (await ada.query(api.runEvents.listForRun, { runId: done._id })).map((e) => e.payload);
      const timeout = "timed out after 2 seconds: no outside executor handed back its output. Go on without it, or say what you still need.";
      expect(events.filter((p) => p.type === "tool_output_submitted")).toEqual([{ type: "tool_output_submitted", tool: "web_fetch", toolCallId: call.toolCallId, content: `failed: ${timeout}`, expired: true }]);
      expect(events.filter((p) => p.type === "tool_result")).toEqual([{ type: "tool_result", index: 0, name: "web_fetch", outcome: "error", observation: `web_fetch failed: ${timeout}` }]);
      const thread = (await ada.query(api.messages.list, { taskId, paginationOpts: { numItems: 20, cursor: null } })).page;
      expect(thread[0]).toMatchObject({ author: { kind: "agent", name: "Jarvis" }, content: expect.stringContaining("timed out after 2 seconds") });
      expect((await ada.query(api.runs.waitingToolCalls, { departmentId, paginationOpts: { numItems: 10, cursor: null } })).page.map((c) => c.runId)).not.toContain(done._id);
      await expect(ada.mutation(api.runs.toolOutput, { runId: done._id, tool: "web_fetch", toolCallId: call.toolCallId, output: "too late" })).rejects.toThrow(/timed out after 2 seconds before its output arrived/);
    } finally {
      delete process.env.MAESTRO_EXTERNAL_CALL_TIMEOUT_MS;
    }
  });
});
