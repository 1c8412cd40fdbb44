import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import { NO_MODEL_NOTE } from "../../convex/lib/modelConfig";
import { postToThread } from "../../convex/reactions/threadPost";
import { notifyAssigned, notifyMentioned } from "../../convex/records/notifications";
import {
  AGENTS,
  allTriggers,
  createTask,
  deletedTaskId,
  demoSquad,
  memberKeyOf,
  notificationsFor,
  runScheduled,
  holdScheduledFunctions,
} from "./setup";

// The board schedules the trigger functions with runAfter(0); fake timers let each test decide when they run.
// No OPENAI_* variable is set here, so the brain consumes every trigger at once without starting a run.
holdScheduledFunctions();

/** Grace signed in, and a fresh task whose one message mentions nobody: triggers and notifications come only from the test. */
async function quietThread() {
  const squad = await demoSquad({ grace: true });
  const taskId = await createTask(squad.admin, squad.departmentId);
  const messageId = await squad.admin.mutation(api.messages.create, { taskId, content: "no mentions" });
  return { ...squad, taskId, messageId };
}

const summary = (rows: Awaited<ReturnType<typeof allTriggers>>) =>
  rows.map((r) => ({ agent: r.agentSessionKey, kind: r.kind, messageId: r.messageId ?? null, status: r.status, runId: r.runId ?? null, note: r.note ?? null }));

const AGENT_MENTION_NOTE = "mentioned by an agent: agents' mentions notify but start no run";
/** What a trigger becomes on a deployment without a model: consumed, no run, the reason in words. */
const noModel = { status: "consumed", runId: null, note: NO_MODEL_NOTE } as const;

describe("scheduled by the board", () => {
  test("assigning on create: one 'assigned' row per agent, written only when the scheduler runs, consumed at once", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.devBot, AGENTS.writer] });
    expect(await allTriggers(t)).toEqual([]);
    await runScheduled(t);
    const rows = await allTriggers(t);
    expect(summary(rows)).toEqual([
      { agent: AGENTS.devBot, kind: "assigned", messageId: null, ...noModel },
      { agent: AGENTS.writer, kind: "assigned", messageId: null, ...noModel },
    ]);
    expect(rows.every((r) => r.taskId === taskId && r.departmentId === departmentId)).toBe(true);
    await runScheduled(t);
    expect(await allTriggers(t)).toHaveLength(2);
    // Nothing ran, so nobody looks busy.
    const statuses = await t.run(async (ctx) => (await ctx.db.query("agents").collect()).map((a) => a.status));
    expect(statuses.every((s) => s === "idle")).toBe(true);
    expect(await t.run(async (ctx) => await ctx.db.query("runs").collect())).toEqual([]);
  });

  test("a message mentioning an agent twice, a member and its author: one 'mentioned' row, for the agent only", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const taskId = await createTask(admin, departmentId);
    const messageId = await admin.mutation(api.messages.create, { taskId, content: "@Archie, @archie! Also @Grace and @Ada." });
    await runScheduled(t);
    expect(summary(await allTriggers(t))).toEqual([{ agent: AGENTS.archie, kind: "mentioned", messageId, ...noModel }]);
    expect(await notificationsFor(t, AGENTS.archie)).toHaveLength(1);
    expect(await notificationsFor(t, memberKeyOf(t, "Grace"))).toHaveLength(1);
    expect(await notificationsFor(t, memberKeyOf(t, "Ada"))).toEqual([]);
    expect((await grace.query(api.notifications.listMine, { departmentId })).unreadMentionTaskIds).toEqual([taskId]);
  });

  test("the same agent mentioned in two messages gets one row per message", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId);
    const m1 = await admin.mutation(api.messages.create, { taskId, content: "@Jarvis ping" });
    const m2 = await admin.mutation(api.messages.create, { taskId, content: "@Jarvis ping again" });
    await runScheduled(t);
    expect(summary(await allTriggers(t)).map((r) => r.messageId)).toEqual([m1, m2]);
  });

  test("an agent that mentions itself is not triggered", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId);
    await t.run(async (ctx) => {
      await postToThread(ctx, { kind: "agent", sessionKey: AGENTS.writer, name: "Writer" }, (await ctx.db.get("tasks", taskId))!, "@Writer will do");
    });
    await runScheduled(t);
    expect(await allTriggers(t)).toEqual([]);
  });

  test("an agent's mention of another agent is recorded and notifies, but is consumed without a run (no ping-pong)", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId);
    const messageId = await t.run(
      async (ctx) => (await postToThread(ctx, { kind: "agent", sessionKey: AGENTS.jarvis, name: "Jarvis" }, (await ctx.db.get("tasks", taskId))!, "@Dev Bot over to you"))._id,
    );
    const system = await t.run(async (ctx) => (await postToThread(ctx, { kind: "system" }, (await ctx.db.get("tasks", taskId))!, "@Writer heads up"))._id);
    await runScheduled(t);
    expect(summary(await allTriggers(t))).toEqual([
      { agent: AGENTS.devBot, kind: "mentioned", messageId, status: "consumed", runId: null, note: AGENT_MENTION_NOTE },
      { agent: AGENTS.writer, kind: "mentioned", messageId: system, status: "consumed", runId: null, note: AGENT_MENTION_NOTE },
    ]);
    expect(await notificationsFor(t, AGENTS.devBot)).toHaveLength(1);
    expect(await notificationsFor(t, AGENTS.writer)).toHaveLength(1);
  });

  test("every assignment is work of its own: taking an agent off and putting it back records a new trigger", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.devBot] });
    await runScheduled(t);
    expect(summary(await allTriggers(t))).toEqual([{ agent: AGENTS.devBot, kind: "assigned", messageId: null, ...noModel }]);
    // Off and on again: a second assignment event, consumed like the first.
    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [] });
    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [AGENTS.devBot] });
    await runScheduled(t);
    expect(summary(await allTriggers(t))).toEqual([
      { agent: AGENTS.devBot, kind: "assigned", messageId: null, ...noModel },
      { agent: AGENTS.devBot, kind: "assigned", messageId: null, ...noModel },
    ]);
    // Assigning someone else (Dev Bot stays on) triggers only the newcomer.
    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [AGENTS.devBot, AGENTS.writer] });
    await runScheduled(t);
    expect(summary(await allTriggers(t)).map((r) => r.agent)).toEqual([AGENTS.devBot, AGENTS.devBot, AGENTS.writer]);
  });
});

