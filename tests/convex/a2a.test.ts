/**
 * A2A linkage (messaging spec, "A2A Integration"; reactions/a2a.ts): one
 * correlation id from a delegation to its done, each envelope an `a2a.*`
 * event with intent, from, to, task, batch and project, and the updates in
 * the parent task's thread.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ActionCtx } from "../../convex/_generated/server";
import { TOOL_REGISTRY, type ToolDefinition } from "../../convex/tools/registry";
import { AGENTS, createTask, demoSquad, expectError, expectTaskRefusals, insertRun, memberKeyOf, startRun, type TestConvex, withClosedModel } from "./setup";

/** Jarvis delegates `title` to one agent with `instruction` (under `parentTaskId`, if given): the new task's id, or the test fails. */
async function jarvisDelegates(t: TestConvex, departmentId: Id<"departments">, delegation: { title: string; assignee: string; instruction: string; parentTaskId?: Id<"tasks"> }): Promise<Id<"tasks">> {
  const { title, assignee, instruction, parentTaskId } = delegation;
  const made = await t.mutation(internal.tools.delegation.createDelegatedTask, {
    departmentId,
    delegatorSessionKey: AGENTS.jarvis,
    title,
    description: "",
    assigneeSessionKeys: [assignee],
    instruction,
    ...(parentTaskId === undefined ? {} : { parentTaskId }),
  });
  if (!made.ok) throw new Error(`the delegation of “${title}” was refused`);
  return made.taskId as Id<"tasks">;
}

async function a2aEvents(t: TestConvex, departmentId: Id<"departments">) {
  return await t.run(async (ctx) => (await ctx.db.query("events").withIndex("by_department", (q) => q.eq("departmentId", departmentId)).collect()).filter((e) => e.type.startsWith("a2a.")));
}

describe("A2A envelopes", () => {
  test("a delegation chain — delegated, started, blocked, review, done — carries one correlation id, and each update reaches the parent's thread", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const rootId = await createTask(admin, departmentId, { title: "Launch page" });
    const childId = await jarvisDelegates(t, departmentId, { title: "Hero copy", assignee: AGENTS.writer, instruction: "Write the hero copy.", parentTaskId: rootId });
    const runId = await insertRun(t, AGENTS.writer, childId);
    for (const status of ["in_progress", "blocked", "review", "done"] as const) {
      await t.mutation(internal.tools.thread.updateTaskStatus, { runId, status });
    }

    const events = await t.run(async (ctx) => (await ctx.db.query("events").withIndex("by_department", (q) => q.eq("departmentId", departmentId)).collect()).filter((e) => e.type.startsWith("a2a.")));
    expect(new Set(events.map((e) => e.correlationId))).toEqual(new Set([`a2a:${childId}`]));
    expect(events.map((e) => [e.type, e.data.intent, e.data.from, e.data.to, e.data.status ?? null])).toEqual([
      ["a2a.delegate", "delegate", "Jarvis", "Writer", null],
      ["a2a.status_update", "status_update", "Writer", "Jarvis", "in_progress"],
      ["a2a.status_update", "status_update", "Writer", "Jarvis", "blocked"],
      ["a2a.status_update", "status_update", "Writer", "Jarvis", "review"],
      ["a2a.status_update", "status_update", "Writer", "Jarvis", "done"],
    ]);
    for (const event of events) {
      expect(event.data).toMatchObject({ correlation_id: `a2a:${childId}`, task_id: childId, batch_id: rootId, project_id: departmentId });
    }

    const parentThread = await admin.query(api.messages.list, { taskId: rootId, paginationOpts: { numItems: 50, cursor: null } });
    // messages.list hands each line's correlation id to the app, linking it to its envelope.
    expect(new Set(parentThread.page.map((m) => m.correlationId))).toEqual(new Set([`a2a:${childId}`]));
    // One line per delegated card: the delegation's line, rewritten as the card moved.
    const lines = parentThread.page.map((m) => m.content).reverse();
    expect(lines).toEqual(["Jarvis delegated “Hero copy” to Writer: done."]);
  });

  test("a task nobody delegated moves without envelopes; a person moving delegated work is the update's sender", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const plain = await createTask(admin, departmentId, { title: "Plain" });
    await admin.mutation(api.tasks.setStatus, { taskId: plain, status: "in_progress" });
    const rootId = await createTask(admin, departmentId, { title: "Root" });
    const delegatedId = await jarvisDelegates(t, departmentId, { title: "Sub", assignee: AGENTS.devBot, instruction: "Do it.", parentTaskId: rootId });
    await admin.mutation(api.tasks.setStatus, { taskId: delegatedId, status: "done" });
    const events = await t.run(async (ctx) => (await ctx.db.query("events").collect()).filter((e) => e.type.startsWith("a2a.")));
    expect(events.map((e) => [e.type, e.data.from, e.data.task_id])).toEqual([
      ["a2a.delegate", "Jarvis", delegatedId],
      ["a2a.status_update", "Ada", delegatedId],
    ]);
  });
});

