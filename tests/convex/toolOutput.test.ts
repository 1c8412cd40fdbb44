/**
 * `runs.toolOutput` (the spec's `session.toolOutput`), from the attacker's
 * side as much as the caller's: a call of a tool that runs outside Maestro
 * (tools/registry externalTool, `web_fetch`) pauses its run on the call; a
 * member of the run's department hands back its output or its error for
 * exactly that call, once, and the run resumes with it as the call's result.
 * Every other submission (signed out, a viewer, another department, a wrong,
 * foreign or repeated call id, the wrong tool, both or neither of output and
 * error, too long, a run that waits for something else or was stopped) is
 * refused with a clear error and changes nothing. The output is secret-scanned
 * and bounded like any observation. The action's side is in
 * tests/backend/toolOutput.test.ts.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import { MAX_TOOL_OUTPUT_CHARS } from "../../convex/lib/pauses";
import { MAX_EVENT_TEXT_CHARS } from "../../convex/lib/runEvents";
import { TOOL_REGISTRY, type ToolDefinition, type ToolScope } from "../../convex/tools/registry";
import { addToDepartment, AGENTS, createOtherAgent, createOtherDepartment, createOtherTask, createTask, demoSquad, expectError, holdScheduledFunctions, insertRun, type TestConvex } from "./setup";

holdScheduledFunctions();

const ARGS = '{"url":"https://example.com/pricing"}';

function state(index = 2) {
  return {
    conversation: [],
    round: 0,
    index,
    nextIndex: index + 1,
    call: { name: "web_fetch", args: ARGS },
    reply: `Let me look.\n[TOOL: web_fetch ARG: ${ARGS}]`,
    before: [],
    after: [],
    seen: [`call web_fetch ${ARGS}`],
  };
}

/** A run of the agent's (Writer's unless named) on the task, paused on its external call at `index`; returns its call id too. */
async function pausedRun(t: TestConvex, taskId: Id<"tasks">, index = 2, agentKey: string = AGENTS.writer) {
  const runId = await insertRun(t, agentKey, taskId);
  expect(await t.mutation(internal.brain.writes.pause, { runId, attempt: 1, request: { kind: "tool_output", tool: "web_fetch", args: ARGS }, state: state(index) })).toBe("ok");
  return { runId, callId: `${runId}:${index}` };
}

async function setup() {
  const { t, departmentId, admin } = await demoSquad();
  const taskId = await createTask(admin, departmentId, { title: "Pricing page" });
  const { runId, callId } = await pausedRun(t, taskId);
  return { t, departmentId, admin, taskId, runId, callId };
}

async function runOf(t: TestConvex, runId: Id<"runs">): Promise<Doc<"runs">> {
  return await t.run(async (ctx) => (await ctx.db.get("runs", runId))!);
}

async function eventsOf(t: TestConvex, runId: Id<"runs">) {
  return await t.run(async (ctx) => (await ctx.db.query("runEvents").withIndex("by_run_and_seq", (q) => q.eq("runId", runId)).collect()).map((e) => e.payload));
}

/** Everything a submission could touch: runs, their events, the cards. */
async function snapshot(t: TestConvex) {
  return await t.run(async (ctx) =>
    JSON.stringify(await Promise.all((["runs", "runEvents", "approvals", "questions", "plans"] as const).map((table) => ctx.db.query(table).collect()))),
  );
}

async function nextAttempt(t: TestConvex, runId: Id<"runs">) {
  const started = await t.mutation(internal.brain.writes.start, { runId });
  expect(started?.failure).toBeUndefined();
  return started!.resume;
}

describe("an external tool's call", () => {
  test("web_fetch runs nowhere in Maestro: its executor asks the run to wait for the call's output", async () => {
    const webFetch = TOOL_REGISTRY.find((entry) => entry.name === "web_fetch") as unknown as ToolDefinition;
    expect(webFetch.external).toBe(true);
    const result = await webFetch.execute(null as never, {} as ToolScope, { url: "https://example.com/pricing" });
    expect(result).toMatchObject({ ok: true, pause: { kind: "tool_output", tool: "web_fetch", args: ARGS } });
    expect(webFetch.args.safeParse({ url: "file:///etc/passwd" }).success).toBe(false);
  });

  test("pauses the run on the call itself: waiting, no lease, no card; the call's id is <runId>:<index>", async () => {
    const { t, runId, callId } = await setup();
    const run = await runOf(t, runId);
    expect(run).toMatchObject({ status: "waiting", paused: { kind: "tool_output", id: callId, index: 2 } });
    expect(run.paused?.output).toBeUndefined();
    expect(run.leaseExpiresAt).toBeUndefined();
    expect(await t.run(async (ctx) => [...(await ctx.db.query("approvals").collect()), ...(await ctx.db.query("questions").collect()), ...(await ctx.db.query("plans").collect())])).toEqual([]);
  });
});

