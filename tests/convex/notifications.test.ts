import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import {
  AGENTS,
  createTask,
  demoSquad,
  expectError,
  memberKeyOf,
  notificationsFor,
  seedDemoWithAdmin,
  setupTest,
  signIn,
  addToDepartment,
  holdScheduledFunctions,
} from "./setup";

// Messages that mention agents schedule triggers; fake timers keep them queued.
holdScheduledFunctions();

/** Grace, another department, two tasks, and `say`: Ada posting on a task. */
async function inbox() {
  const squad = await demoSquad({ grace: true, other: true });
  const { departmentId, admin } = squad;
  const first = await createTask(admin, departmentId, { title: "First" });
  const second = await createTask(admin, departmentId, { title: "Second" });
  const say = (taskId: Id<"tasks">, content: string) => admin.mutation(api.messages.create, { taskId, content });
  return { ...squad, first, second, say };
}

describe("notifications.listMine", () => {
  test("the caller's unread notifications, newest first, with task titles and the tasks that hold unread mentions", async () => {
    const { departmentId, grace, first, second, say } = await inbox();
    expect(await grace.query(api.notifications.listMine, { departmentId })).toEqual({ unreadCount: 0, unreadMentionTaskIds: [], notifications: [], dms: [] });
    const m1 = await say(first, "@Grace one");
    const m2 = await say(second, "@Grace two");
    const m3 = await say(first, "@Grace three");
    const mine = await grace.query(api.notifications.listMine, { departmentId });
    expect(mine.unreadCount).toBe(3);
    expect(mine.unreadMentionTaskIds).toEqual([first, second]);
    expect(mine.notifications.map(({ kind, taskId, taskTitle, messageId }) => ({ kind, taskId, taskTitle, messageId }))).toEqual([
      { kind: "mention", taskId: first, taskTitle: "First", messageId: m3 },
      { kind: "mention", taskId: second, taskTitle: "Second", messageId: m2 },
      { kind: "mention", taskId: first, taskTitle: "First", messageId: m1 },
    ]);
    // Each says who mentioned the caller.
    expect(mine.notifications.map((n) => n.from)).toEqual(["Ada", "Ada", "Ada"]);
  });

  test("a DM with unread messages is listed with who it is with, and counted; reading it takes it off", async () => {
    const { t, departmentId, admin, grace } = await inbox();
    const dm = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [memberKeyOf(t, "Grace")] });
    await admin.mutation(api.channelMessages.post, { channelId: dm, body: "Got a minute?" });
    await admin.mutation(api.channelMessages.post, { channelId: dm, body: "About the launch." });
    const mine = await grace.query(api.notifications.listMine, { departmentId });
    expect(mine.dms).toEqual([{ channelId: dm, title: "Ada", unread: 2 }]);
    expect(mine.unreadCount).toBe(1);
    // Ada's own DM holds nothing unread for her.
    expect((await admin.query(api.notifications.listMine, { departmentId })).dms).toEqual([]);
    await grace.mutation(api.inbox.markRead, { channelId: dm });
    expect(await grace.query(api.notifications.listMine, { departmentId })).toMatchObject({ unreadCount: 0, dms: [] });
  });

  test("only mentions put a task in unreadMentionTaskIds", async () => {
    const { t, departmentId, grace, first } = await inbox();
    await t.run(async (ctx) => {
      await ctx.db.insert("notifications", { departmentId, recipientKey: memberKeyOf(t, "Grace"), kind: "assignment", taskId: first });
    });
    const mine = await grace.query(api.notifications.listMine, { departmentId });
    expect(mine).toMatchObject({ unreadCount: 1, unreadMentionTaskIds: [] });
    expect(mine.notifications).toMatchObject([{ kind: "assignment", taskId: first }]);
  });

  test("notifications of another department the caller belongs to are not listed", async () => {
    const t = setupTest();
    const designId = await t.run(async (ctx) => await ctx.db.insert("departments", { name: "Design", slug: "design", chatSessionId: "design" }));
    const { departmentId, admin } = await seedDemoWithAdmin(t);
    await addToDepartment(t, designId, "Ada", "admin");
    const grace = await signIn(t, "Grace");
    const ours = await createTask(admin, departmentId, { title: "Ours" });
    const design = await createTask(admin, designId, { title: "Design task" });
    await admin.mutation(api.messages.create, { taskId: ours, content: "@grace" });
    await admin.mutation(api.messages.create, { taskId: design, content: "@grace" });
    expect((await grace.query(api.notifications.listMine, { departmentId })).unreadMentionTaskIds).toEqual([ours]);
    expect((await grace.query(api.notifications.listMine, { departmentId: designId })).unreadMentionTaskIds).toEqual([design]);
  });

  test("anonymous callers and other departments are refused", async () => {
    const { t, departmentId, other } = await inbox();
    await expectError(t.query(api.notifications.listMine, { departmentId }), "UNAUTHENTICATED");
    await expectError(other.member.query(api.notifications.listMine, { departmentId }), "FORBIDDEN");
  });
});

