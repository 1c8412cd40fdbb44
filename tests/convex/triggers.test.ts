import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import { notifyAssignees, notifyMentions } from "../../convex/lib/notify";
import { postMessage } from "../../convex/messages";
import {
  AGENTS,
  allTriggers,
  createTask,
  deletedTaskId,
  memberKeyOf,
  notificationsFor,
  runScheduled,
  seedDemoWithAdmin,
  setupTest,
  signIn,
} from "./setup";

// The board schedules the trigger functions with runAfter(0); fake timers let each test decide when they run.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

async function squad() {
  const t = setupTest();
  const { departmentId, admin } = await seedDemoWithAdmin(t);
  return { t, departmentId, admin };
}

const summary = (rows: Awaited<ReturnType<typeof allTriggers>>) =>
  rows.map((r) => ({ agent: r.agentSessionKey, kind: r.kind, messageId: r.messageId ?? null, status: r.status }));

describe("scheduled by the board", () => {
  test("assigning on create: one pending 'assigned' row per agent, written only when the scheduler runs", async () => {
    const { t, departmentId, admin } = await squad();
    const taskId = await createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.devBot, AGENTS.writer] });
    expect(await allTriggers(t)).toEqual([]);
    await runScheduled(t);
    const rows = await allTriggers(t);
    expect(summary(rows)).toEqual([
      { agent: AGENTS.devBot, kind: "assigned", messageId: null, status: "pending" },
      { agent: AGENTS.writer, kind: "assigned", messageId: null, status: "pending" },
    ]);
    expect(rows.every((r) => r.taskId === taskId && r.departmentId === departmentId)).toBe(true);
    await runScheduled(t);
    expect(await allTriggers(t)).toHaveLength(2);
  });

  test("a message mentioning an agent twice, a member and its author: one 'mentioned' row, for the agent only", async () => {
    const { t, departmentId, admin } = await squad();
    const grace = await signIn(t, "Grace");
    const taskId = await createTask(admin, departmentId);
    const messageId = await admin.mutation(api.messages.create, { taskId, content: "@Archie, @archie! Also @Grace and @Ada." });
    await runScheduled(t);
    expect(summary(await allTriggers(t))).toEqual([{ agent: AGENTS.archie, kind: "mentioned", messageId, status: "pending" }]);
    expect(await notificationsFor(t, AGENTS.archie)).toHaveLength(1);
    expect(await notificationsFor(t, memberKeyOf("Grace"))).toHaveLength(1);
    expect(await notificationsFor(t, memberKeyOf("Ada"))).toEqual([]);
    expect((await grace.query(api.notifications.listMine, { departmentId })).unreadMentionTaskIds).toEqual([taskId]);
  });

  test("the same agent mentioned in two messages gets one row per message", async () => {
    const { t, departmentId, admin } = await squad();
    const taskId = await createTask(admin, departmentId);
    const m1 = await admin.mutation(api.messages.create, { taskId, content: "@Jarvis ping" });
    const m2 = await admin.mutation(api.messages.create, { taskId, content: "@Jarvis ping again" });
    await runScheduled(t);
    expect(summary(await allTriggers(t)).map((r) => r.messageId)).toEqual([m1, m2]);
  });

  test("an agent that mentions itself is not triggered", async () => {
    const { t, departmentId, admin } = await squad();
    const taskId = await createTask(admin, departmentId);
    await t.run(async (ctx) => {
      await postMessage(ctx, { kind: "agent", sessionKey: AGENTS.writer, name: "Writer" }, (await ctx.db.get("tasks", taskId))!, "@Writer will do");
    });
    await runScheduled(t);
    expect(await allTriggers(t)).toEqual([]);
  });

  test("re-assigning after the brain consumed the first assignment is new work; re-assigning while pending is not", async () => {
    const { t, departmentId, admin } = await squad();
    const taskId = await createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.devBot] });
    await runScheduled(t);
    // Off and on again before the brain looked: still one pending row.
    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [] });
    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [AGENTS.devBot] });
    await runScheduled(t);
    const [first] = await allTriggers(t);
    expect(summary(await allTriggers(t))).toEqual([{ agent: AGENTS.devBot, kind: "assigned", messageId: null, status: "pending" }]);
    // The brain takes it; then Dev Bot is taken off and put back on.
    await t.run(async (ctx) => {
      await ctx.db.patch("agentTriggers", first._id, { status: "consumed" });
    });
    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [] });
    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [AGENTS.devBot] });
    await runScheduled(t);
    expect(summary(await allTriggers(t))).toEqual([
      { agent: AGENTS.devBot, kind: "assigned", messageId: null, status: "consumed" },
      { agent: AGENTS.devBot, kind: "assigned", messageId: null, status: "pending" },
    ]);
  });
});

