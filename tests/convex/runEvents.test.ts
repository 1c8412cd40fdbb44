/**
 * A run's event stream: the contract (event types and their key fields),
 * submit-before-runtime ordering, one sequence per run, de-duplicated
 * submits, Stop, the lease sweeper, and the reads screens use. The model is
 * "configured" on a closed port; fake timers hold `brain/run:execute`, and
 * tests play the action's part by calling its internal mutations.
 */
import { describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import { eventKind, vRunEventPayload } from "../../convex/lib/runEvents";
import { replayRun } from "../../convex/lib/runTimeline";
import { MAX_RUN_ATTEMPTS } from "../../convex/lib/runLease";
import { AGENTS, createOtherDepartment, createTask, demoSquad, expectError, signIn, startRun, withClosedModel, type TestConvex } from "./setup";

withClosedModel({ MAESTRO_RUN_LEASE_MS: "10000" });

async function events(t: TestConvex, runId: Id<"runs">) {
  return await t.run(async (ctx) =>
    await ctx.db.query("runEvents").withIndex("by_run_and_seq", (q) => q.eq("runId", runId)).collect(),
  );
}
const types = async (t: TestConvex, runId: Id<"runs">) => (await events(t, runId)).map((e) => `${e.seq} ${e.kind} ${e.payload.type}`);
/** `types` of a mention's run that has started and streamed two pieces of one message. */
const TWO_PIECES_STREAMED = [
  "1 submit user_message_submitted",
  "2 harness agent_start",
  "3 harness message_start",
  "4 harness message_update",
  "5 harness message_update",
];

async function getRun(t: TestConvex, runId: Id<"runs">): Promise<Doc<"runs">> {
  return await t.run(async (ctx) => (await ctx.db.get("runs", runId))!);
}

async function threadOf(t: TestConvex, taskId: Id<"tasks">) {
  return await t.run(async (ctx) =>
    (await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect()).map((m) =>
      m.author.kind === "system" ? `system: ${m.content}` : `${m.author.name}: ${m.content}`,
    ),
  );
}

/** A member mentions Jarvis on a fresh task; the trigger is taken up as the scheduler would. */
async function mentionJarvis(content = "@Jarvis plan the launch") {
  const { t, departmentId, admin } = await demoSquad();
  const taskId = await createTask(admin, departmentId, { title: "Launch" });
  const messageId = await admin.mutation(api.messages.create, { taskId, content });
  await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis });
  const runId = (await t.run(async (ctx) => (await ctx.db.query("runs").first())!._id))!;
  return { t, departmentId, admin, taskId, messageId, runId };
}

describe("the event contract", () => {
  test("event types and their fields are pinned", () => {
    const contract = vRunEventPayload.members.map((member) => {
      const fields = Object.entries(member.fields)
        .filter(([name]) => name !== "type")
        .map(([name, field]) => `${name}${field.isOptional === "optional" ? "?" : ""}`);
      const type = member.fields.type.value;
      return `${eventKind({ type })} ${type}(${fields.join(", ")})`;
    });
    expect(contract).toMatchInlineSnapshot(`
      [
        "harness message_update(delta)",
        "submit user_message_submitted(messageId?, channelMessageId?, author, content, blocking?)",
        "submit control_submitted(action, by, note?)",
        "submit tool_output_submitted(tool, toolCallId?, content, expired?)",
        "submit slash_command_invoked(name, invokedAs, args)",
        "submit slash_command_failed(name, invokedAs, error)",
        "harness agent_start(agentName, model, attempt)",
        "harness message_start(round)",
        "harness message_end(model, promptTokens, completionTokens, interrupted)",
        "harness tool_call(index, name, args, callId?)",
        "harness tool_result(index, name, outcome, observation)",
        "harness approval_requested(approvalId, tool, args)",
        "harness question_asked(questionId, question)",
        "harness plan_proposed(planId, steps)",
        "harness agent_end(reason, detail)",
      ]
    `);
  });
});

