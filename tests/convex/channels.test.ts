import { describe, expect, test, vi } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import { LIMITS } from "../../convex/lib/limits";
import { AGENTS, createOtherTask, createTask, demoSquad, expectError, insertRun, memberKeyOf, roundInputs, type Actor, type TestConvex } from "./setup";

type Table = "channels" | "channelMessages" | "inbox" | "events" | "channelMembers";
async function rows<T extends Table>(t: TestConvex, table: T): Promise<Array<Doc<T>>> {
  return await t.run(async (ctx) => (await ctx.db.query(table).collect()) as Array<Doc<T>>);
}

async function top(actor: Actor, channelId: Id<"channels">) {
  return (await actor.query(api.channelMessages.history, { channelId, paginationOpts: { numItems: 50, cursor: null } })).page;
}

describe("channels", () => {
  test("a member creates a project channel; names are normalised and unique; #maestro is reserved", async () => {
    const { t, departmentId, grace, admin } = await demoSquad({ grace: true, vera: true, other: true });
    const channelId = await grace.mutation(api.channels.create, { departmentId, name: "#Launch Plan", topic: "Ship it", visibility: "project" });
    const listed = await admin.query(api.channels.list, { departmentId });
    expect(listed).toEqual([expect.objectContaining({ _id: channelId, name: "launch-plan", topic: "Ship it", joined: false, unread: 0 })]);
    await expectError(admin.mutation(api.channels.create, { departmentId, name: "launch-plan", visibility: "project" }), "CONFLICT", /#launch-plan already exists/);
    await expectError(admin.mutation(api.channels.create, { departmentId, name: "maestro", visibility: "project" }), "CONFLICT", /squad chat/);
    await expectError(admin.mutation(api.channels.create, { departmentId, name: "no!", visibility: "project" }), "INVALID_ARGUMENT");
    await expectError(admin.mutation(api.channels.create, { departmentId, name: "x".repeat(41), visibility: "project" }), "INVALID_ARGUMENT", /40/);
    expect(await rows(t, "channels")).toHaveLength(1);
    expect((await rows(t, "events")).map((e) => e.type)).toEqual(["channels.created"]);
  });

  test("a private channel is invisible and refused to non-members, readable once added", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true, vera: true, other: true });
    const graceKey = memberKeyOf(t, "Grace");
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "leads", visibility: "private" });
    expect(await grace.query(api.channels.list, { departmentId })).toEqual([]);
    await expectError(top(grace, channelId), "FORBIDDEN", /private/);
    await expectError(grace.mutation(api.channelMessages.post, { channelId, body: "let me in" }), "FORBIDDEN");
    await admin.mutation(api.channels.addMember, { channelId, key: graceKey });
    expect(await grace.query(api.channels.list, { departmentId })).toEqual([expect.objectContaining({ name: "leads", joined: true })]);
    await grace.mutation(api.channelMessages.post, { channelId, body: "thanks" });
    expect((await top(grace, channelId)).map((m) => m.body)).toEqual(["thanks"]);
  });

  test("viewers read but cannot post or create; other departments are refused", async () => {
    const { departmentId, admin, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    await admin.mutation(api.channelMessages.post, { channelId, body: "hello" });
    expect(await top(vera, channelId)).toHaveLength(1);
    await expectError(vera.mutation(api.channelMessages.post, { channelId, body: "hi" }), "FORBIDDEN");
    await expectError(vera.mutation(api.channels.create, { departmentId, name: "mine", visibility: "project" }), "FORBIDDEN");
    await expectError(top(other.member, channelId), "FORBIDDEN");
    await expectError(other.member.mutation(api.channelMessages.post, { channelId, body: "hi" }), "FORBIDDEN");
  });
});