describe("tracing (messaging spec, Observability)", () => {
  // Runs are queued for real (a model "configured" on a closed port), their brain action held.
  withClosedModel();

  test("tracing: one correlation id spans the delegation's envelope, its channel lines, the run and every event of the run; a run nobody delegated carries none", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "trace", visibility: "project" });
    const rootId = await admin.mutation(api.tasks.create, { departmentId, title: "Launch page", channelId });
    const childId = await jarvisDelegates(t, departmentId, { title: "Hero copy", assignee: AGENTS.writer, instruction: "Write the hero copy.", parentTaskId: rootId });
    const correlationId = `a2a:${childId}`;
    // The assignment queues the writer's run (reactions/runQueue), which the brain starts and works in.
    await t.mutation(internal.triggers.agentAssigned, { taskId: childId, sessionKey: AGENTS.writer });
    const runs = await t.run(async (ctx) => (await ctx.db.query("runs").collect()).filter((r) => r.taskId === childId));
    expect(runs.map((r) => r.correlationId)).toEqual([correlationId]);
    const runId = runs[0]._id;
    const attempt = await startRun(t, runId);
    expect(await t.mutation(internal.brain.writes.beginMessage, { runId, attempt, round: 0 })).toBe("ok");
    expect(await t.mutation(internal.brain.writes.appendDelta, { runId, attempt, delta: "Drafting." })).toBe("ok");
    await t.mutation(internal.tools.thread.updateTaskStatus, { runId, status: "review" });
    await t.mutation(internal.tools.messaging.postChannelTool, { runId, channel: "#trace", body: "Draft is up.", correlationId });

    const stream = await admin.query(api.runEvents.listForRun, { runId });
    expect(stream.map((e) => e.payload.type)).toEqual(expect.arrayContaining(["agent_start", "message_start", "message_update"]));
    expect(stream.map((e) => e.correlationId)).toEqual(stream.map(() => correlationId));
    const { events, posted } = await t.run(async (ctx) => ({
      events: await ctx.db.query("events").withIndex("by_department", (q) => q.eq("departmentId", departmentId)).collect(),
      posted: await ctx.db.query("channelMessages").withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId)).collect(),
    }));
    const traced = events.filter((e) => e.correlationId === correlationId).map((e) => e.type);
    expect(traced).toEqual(expect.arrayContaining(["a2a.delegate", "a2a.status_update", "messaging.created", "messaging.posted"]));
    // The root's own status lines (it follows its subtask, reactions/taskChange) carry the root's id.
    const childLines = posted.filter((m) => m.context.taskId !== rootId);
    expect(childLines.map((m) => m.correlationId)).toEqual(childLines.map(() => correlationId));
    expect(posted.filter((m) => m.context.taskId === rootId).map((m) => m.correlationId)).toEqual(posted.filter((m) => m.context.taskId === rootId).map(() => `a2a:${rootId}`));
    expect(childLines.map((m) => m.body)).toContain("Draft is up.");
    // The admins' trace: the id's events, oldest first, and the runs that worked under it.
    const trace = await admin.query(api.events.trace, { departmentId, correlationId });
    expect(trace.runs.map((r) => [r.runId, r.taskId, r.agentSessionKey])).toEqual([[runId, childId, AGENTS.writer]]);
    expect(trace.events.map((e) => e.type)).toEqual(traced);
    expect(trace.events.every((e) => e.correlationId === correlationId)).toBe(true);
    expect(await admin.query(api.events.trace, { departmentId, correlationId: "a2a:nothing" })).toEqual({ events: [], runs: [] });
    await expectError(grace!.query(api.events.trace, { departmentId, correlationId }), "FORBIDDEN");
    await expectError(admin.query(api.events.trace, { departmentId, correlationId: "" }), "INVALID_ARGUMENT");

    // A run on the root task (nobody delegated it) writes events without one.
    const plainRun = await insertRun(t, AGENTS.jarvis, rootId, "queued");
    await t.mutation(internal.brain.writes.beginMessage, { runId: plainRun, attempt: await startRun(t, plainRun), round: 0 });
    expect((await admin.query(api.runEvents.listForRun, { runId: plainRun })).map((e) => e.correlationId)).toEqual([undefined, undefined]);
  });
});