describe("runs.toolOutput", () => {
  test("a member's output: tool_output_submitted, the run queued, and its next attempt reads the output as the call's result, once", async () => {
    const { t, departmentId, runId, callId } = await setup();
    const grace = await addToDepartment(t, departmentId, "Grace", "member");
    await grace.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, output: "  Pricing: $10 a seat.  " });
    expect((await eventsOf(t, runId)).at(-1)).toEqual({ type: "tool_output_submitted", tool: "web_fetch", toolCallId: callId, content: "Pricing: $10 a seat." });
    expect((await runOf(t, runId)).status).toBe("queued");
    const resume = await nextAttempt(t, runId);
    expect(resume?.pause).toMatchObject({ kind: "tool_output", id: callId, call: { name: "web_fetch", args: ARGS } });
    expect(resume?.resolution).toEqual({ kind: "result", outcome: "ok", text: "Pricing: $10 a seat." });
    expect((await runOf(t, runId)).paused).toBeUndefined();
  });

  test("an error instead of an output: the call's result is a failure the model can read", async () => {
    const { t, admin, runId, callId } = await setup();
    await admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, error: "HTTP 503 from example.com" });
    expect((await eventsOf(t, runId)).at(-1)).toMatchObject({ type: "tool_output_submitted", content: "failed: HTTP 503 from example.com" });
    expect((await nextAttempt(t, runId))?.resolution).toEqual({ kind: "result", outcome: "error", text: "web_fetch failed: HTTP 503 from example.com" });
  });

  test("the output is secret-scanned and bounded like any observation", async () => {
    const { t, admin, runId, callId } = await setup();
    const long = `key AKIAIOSFODNN7EXAMPLF then ${"x".repeat(10_000)}`;
    await admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, output: long });
    const { resolution } = (await nextAttempt(t, runId))!;
    const text = resolution.kind === "result" ? resolution.text : "";
    expect(text).not.toContain("AKIAIOSFODNN7EXAMPLF");
    expect(text.length).toBeLessThanOrEqual(MAX_EVENT_TEXT_CHARS + 20);
    expect(text).toMatch(/\[truncated\]$/);
    const event = (await eventsOf(t, runId)).find((e) => e.type === "tool_output_submitted");
    expect(JSON.stringify(event)).not.toContain("AKIAIOSFODNN7EXAMPLF");
  });

  test("refused, changing nothing: signed out, a viewer, another department's member", async () => {
    const { t, departmentId, runId, callId } = await setup();
    const viewer = await addToDepartment(t, departmentId, "Vic", "viewer");
    const other = await createOtherDepartment(t);
    const before = await snapshot(t);
    const args = { runId, tool: "web_fetch", toolCallId: callId, output: "hijacked" };
    await expectError(t.mutation(api.runs.toolOutput, args), "UNAUTHENTICATED");
    await expectError(viewer.mutation(api.runs.toolOutput, args), "FORBIDDEN");
    await expectError(other.member.mutation(api.runs.toolOutput, args), "FORBIDDEN");
    expect(await snapshot(t)).toBe(before);
  });

  test("refused, changing nothing: a wrong or foreign call id, the wrong tool, both or neither of output and error, too long", async () => {
    const { t, admin, departmentId, taskId, runId, callId } = await setup();
    // Another run of the same department, waiting on its own external call.
    const second = await pausedRun(t, taskId, 0);
    const other = await createOtherDepartment(t);
    const before = await snapshot(t);
    const call = (extra: Record<string, unknown>) => admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, output: "ok", ...extra });
    await expectError(call({ toolCallId: `${runId}:1` }), "NOT_FOUND", /not waiting for call/);
    await expectError(call({ toolCallId: second.callId }), "NOT_FOUND", /not waiting for call/);
    await expectError(call({ toolCallId: "anything" }), "NOT_FOUND");
    await expectError(call({ tool: "delegate_task" }), "INVALID_ARGUMENT", /call of web_fetch, not of delegate_task/);
    await expectError(call({ error: "and an error" }), "INVALID_ARGUMENT", /not both or neither/);
    await expectError(admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId }), "INVALID_ARGUMENT", /not both or neither/);
    await expectError(call({ output: "x".repeat(MAX_TOOL_OUTPUT_CHARS + 1) }), "INVALID_ARGUMENT", /limit/);
    await expectError(call({ output: undefined, error: "   " }), "INVALID_ARGUMENT", /must not be empty/);
    // Another department's run id: refused before anything about the run is said.
    const foreign = await pausedRun(t, await createOtherTask(t, other.departmentId), 2, await createOtherAgent(t, other.departmentId));
    const withForeign = await snapshot(t);
    await expectError(admin.mutation(api.runs.toolOutput, { runId: foreign.runId, tool: "web_fetch", toolCallId: foreign.callId, output: "x" }), "FORBIDDEN");
    expect(await snapshot(t)).toBe(withForeign);
    expect(before).not.toBe(withForeign);
    expect(departmentId).not.toBe(other.departmentId);
  });

  test("once: a second output for the same call is refused, and the first one stands", async () => {
    const { t, admin, runId, callId } = await setup();
    await admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, output: "first" });
    const after = await snapshot(t);
    await expectError(admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, output: "second" }), "CONFLICT", /already submitted/);
    expect(await snapshot(t)).toBe(after);
    // Also once the next attempt has taken it and the run runs on.
    expect((await nextAttempt(t, runId))?.resolution).toMatchObject({ text: "first" });
    await expectError(admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, output: "third" }), "CONFLICT");
  });

  test("refused for a run that waits on a person, and for a stopped run (whose external call simply ends with it)", async () => {
    const { t, admin, taskId, runId, callId } = await setup();
    await admin.mutation(api.runs.stop, { taskId, runId });
    expect((await runOf(t, runId)).status).toBe("aborted");
    await expectError(admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, output: "late" }), "CONFLICT");

    const approvalRun = await insertRun(t, AGENTS.writer, taskId);
    const delegation = '{"assignees":["Writer"],"description":"","instruction":"Go.","priority":"high","title":"Hero"}';
    await t.mutation(internal.brain.writes.pause, {
      runId: approvalRun,
      attempt: 1,
      request: { kind: "approval", tool: "delegate_task", args: delegation },
      state: { ...state(0), call: { name: "delegate_task", args: delegation } },
    });
    const before = await snapshot(t);
    await expectError(admin.mutation(api.runs.toolOutput, { runId: approvalRun, tool: "delegate_task", toolCallId: `${approvalRun}:0`, output: "done" }), "CONFLICT");
    expect(await snapshot(t)).toBe(before);
  });
});