describe("appending", () => {
  test("submit before runtime: the mention is event 1, agent_start follows when the run starts, one sequence per run", async () => {
    const { t, runId, messageId } = await mentionJarvis();
    expect(await types(t, runId)).toEqual(["1 submit user_message_submitted"]);
    const [submit] = await events(t, runId);
    expect(submit).toMatchObject({ clientMessageId: messageId, payload: { author: "Ada", content: "@Jarvis plan the launch", messageId } });

    const { attempt } = (await t.mutation(internal.brain.writes.start, { runId }))!;
    expect(attempt).toBe(1);
    const writer = { runId, attempt };
    expect(await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 0 })).toBe("ok");
    expect(await t.mutation(internal.brain.writes.appendDelta, { ...writer, delta: "Hello " })).toBe("ok");
    expect(await t.mutation(internal.brain.writes.appendDelta, { ...writer, delta: "there" })).toBe("ok");
    expect(await t.mutation(internal.brain.writes.endMessage, { ...writer, model: "m", promptTokens: 3, completionTokens: 2, interrupted: false })).toBe("ok");
    await t.mutation(internal.brain.writes.finish, { runId, attempt, status: "completed", reason: "replied", reply: "Hello there" });
    expect(await types(t, runId)).toEqual([...TWO_PIECES_STREAMED, "6 harness message_end", "7 harness agent_end"]);
    const timeline = replayRun(await events(t, runId));
    expect(timeline.state).toEqual({ status: "ended", reason: "complete", detail: "replied" });
    expect(timeline.items.find((item) => item.kind === "message")).toMatchObject({ text: "Hello there", streaming: false, tokens: 5 });
  });

  test("the next round's message_start records the last round's model call in the same write, also when the run was stopped meanwhile", async () => {
    const { t, admin, runId } = await mentionJarvis();
    const attempt = await startRun(t, runId);
    const writer = { runId, attempt };
    const call = { model: "m", promptTokens: 5, completionTokens: 3, timing: { contextMs: 1, modelMs: 2, dispatchMs: 3 }, injectionTokens: 0 };
    expect(await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 1, modelCall: call })).toBe("ok");
    expect(await getRun(t, runId)).toMatchObject({ model: "m", iterations: 1, promptTokens: 5, completionTokens: 3, timings: [{ contextMs: 1, modelMs: 2, dispatchMs: 3 }] });
    // Stopped: nothing of the message is written, but the call the model answered is kept.
    const run = await getRun(t, runId);
    await admin.mutation(api.runs.stop, { taskId: run.taskId, runId });
    const before = await types(t, runId);
    expect(await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 2, modelCall: { ...call, promptTokens: 7 } })).toBe("aborted");
    expect(await types(t, runId)).toEqual(before);
    expect(await getRun(t, runId)).toMatchObject({ iterations: 2, promptTokens: 12, completionTokens: 6 });
  });

  test("words said mid-run keep their time on the run; the last reply, as the run ends, writes none (no later reply of the run reads it)", async () => {
    const { t, runId } = await mentionJarvis();
    const attempt = await startRun(t, runId);
    const writer = { runId, attempt };
    await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 0 });
    const usage = { model: "m", promptTokens: 3, completionTokens: 2 };
    await t.mutation(internal.brain.writes.endReply, { ...writer, ...usage, delta: "Looking. [TOOL: post_message ARG: {}]", say: "Looking.", firstCall: { index: 0, name: "post_message", args: "{}" } });
    const said = (await getRun(t, runId)).repliedAt;
    expect(said).toBeDefined();
    await t.mutation(internal.brain.writes.finish, { runId, attempt, status: "completed", reason: "replied", reply: "Done." });
    const ended = await getRun(t, runId);
    expect(ended.status).toBe("completed");
    expect(ended.repliedAt).toBe(said);
    const thread = await t.run(async (ctx) => await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", ended.taskId)).collect());
    expect(thread.map((m) => m.content).slice(-2)).toEqual(["Looking.", "Done."]);
  });

  test("a streamed call's announcement answers with what the dispatcher reads before it, read in the same write; a stopped run's answers aborted and writes nothing", async () => {
    const { t, admin, runId } = await mentionJarvis();
    const attempt = await startRun(t, runId);
    const writer = { runId, attempt };
    await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 0 });
    const start = { index: 0, name: "delegate_task", args: "{}" };
    const begun = await t.mutation(internal.brain.writes.beginToolCall, { ...writer, ...start, withScope: true });
    expect(begun).toEqual({ verdict: "ok", scope: await t.query(internal.brain.context.agentForDispatch, { runId }) });
    expect(begun).toMatchObject({ scope: { name: "Jarvis", isSquadLead: true, delegations: 0 } });
    expect(await t.mutation(internal.brain.writes.beginToolCall, { ...writer, ...start, index: 1 })).toBe("ok");
    const run = await getRun(t, runId);
    await admin.mutation(api.runs.stop, { taskId: run.taskId, runId });
    const before = await types(t, runId);
    expect(await t.mutation(internal.brain.writes.beginToolCall, { ...writer, ...start, index: 2, withScope: true })).toBe("aborted");
    expect(await types(t, runId)).toEqual(before);
  });

  test("a retried submit (same message) is written once; a mention while running is submitted to the running run", async () => {
    const { t, admin, taskId, messageId, runId } = await mentionJarvis();
    await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis });
    expect(await types(t, runId)).toEqual(["1 submit user_message_submitted"]);
    await t.mutation(internal.brain.writes.start, { runId });
    const again = await admin.mutation(api.messages.create, { taskId, content: "@Jarvis and the budget too" });
    await t.mutation(internal.triggers.agentMentioned, { taskId, messageId: again, sessionKey: AGENTS.jarvis });
    expect(await types(t, runId)).toEqual(["1 submit user_message_submitted", "2 harness agent_start", "3 submit user_message_submitted"]);
  });

  test("a streamed batch writes its event and the stream's counter, not the run row (lists and Stop do not re-run)", async () => {
    const { t, runId } = await mentionJarvis();
    const writer = { runId, attempt: await startRun(t, runId) };
    await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 0 });
    const before = await getRun(t, runId);
    expect(before.streamId).toBeDefined();
    for (const delta of ["a", "b", "c"]) expect(await t.mutation(internal.brain.writes.appendDelta, { ...writer, delta })).toBe("ok");
    expect(await getRun(t, runId)).toEqual(before);
    expect(await t.run(async (ctx) => await ctx.db.get("runStreams", before.streamId!))).toMatchObject({ runId, lastSeq: 6, messageStartSeq: 3 });
    expect((await types(t, runId)).slice(-3)).toEqual(["4 harness message_update", "5 harness message_update", "6 harness message_update"]);
  });

  test("a run whose events predate the counter goes on after its newest event, and still shows its typing", async () => {
    const { t, admin, taskId, runId } = await mentionJarvis();
    const writer = { runId, attempt: await startRun(t, runId) };
    await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 0 });
    // As stored before runStreams existed: events, and no stream on the run.
    await t.run(async (ctx) => {
      const run = (await ctx.db.get("runs", runId))!;
      await ctx.db.delete("runStreams", run.streamId!);
      await ctx.db.patch("runs", runId, { streamId: undefined });
    });
    expect(await admin.query(api.runs.streamingForTask, { taskId })).toEqual([{ runId, agentName: "Jarvis", text: "" }]);
    expect(await t.mutation(internal.brain.writes.appendDelta, { ...writer, delta: "x" })).toBe("ok");
    expect(await t.mutation(internal.brain.writes.appendDelta, { ...writer, delta: "y" })).toBe("ok");
    expect(await types(t, runId)).toEqual(TWO_PIECES_STREAMED);
    expect((await t.run(async (ctx) => await ctx.db.query("runStreams").collect())).map((s) => [s.runId, s.lastSeq, s.messageStartSeq])).toEqual([[runId, 5, undefined]]);
    // Its stream row does not know where the open message starts: the newest events are scanned for it.
    expect(await admin.query(api.runs.streamingForTask, { taskId })).toEqual([{ runId, agentName: "Jarvis", text: "xy" }]);
  });

  test("a tool call marks the run as having a side effect; its result takes the outcome the dispatcher recorded", async () => {
    const { t, runId } = await mentionJarvis();
    const writer = { runId, attempt: await startRun(t, runId) };
    expect(await t.mutation(internal.brain.writes.beginToolCall, { ...writer, index: 0, name: "post_message", args: '{"content":"x"}' })).toBe("ok");
    expect((await getRun(t, runId)).toolStarted).toBe(true);
    await t.mutation(internal.brain.writes.recordToolCall, {
      runId,
      record: { name: "post_message", args: "{}", outcome: "denied", observation: "permission denied", at: 1 },
      delegated: false,
    });
    expect(await t.mutation(internal.brain.writes.endToolCall, { ...writer, index: 0, name: "post_message", observation: "permission denied" })).toBe("ok");
    const tool = replayRun(await events(t, runId)).items.find((item) => item.kind === "tool");
    expect(tool).toMatchObject({ name: "post_message", args: '{"content":"x"}', result: { outcome: "denied", observation: "permission denied" } });
  });
});