describe("delegation updates in the task's channel", () => {
  test("a task followed in a channel: its delegation's five updates reach the parent's thread and the channel, every line and event under one correlation id", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    // Ada follows the channel: the updates reach her inbox like any post.
    await admin.mutation(api.channels.setSubscribed, { channelId, subscribed: true });
    const rootId = await admin.mutation(api.tasks.create, { departmentId, title: "Launch page", channelId });
    const childId = await jarvisDelegates(t, departmentId, { title: "Hero copy", assignee: AGENTS.writer, instruction: "Write the hero copy.", parentTaskId: rootId });
    const correlationId = `a2a:${childId}`;
    expect((await admin.query(api.tasks.get, { taskId: childId })).channelId).toBe(channelId);
    const runId = await insertRun(t, AGENTS.writer, childId);
    for (const status of ["in_progress", "review", "blocked", "done"] as const) {
      await t.mutation(internal.tools.thread.updateTaskStatus, { runId, status });
    }

    const expected = [
      "Jarvis delegated “Hero copy” to Writer.",
      "Delegated task “Hero copy” (assigned to Writer) has started.",
      "Delegated task “Hero copy” (assigned to Writer) is ready for review.",
      "Delegated task “Hero copy” (assigned to Writer) is blocked.",
      "Delegated task “Hero copy” (assigned to Writer) is done.",
    ];
    const { thread, channel, events } = await t.run(async (ctx) => ({
      thread: await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", rootId)).collect(),
      channel: await ctx.db.query("channelMessages").withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId)).collect(),
      events: await ctx.db.query("events").withIndex("by_department", (q) => q.eq("departmentId", departmentId)).collect(),
    }));
    // The parent's thread holds one line for the card, rewritten as it moved; the channel gets every update.
    expect(thread.map((m) => [m.content, m.correlationId])).toEqual([["Jarvis delegated “Hero copy” to Writer: done.", correlationId]]);
    const childLines = channel.filter((m) => m.context.taskId === childId);
    expect(childLines.map((m) => [m.body, m.correlationId, m.from.kind, m.context.taskId, m.context.batchId])).toEqual(
      expected.map((line) => [line, correlationId, "system", childId, rootId]),
    );
    // The root follows its subtask (reactions/taskChange) and, followed in the channel, reports its own moves there.
    expect(channel.filter((m) => m.context.taskId === rootId).map((m) => m.body)).toEqual([
      "Task “Launch page” (assigned to Jarvis) has started.",
      "Task “Launch page” (assigned to Jarvis) is ready for review.",
      "Task “Launch page” (assigned to Jarvis) has started.",
      "Task “Launch page” (assigned to Jarvis) is ready for review.",
    ]);
    // The spec's messaging.created for the channel's first message, then one messaging.posted per line, linked by the same id.
    const messaging = events.filter((e) => e.channelId === channelId && e.type.startsWith("messaging.") && e.correlationId === correlationId);
    expect(messaging.map((e) => [e.type, e.correlationId])).toEqual([
      ["messaging.created", correlationId],
      ...expected.map(() => ["messaging.posted", correlationId]),
    ]);
    expect(new Set(events.filter((e) => e.type.startsWith("a2a.")).map((e) => e.correlationId))).toEqual(new Set([correlationId]));
    const unread = await admin.query(api.channels.list, { departmentId });
    expect(unread.find((c) => c._id === channelId)?.unread).toBe(channel.length);
  });

  test("a task in no channel posts only in its parent's thread; an archived channel is left alone", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "old", visibility: "project" });
    const rootId = await admin.mutation(api.tasks.create, { departmentId, title: "Root", channelId });
    await admin.mutation(api.channels.setArchived, { channelId, archived: true });
    const plainRoot = await createTask(admin, departmentId, { title: "Plain root" });
    for (const parentTaskId of [rootId, plainRoot]) {
      await jarvisDelegates(t, departmentId, { title: `Sub of ${parentTaskId}`, assignee: AGENTS.devBot, instruction: "Do it.", parentTaskId });
    }
    const posted = await t.run(async (ctx) => await ctx.db.query("channelMessages").collect());
    expect(posted).toEqual([]);
  });

  test("a task is put in a channel only by someone who may read it, and only in its own department", async () => {
    const { departmentId, admin, grace, other } = await demoSquad({ grace: true, other: true });
    const secret = await admin.mutation(api.channels.create, { departmentId, name: "secret", visibility: "private" });
    await expectError(grace.mutation(api.tasks.create, { departmentId, title: "Sneak", channelId: secret }), "FORBIDDEN");
    const theirs = await other.member.mutation(api.channels.create, { departmentId: other.departmentId, name: "theirs", visibility: "project" });
    await expectError(admin.mutation(api.tasks.create, { departmentId, title: "Cross", channelId: theirs }), "NOT_FOUND");
    const board = await admin.query(api.tasks.list, { departmentId });
    expect(board.flatMap((c) => c.tasks.map((task) => task.title))).not.toContain("Sneak");
  });
});

