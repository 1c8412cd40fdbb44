/**
 * Retention per department (convex/retention.ts, lib/retention): nothing is
 * deleted without a policy; with one, only what is past its window or
 * beyond the cap goes (threads whole, with their inbox rows), files by
 * their own TTL; admins alone set it, within bounds.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import { HISTORY_BATCH } from "../../convex/retention";
import type { Id } from "../../convex/_generated/dataModel";
import { notifyAssigned } from "../../convex/records/notifications";
import { appendRunEvent } from "../../convex/records/runEvents";
import { consumeTrigger, insertTrigger } from "../../convex/records/triggers";
import { AGENTS, channelMessageRow, demoSquad, expectError, insertRun, memberKeyOf, signIn, type TestConvex } from "./setup";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 5, 1);

afterEach(() => {
  vi.useRealTimers();
});

/** Posts as Ada `daysAgo` days before NOW. */
async function at<T>(daysAgo: number, work: () => Promise<T>): Promise<T> {
  vi.setSystemTime(NOW - daysAgo * DAY);
  return await work();
}

async function setup() {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(NOW - 400 * DAY);
  const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
  const channelId = await admin.mutation(api.channels.create, { departmentId, name: "history", visibility: "project" });
  await grace.mutation(api.channels.setSubscribed, { channelId, subscribed: true });
  return { t, departmentId, admin, grace, channelId };
}

async function bodies(t: TestConvex, channelId: Id<"channels">): Promise<string[]> {
  return await t.run(async (ctx) => (await ctx.db.query("channelMessages").collect()).filter((m) => m.channelId === channelId).map((m) => m.body));
}

async function sweepNow(t: TestConvex, departmentId: Id<"departments">) {
  vi.setSystemTime(NOW);
  return await t.mutation(internal.retention.sweepDepartment, { departmentId, cursor: null, files: true });
}

