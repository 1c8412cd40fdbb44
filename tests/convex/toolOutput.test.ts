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
 * and bounded like any observation. The same over the HTTP API
 * (`POST /runs/{id}/tool-output`, an agent's key with the `tools:run` scope,
 * the run in the key's department), answered with HTTP_STATUS. The action's
 * side is in tests/backend/toolOutput.test.ts.
 */
import { describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import { EXTERNAL_CALL_TIMEOUT_MS, externalCallTimeoutMs, MAX_WAITING_CALLS_PAGE, timeoutWords } from "../../convex/lib/limits";
import { MAX_TOOL_OUTPUT_CHARS } from "../../convex/lib/pauses";
import { MAX_EVENT_TEXT_CHARS } from "../../convex/lib/runEvents";
import { TOOL_REGISTRY, type ToolDefinition, type ToolScope } from "../../convex/tools/registry";
import { API_SCOPES } from "../../convex/lib/apiKeys";
import {
  addToDepartment,
  agent,
  AGENTS,
  callMessagingApi,
  createOtherAgent,
  createOtherDepartment,
  createOtherTask,
  createTask,
  demoSquad,
  expectError,
  EXTERNAL_CALL_ARGS as ARGS,
  externalCallState,
  holdScheduledFunctions,
  insertRun,
  pausedOnExternalCall,
  squadWithWriterKey,
  type TestConvex,
} from "./setup";

holdScheduledFunctions();

async function setup() {
  const { t, departmentId, admin } = await demoSquad();
  const taskId = await createTask(admin, departmentId, { title: "Pricing page" });
  const { runId, callId } = await pausedOnExternalCall(t, taskId);
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
    expect(text.length).toBeLessThanOrEqual(MAX_EVENT_TEXT_CHARS);
    // Cut at a counted character (one long line), saying how much was left out, never mid-way with "[truncated]".
    expect(text).toMatch(/… \([\d,]+ more characters left out to keep this result short\)$/);
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
    const second = await pausedOnExternalCall(t, taskId, 0);
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
    const foreign = await pausedOnExternalCall(t, await createOtherTask(t, other.departmentId), 2, await createOtherAgent(t, other.departmentId));
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
      state: { ...externalCallState(0), call: { name: "delegate_task", args: delegation } },
    });
    const before = await snapshot(t);
    await expectError(admin.mutation(api.runs.toolOutput, { runId: approvalRun, tool: "delegate_task", toolCallId: `${approvalRun}:0`, output: "done" }), "CONFLICT");
    expect(await snapshot(t)).toBe(before);
  });
});