/** Channel lines, oldest first: body and correlation id. */
async function channelLines(t: TestConvex, channelId: Id<"channels">) {
  return await t.run(async (ctx) =>
    (await ctx.db.query("channelMessages").withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId)).collect()).map((m) => [m.body, m.correlationId]),
  );
}

describe("a top-level task followed in a channel", () => {
  test("a task a person made reports started, review, blocked and done in its channel, under its own id, with no envelope", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    const taskId = await createTask(admin, departmentId, { title: "Pricing page", assigneeSessionKeys: [AGENTS.writer] });
    await admin.mutation(api.tasks.setChannel, { taskId, channelId });
    for (const status of ["in_progress", "review", "blocked", "done"] as const) await admin.mutation(api.tasks.setStatus, { taskId, status });
    const id = `a2a:${taskId}`;
    expect(await channelLines(t, channelId)).toEqual([
      ["Task “Pricing page” (assigned to Writer) has started.", id],
      ["Task “Pricing page” (assigned to Writer) is ready for review.", id],
      ["Task “Pricing page” (assigned to Writer) is blocked.", id],
      ["Task “Pricing page” (assigned to Writer) is done.", id],
    ]);
    expect(await a2aEvents(t, departmentId)).toEqual([]);
    // Its own thread is left alone: the lines are for the channel.
    expect(await t.run(async (ctx) => await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect())).toEqual([]);
  });

  test("a delegation with no parent task reports each status in the channel it is followed in, with its envelope", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "ops", visibility: "project" });
    const taskId = await jarvisDelegates(t, departmentId, { title: "Status page", assignee: AGENTS.devBot, instruction: "Build it." });
    await admin.mutation(api.tasks.setChannel, { taskId, channelId });
    const runId = await insertRun(t, AGENTS.devBot, taskId);
    for (const status of ["in_progress", "done"] as const) await t.mutation(internal.tools.thread.updateTaskStatus, { runId, status });
    const id = `a2a:${taskId}`;
    expect(await channelLines(t, channelId)).toEqual([
      ["Delegated task “Status page” (assigned to Dev Bot) has started.", id],
      ["Delegated task “Status page” (assigned to Dev Bot) is done.", id],
    ]);
    expect((await a2aEvents(t, departmentId)).map((e) => [e.type, e.data.status ?? null, e.correlationId])).toEqual([
      ["a2a.delegate", null, id],
      ["a2a.status_update", "in_progress", id],
      ["a2a.status_update", "done", id],
    ]);
  });

  test("a task followed in no channel, or no longer followed, posts nowhere", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    const taskId = await createTask(admin, departmentId, { title: "Quiet", channelId });
    await admin.mutation(api.tasks.setChannel, { taskId, channelId: null });
    expect((await admin.query(api.tasks.get, { taskId })).channelId).toBeUndefined();
    await admin.mutation(api.tasks.setStatus, { taskId, status: "done" });
    expect(await channelLines(t, channelId)).toEqual([]);
  });
});