describe("triggers.agentAssigned / agentMentioned", () => {
  test("the same mention twice is recorded once; each assignment event is recorded", async () => {
    const { t, taskId, messageId } = await quietThread();
    const a1 = await t.mutation(internal.triggers.agentAssigned, { taskId, sessionKey: AGENTS.jarvis });
    const a2 = await t.mutation(internal.triggers.agentAssigned, { taskId, sessionKey: AGENTS.jarvis });
    const m1 = await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis });
    const m2 = await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis });
    expect(a1).not.toBeNull();
    expect(a2).not.toBeNull();
    expect(a2).not.toBe(a1);
    expect(m2).toBe(m1);
    expect(m1).not.toBe(a1);
    expect(m1).not.toBe(a2);
    // The mention was consumed at once and stays consumed: the same message is not new work.
    expect(summary(await allTriggers(t)).find((r) => r.kind === "mentioned")).toEqual({
      agent: AGENTS.jarvis,
      kind: "mentioned",
      messageId,
      ...noModel,
    });
    expect(await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis })).toBe(m1);
    // The same message mentioning another agent is that agent's own event.
    const m3 = await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.writer });
    expect(m3).not.toBe(m1);
    expect(await allTriggers(t)).toHaveLength(4);
  });

  test("a task deleted before the trigger runs records nothing", async () => {
    const { t, departmentId } = await demoSquad();
    const gone = await deletedTaskId(t, departmentId);
    expect(await t.mutation(internal.triggers.agentAssigned, { taskId: gone, sessionKey: AGENTS.jarvis })).toBeNull();
    expect(await allTriggers(t)).toEqual([]);
  });

  test("an agent deleted, or offline, when its trigger runs: consumed with a note saying so", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId);
    await t.run(async (ctx) => {
      const archie = (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", AGENTS.archie)).unique())!;
      await ctx.db.patch("agents", archie._id, { status: "offline" });
    });
    await t.mutation(internal.triggers.agentAssigned, { taskId, sessionKey: "agent:ghost:product" });
    await t.mutation(internal.triggers.agentAssigned, { taskId, sessionKey: AGENTS.archie });
    expect(summary(await allTriggers(t))).toEqual([
      { agent: "agent:ghost:product", kind: "assigned", messageId: null, status: "consumed", runId: null, note: "the agent no longer exists" },
      { agent: AGENTS.archie, kind: "assigned", messageId: null, status: "consumed", runId: null, note: "Archie is offline" },
    ]);
  });
});