describe("folded writes (one transaction where the action used to make several)", () => {
  test("endToolCall writes the call's record on the run with its result (one write, where recordToolCall and endToolCall were two)", async () => {
    const { t, runId } = await mentionJarvis();
    const writer = { runId, attempt: await startRun(t, runId) };
    expect(await t.mutation(internal.brain.writes.beginToolCall, { ...writer, index: 0, name: "delegate_task", args: "{}" })).toBe("ok");
    const record = { name: "delegate_task", args: "{}", outcome: "ok" as const, observation: "created", at: 1 };
    expect(await t.mutation(internal.brain.writes.endToolCall, { ...writer, index: 0, name: "delegate_task", observation: "created", recorded: { record, delegated: true } })).toBe("ok");
    expect(await getRun(t, runId)).toMatchObject({ toolCalls: [record], delegations: 1 });
    const tool = replayRun(await events(t, runId)).items.find((item) => item.kind === "tool");
    expect(tool).toMatchObject({ name: "delegate_task", result: { outcome: "ok", observation: "created" } });
    // After a Stop the result and its record are still written (the tool did run); nothing more is announced.
    const guard = { record: { ...record, outcome: "refused" as const, observation: "refused" }, delegated: false, guard: "the per-run limit" };
    await t.run(async (ctx) => await ctx.db.patch("runs", runId, { status: "aborted" }));
    expect(await t.mutation(internal.brain.writes.endToolCall, { ...writer, index: 1, name: "delegate_task", observation: "refused", recorded: guard })).toBe("aborted");
    expect(await getRun(t, runId)).toMatchObject({ toolCalls: [record, guard.record], delegations: 1, guards: ["the per-run limit"] });
  });

  test("endReply ends the message, then announces the first call; endToolCall announces the next; finish records the last model call", async () => {
    const { t, runId } = await mentionJarvis();
    const writer = { runId, attempt: await startRun(t, runId) };
    await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 0 });
    const end = { model: "m", promptTokens: 3, completionTokens: 2 };
    const call = (index: number) => ({ index, name: "post_message", args: `{"content":"${index}"}` });
    expect(await t.mutation(internal.brain.writes.endReply, { ...writer, ...end, firstCall: call(0) })).toBe("ok");
    expect((await getRun(t, runId)).toolStarted).toBe(true);
    expect(await t.mutation(internal.brain.writes.endToolCall, { ...writer, index: 0, name: "post_message", observation: "posted", next: call(1) })).toBe("ok");
    expect(await t.mutation(internal.brain.writes.endToolCall, { ...writer, index: 1, name: "post_message", observation: "posted" })).toBe("ok");
    const timing = { contextMs: 1, modelMs: 2, dispatchMs: 3 };
    await t.mutation(internal.brain.writes.finish, { ...writer, status: "completed", reason: "replied", reply: "Done", modelCall: { ...end, timing, injectionTokens: 7 } });
    expect(await types(t, runId)).toEqual([
      "1 submit user_message_submitted",
      "2 harness agent_start",
      "3 harness message_start",
      "4 harness message_end",
      "5 harness tool_call",
      "6 harness tool_result",
      "7 harness tool_call",
      "8 harness tool_result",
      "9 harness agent_end",
    ]);
    expect((await events(t, runId))[3].payload).toEqual({ type: "message_end", ...end, interrupted: false });
    const tools = replayRun(await events(t, runId)).items.filter((item) => item.kind === "tool");
    expect(tools).toMatchObject([{ name: "post_message", args: '{"content":"0"}' }, { name: "post_message", args: '{"content":"1"}' }]);
    expect(await getRun(t, runId)).toMatchObject({ status: "completed", iterations: 1, promptTokens: 3, completionTokens: 2, timings: [timing], injectionTokens: 7 });
  });

  test("start marks the run running (agent_start) and answers where a paused run goes on: nothing for a fresh one; a started run is not started again", async () => {
    const { t, runId } = await mentionJarvis();
    expect(await t.mutation(internal.brain.writes.start, { runId })).toEqual({ attempt: 1, resume: null });
    expect(await types(t, runId)).toEqual(["1 submit user_message_submitted", "2 harness agent_start"]);
    expect(await getRun(t, runId)).toMatchObject({ status: "running", attempt: 1 });
    expect(await t.mutation(internal.brain.writes.start, { runId })).toBeNull();
  });

  test("after a Stop, endReply writes nothing and endToolCall writes the result but does not announce the next call", async () => {
    const { t, taskId, runId } = await mentionJarvis();
    const writer = { runId, attempt: await startRun(t, runId) };
    await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 0 });
    const bob = await signIn(t, "Bob");
    await bob.mutation(api.runs.stop, { taskId, runId });
    const before = await types(t, runId);
    const call = { index: 0, name: "post_message", args: "{}" };
    expect(await t.mutation(internal.brain.writes.endReply, { ...writer, model: "m", promptTokens: 0, completionTokens: 0, firstCall: call, chat: { newPointer: 5, chatOnlyTurn: false } })).toBe("aborted");
    expect(await types(t, runId)).toEqual(before);
    expect(await t.run(async (ctx) => await ctx.db.query("chatCursors").collect())).toEqual([]);
    expect(await t.mutation(internal.brain.writes.endToolCall, { ...writer, index: 0, name: "post_message", observation: "ran", next: { ...call, index: 1 } })).toBe("aborted");
    expect((await types(t, runId)).slice(before.length)).toEqual([`${before.length + 1} harness tool_result`]);
  });
});