describe("tasks.setChannel (Follow in channel)", () => {
  test("a member follows a task in a channel and stops; delegations made from it later inherit the channel; the feed says so", async () => {
    const { t, departmentId, grace } = await demoSquad({ grace: true });
    const channelId = await grace.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    const rootId = await createTask(grace, departmentId, { title: "Launch page" });
    await grace.mutation(api.tasks.setChannel, { taskId: rootId, channelId });
    expect((await grace.query(api.tasks.get, { taskId: rootId })).channelId).toBe(channelId);
    const madeId = await jarvisDelegates(t, departmentId, { title: "Hero copy", assignee: AGENTS.writer, instruction: "Write it.", parentTaskId: rootId });
    expect((await grace.query(api.tasks.get, { taskId: madeId })).channelId).toBe(channelId);
    expect(await channelLines(t, channelId)).toEqual([
      ["Jarvis delegated “Hero copy” to Writer.", `a2a:${madeId}`],
      // The root, split, follows its subtask (reactions/taskChange) and reports it in the channel it is followed in.
      ["Task “Launch page” (assigned to Jarvis) has started.", `a2a:${rootId}`],
    ]);
    await grace.mutation(api.tasks.setChannel, { taskId: rootId, channelId: null });
    expect((await grace.query(api.tasks.get, { taskId: rootId })).channelId).toBeUndefined();
    const feed = await t.run(async (ctx) => (await ctx.db.query("activities").collect()).filter((a) => a.type === "task_updated"));
    expect(feed.map((a) => [a.taskId, a.data.fields])).toEqual([
      [rootId, "channel"],
      [rootId, "channel"],
    ]);
  });

  test("refused, with nothing changed: a viewer, another department's people and tasks, a private channel the caller is not in, another department's channel, a DM, an archived channel", async () => {
    const squad = await demoSquad({ grace: true, vera: true, other: true });
    const { t, departmentId, admin, grace, vera, other } = squad;
    const launch = await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    const secret = await admin.mutation(api.channels.create, { departmentId, name: "secret", visibility: "private" });
    const old = await admin.mutation(api.channels.create, { departmentId, name: "old", visibility: "project" });
    await admin.mutation(api.channels.setArchived, { channelId: old, archived: true });
    const dm = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [memberKeyOf(t, "Grace")] });
    const theirs = await other.member.mutation(api.channels.create, { departmentId: other.departmentId, name: "theirs", visibility: "project" });
    const taskId = await createTask(admin, departmentId, { title: "Guarded" });

    await expectTaskRefusals(squad, taskId, (caller, id) => caller.mutation(api.tasks.setChannel, { taskId: id, channelId: null }));
    await expectError(vera.mutation(api.tasks.setChannel, { taskId, channelId: launch }), "FORBIDDEN");
    await expectError(grace.mutation(api.tasks.setChannel, { taskId, channelId: secret }), "FORBIDDEN");
    await expectError(admin.mutation(api.tasks.setChannel, { taskId, channelId: theirs }), "NOT_FOUND");
    await expectError(admin.mutation(api.tasks.setChannel, { taskId, channelId: dm }), "INVALID_ARGUMENT", /not in a DM/);
    await expectError(admin.mutation(api.tasks.setChannel, { taskId, channelId: old }), "INVALID_ARGUMENT", /archived/);
    // Their own department's member cannot point our task at their channel either.
    await expectError(other.member.mutation(api.tasks.setChannel, { taskId, channelId: theirs }), "FORBIDDEN");
    expect((await admin.query(api.tasks.get, { taskId })).channelId).toBeUndefined();

    // Followed in a private channel Grace is not in: hers neither to move nor to clear.
    await admin.mutation(api.tasks.setChannel, { taskId, channelId: secret });
    await expectError(grace.mutation(api.tasks.setChannel, { taskId, channelId: null }), "FORBIDDEN", /private channel/);
    await expectError(grace.mutation(api.tasks.setChannel, { taskId, channelId: launch }), "FORBIDDEN", /private channel/);
    expect((await admin.query(api.tasks.get, { taskId })).channelId).toBe(secret);
    const feed = await t.run(async (ctx) => (await ctx.db.query("activities").collect()).filter((a) => a.type === "task_updated"));
    expect(feed).toHaveLength(1);
  });
});