describe("notifications and triggers", () => {
  test("repeated recipients in one call are notified once each, never the author", async () => {
    const { t, departmentId, taskId, messageId } = await quietThread();
    await t.run(async (ctx) => {
      const task = (await ctx.db.get("tasks", taskId))!;
      const writer = { kind: "agent" as const, key: AGENTS.writer, name: "Writer" };
      const grace = { kind: "member" as const, key: memberKeyOf(t, "Grace"), name: "Grace" };
      const author = { kind: "agent" as const, sessionKey: AGENTS.jarvis, name: "Jarvis" };
      const jarvis = { kind: "agent" as const, key: AGENTS.jarvis, name: "Jarvis" };
      const notified = await notifyMentioned(ctx, { _id: messageId, taskId, departmentId, author, mentions: [writer, grace, writer, jarvis, grace] });
      expect(notified).toEqual([writer, grace]);
      await notifyAssigned(ctx, task, [AGENTS.archie, AGENTS.archie]);
    });
    expect((await notificationsFor(t, AGENTS.writer)).map((n) => n.kind)).toEqual(["mention"]);
    expect((await notificationsFor(t, memberKeyOf(t, "Grace"))).map((n) => n.kind)).toEqual(["mention"]);
    expect((await notificationsFor(t, AGENTS.archie)).map((n) => n.kind)).toEqual(["assignment"]);
    expect(await notificationsFor(t, AGENTS.jarvis)).toEqual([]);
  });

  test("an agent named twice in a person's message, or assigned twice, is triggered once", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.archie, AGENTS.archie] });
    const messageId = await admin.mutation(api.messages.create, { taskId, content: "@Writer and again @Writer" });
    await runScheduled(t);
    expect(summary(await allTriggers(t))).toEqual([
      { agent: AGENTS.archie, kind: "assigned", messageId: null, ...noModel },
      { agent: AGENTS.writer, kind: "mentioned", messageId, ...noModel },
    ]);
  });
});

describe("a task's triggers", () => {
  test("every trigger of one task, oldest first, with status, run and note; other tasks' are left out", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.writer] });
    const otherTaskId = await createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.devBot] });
    await runScheduled(t);
    const messageId = await admin.mutation(api.messages.create, { taskId, content: "@Jarvis @Archie" });
    await admin.mutation(api.messages.create, { taskId: otherTaskId, content: "@Jarvis elsewhere" });
    await runScheduled(t);
    const rows = (await allTriggers(t)).filter((r) => r.taskId === taskId);
    expect(rows.map((r) => ({ agent: r.agentSessionKey, kind: r.kind, messageId: r.messageId ?? null, status: r.status, note: r.note }))).toEqual([
      { agent: AGENTS.writer, kind: "assigned", messageId: null, status: "consumed", note: NO_MODEL_NOTE },
      { agent: AGENTS.jarvis, kind: "mentioned", messageId, status: "consumed", note: NO_MODEL_NOTE },
      { agent: AGENTS.archie, kind: "mentioned", messageId, status: "consumed", note: NO_MODEL_NOTE },
    ]);
    expect(rows.every((r) => r.taskId === taskId && r.departmentId === departmentId && r.runId === undefined)).toBe(true);
    expect(rows.map((r) => r._creationTime)).toEqual([...rows.map((r) => r._creationTime)].sort((a, b) => a - b));
    expect((await allTriggers(t)).filter((r) => r.taskId === otherTaskId).map((r) => [r.agentSessionKey, r.kind])).toEqual([
      [AGENTS.devBot, "assigned"],
      [AGENTS.jarvis, "mentioned"],
    ]);
  });
});