describe("triggers.agentAssigned / agentMentioned", () => {
  test("running the same event twice records it once", async () => {
    const { t, departmentId, admin } = await squad();
    const taskId = await createTask(admin, departmentId);
    const messageId = await admin.mutation(api.messages.create, { taskId, content: "no mentions" });
    const a1 = await t.mutation(internal.triggers.agentAssigned, { taskId, sessionKey: AGENTS.jarvis });
    const a2 = await t.mutation(internal.triggers.agentAssigned, { taskId, sessionKey: AGENTS.jarvis });
    const m1 = await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis });
    const m2 = await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis });
    expect(a2).toBe(a1);
    expect(m2).toBe(m1);
    expect(m1).not.toBe(a1);
    // A consumed mention stays consumed: the same message is not new work.
    await t.run(async (ctx) => {
      await ctx.db.patch("agentTriggers", m1!, { status: "consumed" });
    });
    expect(await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis })).toBe(m1);
    expect(await allTriggers(t)).toHaveLength(2);
  });

  test("a task deleted before the trigger runs records nothing", async () => {
    const { t, departmentId } = await squad();
    const gone = await deletedTaskId(t, departmentId);
    expect(await t.mutation(internal.triggers.agentAssigned, { taskId: gone, sessionKey: AGENTS.jarvis })).toBeNull();
    expect(await allTriggers(t)).toEqual([]);
  });
});

describe("lib/notify", () => {
  test("repeated recipients in one call are notified and triggered once", async () => {
    const { t, departmentId, admin } = await squad();
    const taskId = await createTask(admin, departmentId);
    const messageId = await admin.mutation(api.messages.create, { taskId, content: "no mentions" });
    await t.run(async (ctx) => {
      const task = (await ctx.db.get("tasks", taskId))!;
      const writer = { kind: "agent" as const, key: AGENTS.writer, name: "Writer" };
      const grace = { kind: "member" as const, key: memberKeyOf("Grace"), name: "Grace" };
      const author = { kind: "agent" as const, sessionKey: AGENTS.jarvis, name: "Jarvis" };
      const jarvis = { kind: "agent" as const, key: AGENTS.jarvis, name: "Jarvis" };
      await notifyMentions(ctx, { _id: messageId, taskId, departmentId, author, mentions: [writer, grace, writer, jarvis, grace] });
      await notifyAssignees(ctx, task, [AGENTS.archie, AGENTS.archie]);
    });
    await runScheduled(t);
    expect(summary(await allTriggers(t))).toEqual([
      { agent: AGENTS.writer, kind: "mentioned", messageId, status: "pending" },
      { agent: AGENTS.archie, kind: "assigned", messageId: null, status: "pending" },
    ]);
    expect((await notificationsFor(t, AGENTS.writer)).map((n) => n.kind)).toEqual(["mention"]);
    expect((await notificationsFor(t, memberKeyOf("Grace"))).map((n) => n.kind)).toEqual(["mention"]);
    expect((await notificationsFor(t, AGENTS.archie)).map((n) => n.kind)).toEqual(["assignment"]);
    expect(await notificationsFor(t, AGENTS.jarvis)).toEqual([]);
  });
});

describe("triggers.listPending", () => {
  test("pending rows, oldest first; consumed ones are left out", async () => {
    const { t, departmentId, admin } = await squad();
    const taskId = await createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.writer] });
    await runScheduled(t);
    await admin.mutation(api.messages.create, { taskId, content: "@Jarvis @Archie" });
    await runScheduled(t);
    const pending = await t.query(internal.triggers.listPending, {});
    expect(pending.map((r) => [r.agentSessionKey, r.kind])).toEqual([
      [AGENTS.writer, "assigned"],
      [AGENTS.jarvis, "mentioned"],
      [AGENTS.archie, "mentioned"],
    ]);
    await t.run(async (ctx) => {
      await ctx.db.patch("agentTriggers", pending[0]._id, { status: "consumed" });
    });
    expect((await t.query(internal.triggers.listPending, {})).map((r) => r.agentSessionKey)).toEqual([AGENTS.jarvis, AGENTS.archie]);
  });
});