describe("managing a channel: members and topic", () => {
  test("its creator adds and removes people and agents and sets the topic; each change is a channels.updated event", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true, vera: true, other: true });
    const channelId = await grace.mutation(api.channels.create, { departmentId, name: "design", visibility: "private" });
    expect((await grace.query(api.channels.get, { channelId })).canManage).toBe(true);
    await grace.mutation(api.channels.addMember, { channelId, key: AGENTS.writer });
    await grace.mutation(api.channels.addMember, { channelId, key: memberKeyOf(t, "Vera") });
    await grace.mutation(api.channels.setTopic, { channelId, topic: "  Fonts and colours  " });
    await grace.mutation(api.channels.removeMember, { channelId, key: memberKeyOf(t, "Vera") });
    const card = await grace.query(api.channels.get, { channelId });
    expect(card.topic).toBe("Fonts and colours");
    expect(card.members.map((m) => `${m.name} (${m.kind})`).sort()).toEqual(["Grace (member)", "Writer (agent)"]);
    // An admin manages any channel they can read (a private one they are not in stays closed to them), and clears its topic.
    await expectError(admin.mutation(api.channels.setTopic, { channelId, topic: "" }), "FORBIDDEN", /private/);
    const open = await grace.mutation(api.channels.create, { departmentId, name: "open", topic: "Anything", visibility: "project" });
    expect((await admin.query(api.channels.get, { channelId: open })).canManage).toBe(true);
    await admin.mutation(api.channels.setTopic, { channelId: open, topic: "" });
    expect((await grace.query(api.channels.get, { channelId: open })).topic).toBeUndefined();
    const updates = (await rows(t, "events")).filter((e) => e.type === "channels.updated").map((e) => e.data);
    expect(updates).toEqual([{ added: "Writer" }, { added: "Vera" }, { topic: "Fonts and colours" }, { removed: "Vera" }, { topic: "" }]);
  });

  test("a member who did not create it, a viewer and another department are refused, and nothing changes; bad input is a clear error", async () => {
    const { t, departmentId, admin, grace, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "launch", topic: "Ship it", visibility: "project" });
    const card = await grace.query(api.channels.get, { channelId });
    expect(card.canManage).toBe(false);
    expect((await vera.query(api.channels.get, { channelId })).canManage).toBe(false);
    const before = JSON.stringify([await rows(t, "channels"), await rows(t, "channelMembers"), await rows(t, "events")]);
    for (const caller of [grace, vera, other.member]) {
      await expectError(caller.mutation(api.channels.setTopic, { channelId, topic: "mine now" }), "FORBIDDEN");
      await expectError(caller.mutation(api.channels.addMember, { channelId, key: AGENTS.writer }), "FORBIDDEN");
      await expectError(caller.mutation(api.channels.removeMember, { channelId, key: memberKeyOf(t, "Ada") }), "FORBIDDEN");
    }
    await expectError(admin.mutation(api.channels.addMember, { channelId, key: "agent:nobody:product" }), "NOT_FOUND", /No agent or member/);
    await expectError(admin.mutation(api.channels.addMember, { channelId, key: memberKeyOf(t, "Mallory") }), "NOT_FOUND");
    await expectError(admin.mutation(api.channels.removeMember, { channelId, key: AGENTS.writer }), "NOT_FOUND", /Not a member/);
    await expectError(admin.mutation(api.channels.setTopic, { channelId, topic: "x".repeat(LIMITS.messageChars) }), "INVALID_ARGUMENT");
    expect(JSON.stringify([await rows(t, "channels"), await rows(t, "channelMembers"), await rows(t, "events")])).toBe(before);
  });
});