describe("Stop", () => {
  test("a member stops a running run: aborted, nothing posted, every later write of the action answers aborted", async () => {
    const { t, taskId, runId } = await mentionJarvis();
    const writer = { runId, attempt: await startRun(t, runId) };
    await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 0 });
    await t.mutation(internal.brain.writes.appendDelta, { ...writer, delta: "Working on" });
    const bob = await signIn(t, "Bob");
    await bob.mutation(api.runs.stop, { taskId, runId });

    expect(await getRun(t, runId)).toMatchObject({ status: "aborted", reason: "stopped by Bob" });
    expect((await types(t, runId)).slice(-2)).toEqual(["5 submit control_submitted", "6 harness agent_end"]);
    expect(replayRun(await events(t, runId)).state).toEqual({ status: "ended", reason: "aborted", detail: "stopped by Bob" });
    expect(await t.mutation(internal.brain.writes.appendDelta, { ...writer, delta: " it" })).toBe("aborted");
    expect(await t.mutation(internal.brain.writes.keepAlive, writer)).toBe("aborted");
    expect(await t.mutation(internal.brain.writes.beginToolCall, { ...writer, index: 0, name: "post_message", args: "{}" })).toBe("aborted");
    await t.mutation(internal.brain.writes.finish, { runId, attempt: writer.attempt, status: "completed", reason: "replied", reply: "Done!" });
    expect(await threadOf(t, taskId)).toEqual(["Ada: @Jarvis plan the launch"]);
    const { agentId } = await getRun(t, runId);
    expect((await t.run(async (ctx) => await ctx.db.get("agents", agentId)))!.status).toBe("idle");
    // Stopping again changes nothing.
    await bob.mutation(api.runs.stop, { taskId, runId });
    expect(await types(t, runId)).toHaveLength(6);
  });

  test("a queued run stopped before it starts never starts; a viewer cannot stop; another task's run is not found", async () => {
    const { t, departmentId, admin, taskId, runId } = await mentionJarvis();
    const vera = await signIn(t, "Vera", "viewer");
    await expectError(vera.mutation(api.runs.stop, { taskId, runId }), "FORBIDDEN");
    const otherTask = await createTask(admin, departmentId, { title: "Other" });
    await expectError(admin.mutation(api.runs.stop, { taskId: otherTask, runId }), "NOT_FOUND");
    const { member: mallory } = await createOtherDepartment(t);
    await expectError(mallory.mutation(api.runs.stop, { taskId, runId }), "FORBIDDEN");
    await admin.mutation(api.runs.stop, { taskId, runId });
    expect(await t.mutation(internal.brain.writes.start, { runId })).toBeNull();
    expect((await getRun(t, runId)).status).toBe("aborted");
  });
});