describe("request_tool", () => {
  function actionCtx(t: TestConvex) {
    type Run = (ref: unknown, args: unknown) => Promise<unknown>;
    return { runMutation: t.mutation as unknown as Run, runQuery: t.query as unknown as Run } as unknown as ActionCtx;
  }
  const requestTool = TOOL_REGISTRY.find((tool) => tool.name === "request_tool")! as unknown as ToolDefinition;

  async function writerOnTask() {
    const squad = await demoSquad();
    const taskId = await createTask(squad.admin, squad.departmentId, { title: "Press kit", assigneeSessionKeys: [AGENTS.writer] });
    const runId = await insertRun(squad.t, AGENTS.writer, taskId);
    const base = { runId, agentName: "Writer", sessionKey: AGENTS.writer, departmentId: squad.departmentId, taskId, triggerKind: "assigned" as const };
    const call = (key: string, args: Record<string, unknown>) => requestTool.execute(actionCtx(squad.t), { ...base, key }, requestTool.args.parse(args));
    return { ...squad, taskId, runId, call };
  }

  test("an agent asks the admins for a tool it lacks, and asks an agent allowed it to run it: each an a2a.request_tool envelope under the task's id and a line in its thread", async () => {
    const { t, departmentId, taskId, call } = await writerOnTask();
    expect(await call("k1", { tool: "create_channel", reason: "the launch needs its own channel" })).toEqual({
      ok: true,
      text: "asked the department's owners and admins for create_channel in the thread; the answer will come there",
    });
    expect(await call("k2", { tool: "delegate_task", reason: "split the press kit", to: "@jarvis", arguments: { title: "Photos" } })).toMatchObject({ ok: true });
    // The same call again (a retried run) asks once.
    await call("k2", { tool: "delegate_task", reason: "split the press kit", to: "@jarvis", arguments: { title: "Photos" } });

    const events = await a2aEvents(t, departmentId);
    expect(events.map((e) => [e.type, e.correlationId, e.data.from, e.data.to, e.data.tool, e.data.arguments ?? null])).toEqual([
      ["a2a.request_tool", `a2a:${taskId}`, "Writer", "the department's owners and admins", "create_channel", null],
      ["a2a.request_tool", `a2a:${taskId}`, "Writer", "Jarvis", "delegate_task", '{"title":"Photos"}'],
    ]);
    expect(events[0].data).toMatchObject({ intent: "request_tool", task_id: taskId, batch_id: taskId, project_id: departmentId, reason: "the launch needs its own channel" });
    const thread = await t.run(async (ctx) => await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect());
    const asks = thread.filter((m) => m.author.kind === "agent");
    expect(asks.map((m) => [m.content, m.correlationId])).toEqual([
      ["I need the tool create_channel, which I may not call here: the launch needs its own channel (An owner or admin can allow it in my agent settings.)", `a2a:${taskId}`],
      ['@Jarvis please run delegate_task with {"title":"Photos"} for me and post the result here: split the press kit', `a2a:${taskId}`],
    ]);
    // The @mention reaches Jarvis, who is woken to run it.
    expect(asks[1].mentions.map((m) => m.key)).toEqual([AGENTS.jarvis]);
  });

  test("refused, with nothing written: an unknown tool, a tool it already has, an agent not allowed it either, nobody of that name, arguments for nobody, itself", async () => {
    const { t, departmentId, taskId, runId, call } = await writerOnTask();
    expect(await call("a", { tool: "launch_rockets", reason: "why not" })).toMatchObject({ ok: false, problem: "invalid", text: expect.stringMatching(/no tool called launch_rockets/) });
    expect(await call("b", { tool: "create_channel", reason: "x", arguments: { name: "x" } })).toMatchObject({ ok: false, problem: "invalid" });
    await expectError(call("c", { tool: "post_message", reason: "x" }), "INVALID_ARGUMENT", /you may call post_message already/);
    await expectError(call("d", { tool: "create_channel", reason: "x", to: "Dev Bot" }), "INVALID_ARGUMENT", /Dev Bot may not call create_channel either/);
    await expectError(call("e", { tool: "create_channel", reason: "x", to: "Nobody" }), "NOT_FOUND");
    await expectError(call("f", { tool: "create_channel", reason: "x", to: "Writer" }), "INVALID_ARGUMENT", /yourself/);
    await expectError(t.mutation(internal.tools.thread.requestToolTool, { runId, tool: "create_channel", reason: "x".repeat(501) }), "INVALID_ARGUMENT");
    expect(() => requestTool.args.parse({ tool: "create_channel", reason: "  " })).toThrow(/say why/);
    expect(await a2aEvents(t, departmentId)).toEqual([]);
    const thread = await t.run(async (ctx) => await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect());
    expect(thread.filter((m) => m.author.kind === "agent")).toEqual([]);
  });

  test("a finished run asks for nothing", async () => {
    const { t, runId } = await writerOnTask();
    await t.run(async (ctx) => ctx.db.patch("runs", runId, { status: "completed" }));
    await expectError(t.mutation(internal.tools.thread.requestToolTool, { runId, tool: "create_channel", reason: "x" }), "INVALID_ARGUMENT", /not running/);
  });
});