describe("POST /runs/{id}/tool-output (an agent's API key)", () => {
  async function keyed() {
    const { t, departmentId, admin, writer, key } = await squadWithWriterKey();
    const taskId = await createTask(admin, departmentId, { title: "Pricing page" });
    const { runId, callId } = await pausedOnExternalCall(t, taskId);
    const submit = (body: Record<string, unknown>, as: string | null = key, run: string = runId) =>
      callMessagingApi(t, as, "POST", `/runs/${encodeURIComponent(run)}/tool-output`, { tool: "web_fetch", tool_call_id: callId, ...body });
    return { t, departmentId, admin, writer, key, taskId, runId, callId, submit };
  }

  test("a key with tools:run hands back the output: 200, tool_output_submitted, the run queued with it as the call's result", async () => {
    const { t, runId, callId, submit } = await keyed();
    const answer = await submit({ output: "Pricing: $10 a seat. key AKIAIOSFODNN7EXAMPLF" });
    expect(answer).toEqual({ status: 200, body: { run_id: runId, tool_call_id: callId, submitted: true } });
    const event = (await eventsOf(t, runId)).at(-1);
    expect(event).toMatchObject({ type: "tool_output_submitted", tool: "web_fetch", toolCallId: callId });
    expect(JSON.stringify(event)).not.toContain("AKIAIOSFODNN7EXAMPLF");
    expect((await runOf(t, runId)).status).toBe("queued");
    expect((await nextAttempt(t, runId))?.resolution).toMatchObject({ kind: "result", outcome: "ok", text: expect.stringContaining("Pricing: $10 a seat.") });
  });

  test("refused, changing nothing: no key, a bad key, a key without tools:run, another department's key", async () => {
    const { t, admin, writer, submit } = await keyed();
    const withoutScope = await admin.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: API_SCOPES.filter((s) => s !== "tools:run") });
    const other = await createOtherDepartment(t);
    const spy = await agent(t, await createOtherAgent(t, other.departmentId));
    const { key: foreignKey } = await other.member.mutation(api.agentApiKeys.create, { agentId: spy._id });
    const before = await snapshot(t);
    expect((await submit({ output: "hijacked" }, null)).status).toBe(401);
    expect((await submit({ output: "hijacked" }, "mk_nope")).status).toBe(401);
    const unscoped = await submit({ output: "hijacked" }, withoutScope.key);
    expect(unscoped.status).toBe(403);
    expect(unscoped.body.error).toContain('"tools:run" scope');
    const foreign = await submit({ output: "hijacked" }, foreignKey);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toMatch(/another department/);
    expect(await snapshot(t)).toBe(before);
  });

  test("refused with the mutation's refusals and their HTTP status, changing nothing: wrong call id, wrong tool, both or neither, too long, no such run", async () => {
    const { t, key, taskId, runId, callId, submit } = await keyed();
    const second = await pausedOnExternalCall(t, taskId, 0);
    const before = await snapshot(t);
    const refusals: Array<[Record<string, unknown>, number, RegExp, string?]> = [
      [{ tool_call_id: `${runId}:1`, output: "ok" }, 404, /not waiting for call/],
      [{ tool_call_id: second.callId, output: "ok" }, 404, /not waiting for call/],
      [{ tool: "delegate_task", output: "ok" }, 400, /call of web_fetch, not of delegate_task/],
      [{ output: "ok", error: "and an error" }, 400, /not both or neither/],
      [{}, 400, /not both or neither/],
      [{ output: "x".repeat(MAX_TOOL_OUTPUT_CHARS + 1) }, 400, /limit/],
      [{ output: 42 }, 400, /"output" must be a string/],
      [{ tool_call_id: undefined, output: "ok" }, 400, /"tool_call_id" is required/],
      [{ output: "ok" }, 404, /Run not found/, "not-a-run"],
    ];
    for (const [body, status, message, run] of refusals) {
      const answer = await submit(body, undefined, run);
      expect([answer.status, answer.body.error], JSON.stringify(body).slice(0, 80)).toEqual([status, expect.stringMatching(message)]);
    }
    const elsewhere = await callMessagingApi(t, key, "POST", `/runs/${runId}/tool-output/more`, { tool: "web_fetch", tool_call_id: callId, output: "ok" });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([404, expect.stringMatching(/No such endpoint/)]);
    expect(await snapshot(t)).toBe(before);
  });

  test("once: a repeat is 409 and the first output stands; a stopped run's call is 409 too", async () => {
    const { t, admin, taskId, submit } = await keyed();
    expect((await submit({ output: "first" })).status).toBe(200);
    const after = await snapshot(t);
    const repeat = await submit({ output: "second" });
    expect([repeat.status, repeat.body.error]).toEqual([409, expect.stringMatching(/already submitted/)]);
    expect(await snapshot(t)).toBe(after);

    const stopped = await pausedOnExternalCall(t, taskId, 4);
    await admin.mutation(api.runs.stop, { taskId, runId: stopped.runId });
    const beforeLate = await snapshot(t);
    const late = await submit({ tool_call_id: stopped.callId, output: "late" }, undefined, stopped.runId);
    expect(late.status).toBe(409);
    expect(await snapshot(t)).toBe(beforeLate);
  });
});

/** Moves the fake clock on by `ms` and lets every scheduled function that came due finish. */
async function advance(t: TestConvex, ms: number) {
  vi.advanceTimersByTime(ms);
  await t.finishInProgressScheduledFunctions();
}