describe("mark all read", () => {
  test("clears the caller's channel and DM messages and the bell's mentions in this department only, for a viewer too", async () => {
    const { t, departmentId, admin, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    const veraKey = memberKeyOf(t, "Vera");
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    await vera.mutation(api.channels.setSubscribed, { channelId, subscribed: true });
    await admin.mutation(api.channelMessages.post, { channelId, body: "one" });
    await admin.mutation(api.channelMessages.post, { channelId, body: "two" });
    const dm = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [veraKey] });
    await admin.mutation(api.channelMessages.post, { channelId: dm, body: "psst" });
    const taskId = await createTask(admin, departmentId, { title: "Look" });
    await admin.mutation(api.messages.create, { taskId, content: "@Vera see this" });
    // Another department's notification stays unread.
    const otherTask = await createOtherTask(t, other.departmentId);
    await t.run(async (ctx) => await ctx.db.insert("notifications", { departmentId: other.departmentId, recipientKey: veraKey, kind: "mention", taskId: otherTask }));
    expect(await vera.query(api.inbox.summary, { departmentId })).toMatchObject({ unread: 3 });
    expect((await vera.query(api.notifications.listMine, { departmentId })).unreadCount).toBe(2);

    expect(await vera.mutation(api.inbox.markAllRead, { departmentId })).toEqual({ messages: 3, notifications: 1, more: false });
    expect(await vera.query(api.inbox.summary, { departmentId })).toMatchObject({ unread: 0 });
    expect(await vera.query(api.notifications.listMine, { departmentId })).toMatchObject({ unreadCount: 0, notifications: [], dms: [] });
    const elsewhere = await t.run(async (ctx) => await ctx.db.query("notifications").collect());
    expect(elsewhere.filter((n) => n.departmentId === other.departmentId && n.readAt === undefined)).toHaveLength(1);
    // Another department's member marks nothing here.
    await expectError(other.member.mutation(api.inbox.markAllRead, { departmentId }), "FORBIDDEN");
  });
});