describe("notifications.markRead", () => {
  test("by task: clears every unread notification of the caller on that task", async () => {
    const { departmentId, grace, first, second, say } = await inbox();
    await say(first, "@Grace a");
    await say(first, "@Grace b");
    await say(second, "@Grace c");
    expect(await grace.mutation(api.notifications.markRead, { taskId: first })).toBe(2);
    expect(await grace.query(api.notifications.listMine, { departmentId })).toMatchObject({ unreadCount: 1, unreadMentionTaskIds: [second] });
    expect(await grace.mutation(api.notifications.markRead, { taskId: first })).toBe(0);
  });

  test("by id: clears that one notification, once", async () => {
    const { departmentId, grace, first, say } = await inbox();
    await say(first, "@Grace a");
    const [only] = (await grace.query(api.notifications.listMine, { departmentId })).notifications;
    expect(await grace.mutation(api.notifications.markRead, { notificationId: only._id })).toBe(1);
    expect(await grace.query(api.notifications.listMine, { departmentId })).toMatchObject({ unreadCount: 0, unreadMentionTaskIds: [] });
    expect(await grace.mutation(api.notifications.markRead, { notificationId: only._id })).toBe(0);
  });

  test("someone else's notification is NOT_FOUND; someone else's task clears nothing of theirs", async () => {
    const { t, departmentId, admin, grace, other, first, say } = await inbox();
    await say(first, "@Grace and @Jarvis");
    const [gracesId] = (await grace.query(api.notifications.listMine, { departmentId })).notifications.map((n) => n._id);
    const [jarvisId] = (await notificationsFor(t, AGENTS.jarvis)).map((n) => n._id);
    await expectError(admin.mutation(api.notifications.markRead, { notificationId: gracesId }), "NOT_FOUND", "Notification not found.");
    await expectError(other.member.mutation(api.notifications.markRead, { notificationId: gracesId }), "NOT_FOUND");
    await expectError(grace.mutation(api.notifications.markRead, { notificationId: jarvisId }), "NOT_FOUND");
    expect(await other.member.mutation(api.notifications.markRead, { taskId: first })).toBe(0);
    expect(await admin.mutation(api.notifications.markRead, { taskId: first })).toBe(0);
    expect((await grace.query(api.notifications.listMine, { departmentId })).unreadCount).toBe(1);
    expect((await notificationsFor(t, AGENTS.jarvis))[0].readAt).toBeUndefined();
  });

  test("needs a notificationId or a taskId, and a sign-in", async () => {
    const { t, grace, first } = await inbox();
    await expectError(grace.mutation(api.notifications.markRead, {}), "INVALID_ARGUMENT", "Give a notificationId or a taskId.");
    await expectError(t.mutation(api.notifications.markRead, { taskId: first }), "UNAUTHENTICATED");
  });
});