describe("retention", () => {
  test("without a policy nothing is deleted, however old", async () => {
    const { t, departmentId, admin, channelId } = await setup();
    await at(300, () => admin.mutation(api.channelMessages.post, { channelId, body: "ancient" }));
    expect(await admin.query(api.retention.get, { departmentId })).toEqual({});
    expect(await t.mutation(internal.retention.sweep, {})).toBe(0);
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 0, files: 0 });
    expect(await bodies(t, channelId)).toEqual(["ancient"]);
  });

  test("a message TTL deletes threads past the window with their inbox rows, keeps a thread answered inside it whole, and everything newer", async () => {
    const { t, departmentId, admin, grace, channelId } = await setup();
    // In time order (the post rate limit's clock only goes forward).
    const live = await at(45, () => admin.mutation(api.channelMessages.post, { channelId, body: "old but answered" }));
    const old = await at(40, () => admin.mutation(api.channelMessages.post, { channelId, body: "old" }));
    await at(39, () => grace.mutation(api.channelMessages.reply, { channelId, messageId: old, body: "old reply" }));
    await at(35, () => admin.mutation(api.channelMessages.reply, { channelId, messageId: live, body: "reply before the window" }));
    await at(10, () => grace.mutation(api.channelMessages.reply, { channelId, messageId: live, body: "recent reply" }));
    await at(29, () => admin.mutation(api.channelMessages.post, { channelId, body: "inside the window" }));
    await admin.mutation(api.retention.update, { departmentId, policy: { messageTtlDays: 30 } });

    expect(await t.mutation(internal.retention.sweep, {})).toBe(1);
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 1, files: 0 });
    expect((await bodies(t, channelId)).toSorted()).toEqual(["inside the window", "old but answered", "recent reply", "reply before the window"]);
    const inbox = await t.run(async (ctx) => await ctx.db.query("inbox").collect());
    const messages = new Set(await t.run(async (ctx) => (await ctx.db.query("channelMessages").collect()).map((m) => m._id as string)));
    expect(inbox.length).toBeGreaterThan(0);
    expect(inbox.every((row) => messages.has(row.messageId))).toBe(true);
    expect(inbox.some((row) => row.recipientKey === memberKeyOf(t, "Grace"))).toBe(true);
    // A second pass finds nothing more.
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 0, files: 0 });
  });

  test("a per-conversation cap keeps the newest top-level messages and deletes the oldest beyond it", async () => {
    const { t, departmentId, admin, channelId } = await setup();
    vi.setSystemTime(NOW - DAY);
    await t.run(async (ctx) => {
      for (let i = 0; i < 103; i++) {
        await ctx.db.insert("channelMessages", channelMessageRow(departmentId, channelId, { body: `m${i}` }));
      }
    });
    await admin.mutation(api.retention.update, { departmentId, policy: { maxMessagesPerConversation: 100 } });
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 3, files: 0 });
    const left = await bodies(t, channelId);
    expect(left).toHaveLength(100);
    expect(left).not.toContain("m0");
    expect(left).not.toContain("m2");
    expect(left).toContain("m3");
    expect(left).toContain("m102");
  });

  test("files have their own TTL: blob and row past it are deleted, newer files and the messages stay", async () => {
    const { t, departmentId, admin, channelId } = await setup();
    const upload = async (daysAgo: number, name: string) => {
      vi.setSystemTime(NOW - daysAgo * DAY);
      return await t.run(async (ctx) => {
        const storageId = await ctx.storage.store(new Blob(["hello"], { type: "text/plain" }));
        await ctx.db.insert("channelFiles", { departmentId, channelId, storageId, uploaderKey: "member:x", name, contentType: "text/plain", size: 5 });
        return storageId;
      });
    };
    const oldFile = await upload(100, "old.txt");
    const newFile = await upload(5, "new.txt");
    await at(100, () => admin.mutation(api.channelMessages.post, { channelId, body: "kept message" }));
    await admin.mutation(api.retention.update, { departmentId, policy: { artifactTtlDays: 90 } });
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 0, files: 1 });
    const state = await t.run(async (ctx) => ({
      files: (await ctx.db.query("channelFiles").collect()).map((f) => f.name),
      oldBlob: await ctx.storage.get(oldFile),
      newBlob: (await ctx.storage.get(newFile)) !== null,
    }));
    expect(state).toEqual({ files: ["new.txt"], oldBlob: null, newBlob: true });
    expect(await bodies(t, channelId)).toEqual(["kept message"]);
  });

  test("a history TTL deletes the feed, notifications, handled wake-ups and ended runs' steps past the window; the rest stays", async () => {
    const { t, departmentId, admin } = await setup();
    /** A task made `daysAgo` days before NOW (its feed entry), with a notification and a wake-up for Dev Bot and a run of `status` with three steps. */
    const history = async (daysAgo: number, title: string, status: "completed" | "running", triggerHandled: boolean) => {
      const taskId = await at(daysAgo, () => admin.mutation(api.tasks.create, { departmentId, title }));
      const runId = await insertRun(t, AGENTS.devBot, taskId, status);
      await t.run(async (ctx) => {
        await notifyAssigned(ctx, (await ctx.db.get("tasks", taskId))!, [AGENTS.devBot]);
        const triggerId = await insertTrigger(ctx, { taskId, agentSessionKey: AGENTS.devBot, kind: "assigned" }, departmentId);
        if (triggerHandled) await consumeTrigger(ctx, triggerId, { runId });
        for (const round of [0, 1]) await appendRunEvent(ctx, runId, { type: "message_start", round });
        await appendRunEvent(ctx, runId, { type: "message_update", delta: `${title} step` });
      });
      return { taskId, runId };
    };
    const old = await history(40, "old", "completed", true);
    const stillRunning = await history(39, "old but running", "running", false);
    const recent = await history(5, "recent", "completed", true);
    const split = (rows: Array<{ _creationTime: number }>) => ({
      old: rows.filter((row) => row._creationTime < NOW - 30 * DAY).length,
      recent: rows.filter((row) => row._creationTime >= NOW - 30 * DAY).length,
    });
    const counts = () =>
      t.run(async (ctx) => ({
        // Older than the window, and inside it.
        activities: split((await ctx.db.query("activities").collect()).filter((a) => a.departmentId === departmentId)),
        notifications: split((await ctx.db.query("notifications").collect()).filter((n) => n.departmentId === departmentId)),
        triggers: (await ctx.db.query("agentTriggers").collect()).map((row) => row.status).toSorted(),
        steps: Object.fromEntries(
          await Promise.all(
            [old, stillRunning, recent].map(async ({ runId }) => [runId, (await ctx.db.query("runEvents").collect()).filter((e) => e.runId === runId).length]),
          ),
        ),
      }));
    const before = await counts();
    expect(before.triggers).toEqual(["consumed", "consumed", "pending"]);
    // The seeded squad's entries (400 days ago) and the two old tasks'; the recent task's feed entry and notification.
    expect(before.activities.old).toBeGreaterThanOrEqual(2);
    expect(before.notifications).toEqual({ old: 2, recent: 1 });

    // Without the field, nothing of the history goes.
    await admin.mutation(api.retention.update, { departmentId, policy: { messageTtlDays: 365 } });
    vi.setSystemTime(NOW);
    expect(await t.mutation(internal.retention.sweepHistory, { departmentId })).toEqual({ activities: 0, notifications: 0, triggers: 0, runSteps: 0 });

    await admin.mutation(api.retention.update, { departmentId, policy: { historyTtlDays: 30 } });
    expect(await admin.query(api.retention.get, { departmentId })).toEqual({ historyTtlDays: 30 });
    vi.setSystemTime(NOW);
    expect(await t.mutation(internal.retention.sweepHistory, { departmentId })).toEqual({
      activities: before.activities.old,
      notifications: 2,
      triggers: 1,
      runSteps: 3,
    });
    const after = await counts();
    expect(after.activities).toEqual({ old: 0, recent: before.activities.recent });
    expect(after.notifications).toEqual({ old: 0, recent: 1 });
    // The old handled wake-up went; the old pending one is work still to do.
    expect(after.triggers).toEqual(["consumed", "pending"]);
    expect(after.steps).toEqual({ [old.runId]: 0, [stillRunning.runId]: 3, [recent.runId]: 3 });
    // The run stays, and says where its steps went; the tasks stay.
    const run = await admin.query(api.runs.get, { runId: old.runId });
    expect(run.stepsDeletedAt).toBe(NOW);
    expect(run.title).toBe("old");
    expect((await admin.query(api.runs.get, { runId: recent.runId })).stepsDeletedAt).toBeUndefined();
    // A second pass finds nothing more.
    expect(await t.mutation(internal.retention.sweepHistory, { departmentId })).toEqual({ activities: 0, notifications: 0, triggers: 0, runSteps: 0 });
    // The hourly cron sweeps the history of every department with a policy.
    await admin.mutation(api.retention.update, { departmentId, policy: { historyTtlDays: 1 } });
    expect(await t.mutation(internal.retention.sweep, {})).toBe(1);
  });

  test("history past a batch is deleted in bounded passes, each scheduling the next, a long run's steps across passes", async () => {
    const { t, departmentId, admin } = await setup();
    const taskId = await at(60, () => admin.mutation(api.tasks.create, { departmentId, title: "busy" }));
    const runId = await insertRun(t, AGENTS.devBot, taskId, "completed");
    await t.run(async (ctx) => {
      for (let i = 0; i < HISTORY_BATCH + 50; i++) await ctx.db.insert("activities", { departmentId, type: "task_created", actor: { kind: "system" }, taskId, data: {} });
      for (let i = 0; i < HISTORY_BATCH + 20; i++) await appendRunEvent(ctx, runId, { type: "message_update", delta: `piece ${i}` });
    });
    await admin.mutation(api.retention.update, { departmentId, policy: { historyTtlDays: 30 } });
    vi.setSystemTime(NOW);
    const scheduled = () => t.run(async (ctx) => (await ctx.db.system.query("_scheduled_functions").collect()).filter((job) => job.name.includes("sweepHistory")).length);
    const first = await t.mutation(internal.retention.sweepHistory, { departmentId });
    expect(first.activities).toBe(HISTORY_BATCH);
    expect(first.runSteps).toBe(HISTORY_BATCH);
    expect(await scheduled()).toBe(1);
    expect((await admin.query(api.runs.get, { runId })).stepsDeletedAt).toBeUndefined();
    const second = await t.mutation(internal.retention.sweepHistory, { departmentId });
    expect(second.runSteps).toBe(20);
    expect(second.activities).toBeGreaterThanOrEqual(50);
    expect((await admin.query(api.runs.get, { runId })).stepsDeletedAt).toBe(NOW);
  });

  test("admins alone set the policy, within bounds; a refused change saves nothing", async () => {
    const { t, departmentId, admin } = await setup();
    const member = await signIn(t, "Mel");
    await expectError(member.mutation(api.retention.update, { departmentId, policy: { messageTtlDays: 1 } }), "FORBIDDEN");
    await expectError(admin.mutation(api.retention.update, { departmentId, policy: { messageTtlDays: 0 } }), "INVALID_ARGUMENT", /from 1 to 3650/);
    await expectError(admin.mutation(api.retention.update, { departmentId, policy: { maxMessagesPerConversation: 10 } }), "INVALID_ARGUMENT", /from 100 to 5000/);
    await expectError(admin.mutation(api.retention.update, { departmentId, policy: { artifactTtlDays: 1.5 } }), "INVALID_ARGUMENT", /whole number/);
    await expectError(admin.mutation(api.retention.update, { departmentId, policy: { historyTtlDays: 4000 } }), "INVALID_ARGUMENT", /history retention.*from 1 to 3650/);
    expect(await admin.query(api.retention.get, { departmentId })).toEqual({});
    await admin.mutation(api.retention.update, { departmentId, policy: { messageTtlDays: 365, artifactTtlDays: 30 } });
    expect(await admin.query(api.retention.get, { departmentId })).toEqual({ messageTtlDays: 365, artifactTtlDays: 30 });
  });
});