describe("the sweeper", () => {
  test("a lapsed run with no tool call yet runs again as attempt 2; the old attempt's writes are refused", async () => {
    const { t, runId } = await mentionJarvis();
    const first = { runId, attempt: await startRun(t, runId) };
    expect(await t.mutation(internal.sweeps.lapsedRuns, {})).toEqual({ retried: 0, interrupted: 0 });
    vi.advanceTimersByTime(10_001);
    expect(await t.mutation(internal.sweeps.lapsedRuns, {})).toEqual({ retried: 1, interrupted: 0 });
    expect((await getRun(t, runId)).status).toBe("queued");
    expect((await types(t, runId)).at(-1)).toBe("3 submit control_submitted");
    expect(await t.mutation(internal.brain.writes.start, { runId })).toEqual({ attempt: 2, resume: null });
    expect(await t.mutation(internal.brain.writes.appendDelta, { ...first, delta: "late" })).toBe("aborted");
    await t.mutation(internal.brain.writes.finish, { runId, attempt: 1, status: "completed", reason: "replied", reply: "stale" });
    expect((await getRun(t, runId)).status).toBe("running");
  });

  test("a lapsed run after a tool call ends 'interrupted', said in the thread; folded triggers get a follow-up run", async () => {
    const { t, admin, taskId, runId } = await mentionJarvis();
    const writer = { runId, attempt: await startRun(t, runId) };
    await t.mutation(internal.brain.writes.beginToolCall, { ...writer, index: 0, name: "post_message", args: "{}" });
    const later = await admin.mutation(api.messages.create, { taskId, content: "@Jarvis also check the date" });
    await t.mutation(internal.triggers.agentMentioned, { taskId, messageId: later, sessionKey: AGENTS.jarvis });
    vi.advanceTimersByTime(10_001);
    expect(await t.mutation(internal.sweeps.lapsedRuns, {})).toEqual({ retried: 0, interrupted: 1 });
    expect(await getRun(t, runId)).toMatchObject({ status: "error", reason: "interrupted" });
    expect((await threadOf(t, taskId)).at(-1)).toBe("system: Jarvis could not finish: interrupted");
    const runs = await t.run(async (ctx) => await ctx.db.query("runs").collect());
    expect(runs.map((run) => [run.status, run.trigger.messageId ?? null])).toEqual([
      ["error", expect.anything()],
      ["queued", later],
    ]);
  });

  test(`a run interrupted ${MAX_RUN_ATTEMPTS} times ends instead of retrying forever`, async () => {
    const { t, runId } = await mentionJarvis();
    for (let attempt = 1; attempt <= MAX_RUN_ATTEMPTS; attempt++) {
      await t.mutation(internal.brain.writes.start, { runId });
      vi.advanceTimersByTime(10_001);
      await t.mutation(internal.sweeps.lapsedRuns, {});
    }
    expect(await getRun(t, runId)).toMatchObject({ status: "error", reason: "interrupted", attempt: MAX_RUN_ATTEMPTS });
  });
});