describe("an external call nobody answers in time", () => {
  test(`times out after ${EXTERNAL_CALL_TIMEOUT_MS / 60_000} minutes: the run records it and goes on with the timeout as the call's error`, async () => {
    const { t, runId, callId } = await setup();
    const waiting = await runOf(t, runId);
    expect(waiting.externalCallExpiresAt).toBe(waiting.externalCallSince! + EXTERNAL_CALL_TIMEOUT_MS);
    await advance(t, EXTERNAL_CALL_TIMEOUT_MS - 1000);
    expect((await runOf(t, runId)).status).toBe("waiting");
    await advance(t, 1000);
    const run = await runOf(t, runId);
    expect(run.status).toBe("queued");
    expect(run.externalCallExpiresAt).toBeUndefined();
    const timeout = "timed out after 10 minutes: no outside executor handed back its output. Go on without it, or say what you still need.";
    expect((await eventsOf(t, runId)).at(-1)).toEqual({ type: "tool_output_submitted", tool: "web_fetch", toolCallId: callId, content: `failed: ${timeout}`, expired: true });
    // The model reads the timeout as the call's failure.
    expect((await nextAttempt(t, runId))?.resolution).toEqual({ kind: "result", outcome: "error", text: `web_fetch failed: ${timeout}` });
  });

  test("a late output is refused, saying the call timed out, and changes nothing (app and HTTP alike)", async () => {
    const { t, departmentId, admin, writer, key } = await squadWithWriterKey();
    const taskId = await createTask(admin, departmentId, { title: "Pricing page" });
    const { runId, callId } = await pausedOnExternalCall(t, taskId);
    await advance(t, EXTERNAL_CALL_TIMEOUT_MS);
    const late = { runId, tool: "web_fetch", toolCallId: callId, output: "Pricing: $10 a seat." };
    for (const moment of ["queued", "running"]) {
      if (moment === "running") await nextAttempt(t, runId);
      expect((await runOf(t, runId)).status).toBe(moment);
      const before = await snapshot(t);
      await expectError(admin.mutation(api.runs.toolOutput, late), "CONFLICT", /Call .+ timed out after 10 minutes before its output arrived.+late output is refused/);
      const http = await callMessagingApi(t, key, "POST", `/runs/${runId}/tool-output`, { tool: "web_fetch", tool_call_id: callId, output: "late" });
      expect([http.status, http.body.error]).toEqual([409, expect.stringMatching(/timed out after 10 minutes/)]);
      expect(await snapshot(t)).toBe(before);
    }
    expect(writer).toBeDefined();
  });

  test("a call answered, or a run stopped, before the deadline: the timeout changes nothing", async () => {
    const { t, admin, taskId, runId, callId } = await setup();
    await admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, output: "in time" });
    const stopped = await pausedOnExternalCall(t, taskId, 5, AGENTS.jarvis);
    await admin.mutation(api.runs.stop, { taskId, runId: stopped.runId });
    // The resumed run's own action goes first (here it ends: no model is configured), then the deadline passes.
    await advance(t, 0);
    const before = await snapshot(t);
    await advance(t, EXTERNAL_CALL_TIMEOUT_MS);
    expect(await snapshot(t)).toBe(before);
    const outputs = (await eventsOf(t, runId)).filter((e) => e.type === "tool_output_submitted");
    expect(outputs).toEqual([{ type: "tool_output_submitted", tool: "web_fetch", toolCallId: callId, content: "in time" }]);
    expect((await eventsOf(t, stopped.runId)).some((e) => e.type === "tool_output_submitted")).toBe(false);
  });

  test("MAESTRO_EXTERNAL_CALL_TIMEOUT_MS sets the timeout; the message says it", () => {
    expect(externalCallTimeoutMs({})).toBe(EXTERNAL_CALL_TIMEOUT_MS);
    expect(externalCallTimeoutMs({ MAESTRO_EXTERNAL_CALL_TIMEOUT_MS: "30000" })).toBe(30_000);
    expect(externalCallTimeoutMs({ MAESTRO_EXTERNAL_CALL_TIMEOUT_MS: "-5" })).toBe(EXTERNAL_CALL_TIMEOUT_MS);
    expect(externalCallTimeoutMs({ MAESTRO_EXTERNAL_CALL_TIMEOUT_MS: "soon" })).toBe(EXTERNAL_CALL_TIMEOUT_MS);
    expect([60_000, 90_000, 1000, 3_600_000].map(timeoutWords)).toEqual(["1 minute", "90 seconds", "1 second", "60 minutes"]);
  });
});