describe("messages, threads and the inbox", () => {
  test("a post reaches subscribers' inboxes, a mention reaches the mentioned directly; mark read clears the badge", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true, vera: true, other: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    await grace.mutation(api.channels.setSubscribed, { channelId, subscribed: true });
    const id = await admin.mutation(api.channelMessages.post, { channelId, body: "Standup at 10, @Writer draft the notes", importance: "high" });
    const [message] = await top(grace, channelId);
    expect(message).toMatchObject({ _id: id, type: "channel", importance: "high", blocking: false, mentions: [{ kind: "agent", key: AGENTS.writer, name: "Writer" }] });
    const inbox = await rows(t, "inbox");
    expect(inbox.map((r) => [r.recipientKey, r.direct]).sort()).toEqual([[AGENTS.writer, true], [memberKeyOf(t, "Grace"), false]].sort());
    expect((await grace.query(api.channels.list, { departmentId }))[0]).toMatchObject({ unread: 1, subscribed: true });
    expect(await grace.query(api.inbox.summary, { departmentId })).toEqual({ unread: 1, direct: 0, more: false });
    expect(await grace.mutation(api.inbox.markRead, { channelId })).toBe(1);
    expect(await grace.query(api.inbox.summary, { departmentId })).toEqual({ unread: 0, direct: 0, more: false });
    const events = (await rows(t, "events")).map((e) => e.type);
    expect(events).toEqual(["channels.created", "messaging.created", "messaging.posted", "messaging.read"]);
    // The sender's own post is never unread for them.
    expect(await admin.query(api.inbox.summary, { departmentId })).toMatchObject({ unread: 0 });
  });

  test("replies form a thread: the root counts them, participants are notified, a reply to a reply joins the same thread", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true, vera: true, other: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    const root = await admin.mutation(api.channelMessages.post, { channelId, body: "Which font?" });
    const first = await grace.mutation(api.channelMessages.reply, { channelId, messageId: root, body: "Inter" });
    await admin.mutation(api.channelMessages.reply, { channelId, messageId: first, body: "Agreed" });
    const thread = await grace.query(api.channelMessages.thread, { channelId, messageId: root });
    expect(thread.root).toMatchObject({ replyCount: 2, type: "channel" });
    expect(thread.replies.map((r) => [r.body, r.type, r.threadRootId])).toEqual([["Inter", "thread", root], ["Agreed", "thread", root]]);
    // Top-level history does not show replies.
    expect((await top(grace, channelId)).map((m) => m.body)).toEqual(["Which font?"]);
    // Ada started the thread: Grace's reply reached her; Ada's reply reached Grace.
    expect(await admin.query(api.inbox.summary, { departmentId })).toMatchObject({ unread: 1 });
    expect(await grace.query(api.inbox.summary, { departmentId })).toMatchObject({ unread: 1 });
    expect((await rows(t, "events")).filter((e) => e.type === "messaging.thread_created")).toHaveLength(1);
    await expectError(grace.query(api.channelMessages.thread, { channelId, messageId: first }), "NOT_FOUND");
  });

  test("bad input is refused and changes nothing: oversized, empty, foreign task, bad link, archived channel", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ grace: true, vera: true, other: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    const before = (await rows(t, "channelMessages")).length;
    const foreignTask = await createTask(other.member, other.departmentId, { title: "Theirs" });
    await expectError(admin.mutation(api.channelMessages.post, { channelId, body: "x".repeat(LIMITS.messageChars + 1) }), "INVALID_ARGUMENT", /limit/);
    await expectError(admin.mutation(api.channelMessages.post, { channelId, body: "   " }), "INVALID_ARGUMENT");
    await expectError(admin.mutation(api.channelMessages.post, { channelId, body: "see", taskId: foreignTask }), "NOT_FOUND");
    await expectError(admin.mutation(api.channelMessages.post, { channelId, body: "see", artifacts: [{ kind: "task", taskId: foreignTask }] }), "NOT_FOUND");
    await expectError(admin.mutation(api.channelMessages.post, { channelId, body: "see", artifacts: [{ kind: "link", url: "javascript:alert(1)" }] }), "INVALID_ARGUMENT", /http/);
    await admin.mutation(api.channels.setArchived, { channelId, archived: true });
    await expectError(admin.mutation(api.channelMessages.post, { channelId, body: "late" }), "FORBIDDEN", /archived/);
    expect(await rows(t, "channelMessages")).toHaveLength(before);
    expect(await rows(t, "inbox")).toHaveLength(0);
  });

  test("secrets in a message are redacted before they are stored", async () => {
    const { t, departmentId, admin } = await demoSquad({ grace: true, vera: true, other: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "ops", visibility: "project" });
    await admin.mutation(api.channelMessages.post, { channelId, body: "the key is AKIAIOSFODNN7EXAMPLE and password=hunter2" });
    const [stored] = await rows(t, "channelMessages");
    expect(stored.body).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect(stored.body).not.toContain("hunter2");
  });

  test("posting is rate limited per sender", async () => {
    const { departmentId, admin } = await demoSquad({ grace: true, vera: true, other: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "spam", visibility: "project" });
    let refused = 0;
    for (let i = 0; i < 25; i++) {
      await admin.mutation(api.channelMessages.post, { channelId, body: `m${i}` }).catch(() => refused++);
    }
    expect(refused).toBeGreaterThan(0);
    await expectError(admin.mutation(api.channelMessages.post, { channelId, body: "again" }), "RATE_LIMITED", /try again in \d+ s/);
  });
});