describe("reading", () => {
  test("listForRun returns the stream in order for members of the department only", async () => {
    const { t, admin, runId } = await mentionJarvis();
    await t.mutation(internal.brain.writes.start, { runId });
    const listed = await admin.query(api.runEvents.listForRun, { runId });
    expect(listed.map((e) => e.seq)).toEqual([1, 2]);
    expect(await admin.query(api.runEvents.listForRun, { runId, afterSeq: 1 })).toHaveLength(1);
    const { member: mallory } = await createOtherDepartment(t);
    await expectError(mallory.query(api.runEvents.listForRun, { runId }), "FORBIDDEN");
  });

  test("streamingForTask shows the open message's text without tool-call lines", async () => {
    const { t, admin, taskId, runId } = await mentionJarvis();
    expect(await admin.query(api.runs.streamingForTask, { taskId })).toEqual([]);
    const writer = { runId, attempt: await startRun(t, runId) };
    expect(await admin.query(api.runs.streamingForTask, { taskId })).toEqual([{ runId, agentName: "Jarvis", text: "" }]);
    await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 0 });
    await t.mutation(internal.brain.writes.appendDelta, { ...writer, delta: "Splitting it.\n[TOOL: delegate_task ARG: {\"ti" });
    expect(await admin.query(api.runs.streamingForTask, { taskId })).toEqual([{ runId, agentName: "Jarvis", text: "Splitting it." }]);
    await t.mutation(internal.brain.writes.endMessage, { ...writer, model: "m", promptTokens: 0, completionTokens: 0, interrupted: false });
    await t.mutation(internal.brain.writes.beginMessage, { ...writer, round: 1 });
    await t.mutation(internal.brain.writes.appendDelta, { ...writer, delta: "Done." });
    expect(await admin.query(api.runs.streamingForTask, { taskId })).toEqual([{ runId, agentName: "Jarvis", text: "Done." }]);
  });

  test("runs lists per department and per agent, and the agent's page", async () => {
    const { t, admin, departmentId, runId } = await mentionJarvis();
    await t.mutation(internal.brain.writes.start, { runId });
    await t.mutation(internal.brain.writes.recordModelCall, { runId, model: "m", promptTokens: 10, completionTokens: 5, timing: { contextMs: 1, modelMs: 1, dispatchMs: 1 } });
    const jarvis = (await t.run(async (ctx) => await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", AGENTS.jarvis)).unique()))!;
    const listed = await admin.query(api.runs.listForDepartment, { departmentId });
    expect(listed).toEqual([
      expect.objectContaining({ _id: runId, title: "Launch", agentName: "Jarvis", status: "running", trigger: "mentioned", promptTokens: 10, completionTokens: 5 }),
    ]);
    expect(await admin.query(api.runs.listForAgent, { agentId: jarvis._id })).toEqual(listed);
    const overview = await admin.query(api.runs.agentOverview, { agentId: jarvis._id });
    expect(overview).toMatchObject({
      name: "Jarvis",
      isSquadLead: true,
      currentTask: { title: "Launch", runId },
      totals: { runs: 1, promptTokens: 10, completionTokens: 5 },
    });
    expect(overview.allowedTools).toContain("delegate_task");
  });
});