describe("the waiting calls, for an outside executor", () => {
  const page = (numItems: number, cursor: string | null = null) => ({ numItems, cursor });

  test("runs.waitingToolCalls: the department's calls soonest to expire first, with what toolOutput needs; an answered or expired call leaves the list", async () => {
    const { t, departmentId, admin, taskId, runId, callId } = await setup();
    vi.advanceTimersByTime(1000);
    const second = await pausedOnExternalCall(t, taskId, 0, AGENTS.jarvis);
    const other = await createOtherDepartment(t);
    await pausedOnExternalCall(t, await createOtherTask(t, other.departmentId), 2, await createOtherAgent(t, other.departmentId));
    const first = await runOf(t, runId);
    const listed = await admin.query(api.runs.waitingToolCalls, { departmentId, paginationOpts: page(10) });
    expect(listed.isDone).toBe(true);
    expect(listed.page).toEqual([
      { runId, taskId, tool: "web_fetch", toolCallId: callId, arguments: ARGS, since: first.externalCallSince, expiresAt: first.externalCallSince! + EXTERNAL_CALL_TIMEOUT_MS },
      expect.objectContaining({ runId: second.runId, toolCallId: second.callId }),
    ]);
    // Paged.
    const one = await admin.query(api.runs.waitingToolCalls, { departmentId, paginationOpts: page(1) });
    expect(one.page.map((c) => c.toolCallId)).toEqual([callId]);
    const two = await admin.query(api.runs.waitingToolCalls, { departmentId, paginationOpts: page(1, one.continueCursor) });
    expect(two.page.map((c) => c.toolCallId)).toEqual([second.callId]);

    await admin.mutation(api.runs.toolOutput, { runId, tool: "web_fetch", toolCallId: callId, output: "done" });
    expect((await admin.query(api.runs.waitingToolCalls, { departmentId, paginationOpts: page(10) })).page.map((c) => c.toolCallId)).toEqual([second.callId]);
    await advance(t, EXTERNAL_CALL_TIMEOUT_MS);
    expect((await admin.query(api.runs.waitingToolCalls, { departmentId, paginationOpts: page(10) })).page).toEqual([]);
  });

  test("who may list: members and viewers of the department; refused signed out, to another department's admin, and beyond the page bound", async () => {
    const { t, departmentId, callId } = await setup();
    const viewer = await addToDepartment(t, departmentId, "Vic", "viewer");
    const other = await createOtherDepartment(t);
    const args = { departmentId, paginationOpts: page(10) };
    // A viewer reads the board and sees which calls wait, but not their arguments: only those who may answer see them.
    const seen = (await viewer.query(api.runs.waitingToolCalls, args)).page;
    expect(seen.map((c) => c.toolCallId)).toEqual([callId]);
    expect(seen[0]).not.toHaveProperty("arguments");
    await expectError(t.query(api.runs.waitingToolCalls, args), "UNAUTHENTICATED");
    await expectError(other.member.query(api.runs.waitingToolCalls, args), "FORBIDDEN");
    await expectError(viewer.query(api.runs.waitingToolCalls, { departmentId, paginationOpts: page(MAX_WAITING_CALLS_PAGE + 1) }), "INVALID_ARGUMENT", /1 to 50/);
    await expectError(viewer.query(api.runs.waitingToolCalls, { departmentId, paginationOpts: page(0) }), "INVALID_ARGUMENT");
  });

  test("GET /tool-calls/waiting: a key with tools:run lists its department's calls (snake_case, arguments as JSON, paged); refused without a key, a bad key, or the scope", async () => {
    const { t, departmentId, admin, writer, key } = await squadWithWriterKey();
    const taskId = await createTask(admin, departmentId, { title: "Pricing page" });
    const { runId, callId } = await pausedOnExternalCall(t, taskId);
    const second = await pausedOnExternalCall(t, taskId, 0, AGENTS.jarvis);
    const run = await runOf(t, runId);
    const list = await callMessagingApi(t, key, "GET", "/tool-calls/waiting?limit=1");
    expect(list).toEqual({
      status: 200,
      body: {
        tool_calls: [{ run_id: runId, task_id: taskId, tool: "web_fetch", tool_call_id: callId, arguments: { url: "https://example.com/pricing" }, since: run.externalCallSince, expires_at: run.externalCallExpiresAt }],
        next_cursor: expect.any(String),
      },
    });
    const next = await callMessagingApi(t, key, "GET", `/tool-calls/waiting?limit=1&cursor=${encodeURIComponent(list.body.next_cursor!)}`);
    expect(next.body.tool_calls.map((c) => c.tool_call_id)).toEqual([second.callId]);
    const all = await callMessagingApi(t, key, "GET", "/tool-calls/waiting");
    expect([all.body.tool_calls.length, all.body.next_cursor]).toEqual([2, null]);

    const withoutScope = await admin.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: API_SCOPES.filter((s) => s !== "tools:run") });
    const other = await createOtherDepartment(t);
    const spy = await agent(t, await createOtherAgent(t, other.departmentId));
    const { key: foreignKey } = await other.member.mutation(api.agentApiKeys.create, { agentId: spy._id });
    const before = await snapshot(t);
    expect((await callMessagingApi(t, null, "GET", "/tool-calls/waiting")).status).toBe(401);
    expect((await callMessagingApi(t, "mk_nope", "GET", "/tool-calls/waiting")).status).toBe(401);
    const unscoped = await callMessagingApi(t, withoutScope.key, "GET", "/tool-calls/waiting");
    expect([unscoped.status, unscoped.body.error]).toEqual([403, expect.stringContaining('"tools:run" scope')]);
    // Another department's key sees its own department's calls only: none.
    expect(await callMessagingApi(t, foreignKey, "GET", "/tool-calls/waiting")).toEqual({ status: 200, body: { tool_calls: [], next_cursor: null } });
    for (const limit of ["0", "51", "1.5", "-1", "many"]) {
      const refused = await callMessagingApi(t, key, "GET", `/tool-calls/waiting?limit=${limit}`);
      expect([limit, refused.status]).toEqual([limit, 400]);
    }
    const badCursor = await callMessagingApi(t, key, "GET", "/tool-calls/waiting?cursor=not-a-cursor");
    expect([badCursor.status, badCursor.body.error]).toEqual([400, expect.stringMatching(/cursor/)]);
    expect(await snapshot(t)).toBe(before);
  });
});