describe("DMs", () => {
  test("one DM per set of participants; only they read it; every participant gets it directly", async () => {
    const { t, departmentId, admin, grace, vera } = await demoSquad({ grace: true, vera: true, other: true });
    const grKey = memberKeyOf(t, "Grace");
    const dm = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [grKey, AGENTS.writer] });
    expect(await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer, memberKeyOf(t, "Ada")] })).toBe(dm);
    await admin.mutation(api.channelMessages.post, { channelId: dm, body: "Can you two pair on the copy?" });
    const inbox = await rows(t, "inbox");
    expect(inbox.map((r) => [r.recipientKey, r.direct]).sort()).toEqual([[AGENTS.writer, true], [grKey, true]].sort());
    expect(await top(grace, dm)).toEqual([expect.objectContaining({ type: "dm", to: expect.arrayContaining([grKey, AGENTS.writer]) })]);
    await expectError(top(vera, dm), "FORBIDDEN", /participants/);
    const graceList = await grace.query(api.channels.list, { departmentId });
    expect(graceList).toEqual([expect.objectContaining({ kind: "dm", title: expect.stringContaining("Ada"), unread: 1 })]);
    expect(await vera.query(api.channels.list, { departmentId })).toEqual([]);
  });

  test("agents alone cannot DM each other, and unknown participants are refused", async () => {
    const { t, departmentId, admin } = await demoSquad({ grace: true, vera: true, other: true });
    await expectError(admin.mutation(api.channels.openDm, { departmentId, participantKeys: ["member:nobody"] }), "NOT_FOUND");
    await expectError(admin.mutation(api.channels.openDm, { departmentId, participantKeys: [] }), "INVALID_ARGUMENT", /participant/);
    expect(await rows(t, "channels")).toHaveLength(0);
  });
});

describe("editing and deleting messages in channels and DMs", () => {
  async function activity(t: TestConvex, type: string) {
    return await t.run(async (ctx) => (await ctx.db.query("activities").collect()).filter((a) => a.type === type).map((a) => a.data));
  }

  test("the author edits in a channel (marked edited, agents read the new text); only the author may", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    const id = await grace.mutation(api.channelMessages.post, { channelId, body: "@Writer draft teh notes" });
    await expectError(admin.mutation(api.channelMessages.edit, { channelId, messageId: id, body: "hijack" }), "FORBIDDEN", /author/);
    await grace.mutation(api.channelMessages.edit, { channelId, messageId: id, body: "@Writer draft the notes" });
    const [message] = await top(admin, channelId);
    expect(message).toMatchObject({ body: "@Writer draft the notes", mentions: [expect.objectContaining({ key: AGENTS.writer })] });
    expect(message.editedAt).toBeTypeOf("number");
    expect(await activity(t, "message_edited")).toEqual([{ where: "#general" }]);
    const taskId = await createTask(admin, departmentId, { title: "Notes" });
    const runId = await insertRun(t, AGENTS.writer, taskId, "queued");
    const inbox = (await roundInputs(t, runId)).inbox;
    expect(inbox?.unread.map((m) => m.body)).toEqual(["@Writer draft the notes"]);
    await admin.mutation(api.channelMessages.remove, { channelId, messageId: id });
    const after = (await roundInputs(t, runId)).inbox;
    expect(after?.unread.map((m) => m.body)).toEqual(["(message deleted)"]);
  });

  test("in a DM the author deletes their own message; an admin deletes anyone's; others may not, and outsiders cannot reach it", async () => {
    const { t, departmentId, admin, grace, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [memberKeyOf(t, "Ada"), AGENTS.writer] });
    const graces = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "wrong DM, sorry", artifacts: [{ kind: "link", url: "https://example.com" }] });
    const adas = await admin.mutation(api.channelMessages.post, { channelId: dm, body: "no worries" });
    await expectError(grace.mutation(api.channelMessages.remove, { channelId: dm, messageId: adas }), "FORBIDDEN", /owner or admin/);
    await expectError(vera.mutation(api.channelMessages.remove, { channelId: dm, messageId: graces }), "FORBIDDEN");
    await expectError(other.member.mutation(api.channelMessages.remove, { channelId: dm, messageId: graces }), "FORBIDDEN");
    await expectError(t.mutation(api.channelMessages.edit, { channelId: dm, messageId: graces, body: "x" }), "UNAUTHENTICATED");
    const general = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    await expectError(admin.mutation(api.channelMessages.remove, { channelId: general, messageId: graces }), "NOT_FOUND");
    await grace.mutation(api.channelMessages.remove, { channelId: dm, messageId: graces });
    const messages = await top(admin, dm);
    expect(messages.find((m) => m._id === graces)).toMatchObject({ body: "", artifacts: [], deletedAt: expect.any(Number) });
    expect(messages.find((m) => m._id === adas)).toMatchObject({ body: "no worries" });
    await admin.mutation(api.channelMessages.remove, { channelId: dm, messageId: adas });
    // The feed never names a DM's people or quotes it.
    expect(await activity(t, "message_deleted")).toEqual([
      { where: "a DM", author: "Grace" },
      { where: "a DM", author: "Ada" },
    ]);
  });
});

describe("messaging figures", () => {
  test("posted and read per day, unread by recipient, median time-to-read", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const day0 = Date.UTC(2026, 10, 20);
      vi.setSystemTime(day0 + 9 * 3_600_000);
      const { t, departmentId, admin, grace } = await demoSquad({ grace: true, vera: true, other: true });
      const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
      await grace.mutation(api.channels.setSubscribed, { channelId, subscribed: true });
      await admin.mutation(api.channelMessages.post, { channelId, body: "one, @Writer" });
      await admin.mutation(api.channelMessages.post, { channelId, body: "two" });
      vi.setSystemTime(day0 + 9 * 3_600_000 + 60_000);
      await grace.mutation(api.inbox.markRead, { channelId });
      vi.setSystemTime(day0 + 86_400_000 + 3_600_000);
      await grace.mutation(api.channelMessages.post, { channelId, body: "three" });
      const stats = await admin.query(api.inbox.stats, { departmentId, sinceDay: day0, days: 3 });
      expect(stats.perDay).toEqual([
        { day: day0, posted: 2, read: 2 },
        { day: day0 + 86_400_000, posted: 1, read: 0 },
        { day: day0 + 2 * 86_400_000, posted: 0, read: 0 },
      ]);
      expect(stats.medianTimeToReadMs).toBeCloseTo(60_000, -1);
      expect(stats.unreadByRecipient).toEqual([
        { key: AGENTS.writer, name: "Writer", unread: 1 },
        { key: memberKeyOf(t, "Ada"), name: "Ada", unread: 1 },
      ]);
      await expectError(admin.query(api.inbox.stats, { departmentId, sinceDay: day0 + 5, days: 3 }), "INVALID_ARGUMENT", /UTC day/);
      await expectError(admin.query(api.inbox.stats, { departmentId, sinceDay: day0, days: 90 }), "INVALID_ARGUMENT");
    } finally {
      vi.useRealTimers();
    }
  });

  test("a member or viewer sees only their own figures; the department's leave DMs out of the posts", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const day0 = Date.UTC(2026, 10, 20);
      vi.setSystemTime(day0 + 9 * 3_600_000);
      const { t, departmentId, admin, grace, vera } = await demoSquad({ grace: true, vera: true });
      const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
      await grace.mutation(api.channels.setSubscribed, { channelId, subscribed: true });
      await admin.mutation(api.channelMessages.post, { channelId, body: "for everyone, @Writer" });
      await grace.mutation(api.channelMessages.post, { channelId, body: "from Grace" });
      const dm = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [memberKeyOf(t, "Grace")] });
      await admin.mutation(api.channelMessages.post, { channelId: dm, body: "just between us" });
      const window = { departmentId, sinceDay: day0, days: 1 };

      const department = await admin.query(api.inbox.stats, window);
      expect(department.perDay[0].posted).toBe(2);
      expect(department.unreadByRecipient.map((r) => r.name).sort()).toEqual(["Ada", "Grace", "Writer"]);

      const own = await grace.query(api.inbox.stats, window);
      expect(own.perDay[0].posted).toBe(1);
      expect(own.unreadByRecipient).toEqual([{ key: memberKeyOf(t, "Grace"), name: "Grace", unread: 2 }]);

      const viewer = await vera.query(api.inbox.stats, window);
      expect(viewer.perDay[0].posted).toBe(0);
      expect(viewer.unreadByRecipient).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});
