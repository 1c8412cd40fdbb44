/**
 * Blocking messages and the end-of-run nudge (reactions/delivery, reactions/runEnd): a blocking
 * message to an idle agent starts exactly one run, to a busy agent it is
 * folded into the run it is in (its next call opens with it); both are
 * recorded in the run's events and on the task timeline, and handled once a
 * call has opened with them. When a run ends, what it never saw wakes the
 * agent once. A model is "configured" on a closed port and fake timers hold
 * `brain/run:execute`: tests play the action's part.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import { LIMITS } from "../../convex/lib/limits";
import { nudgeNote } from "../../convex/lib/nudges";
import { MAX_AGENT_UNREAD_COUNTED } from "../../convex/records/inbox";
import { AGENTS, agent, createOtherDepartment, createTask, demoSquad, endReply, expectError, insertRun, roundInputs, startRun, taskRow, withClosedModel, type TestConvex } from "./setup";

withClosedModel();

async function setup() {
  const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
  const general = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
  return { t, departmentId, admin, grace, general };
}

const runsOf = async (t: TestConvex, sessionKey: string): Promise<Array<Doc<"runs">>> =>
  await t.run(async (ctx) => await ctx.db.query("runs").withIndex("by_agent_and_task", (q) => q.eq("agentSessionKey", sessionKey)).collect());
const eventsOf = async (t: TestConvex, runId: Id<"runs">) =>
  await t.run(async (ctx) => (await ctx.db.query("runEvents").withIndex("by_run_and_seq", (q) => q.eq("runId", runId)).collect()).map((e) => e.payload));
const activities = async (t: TestConvex) =>
  await t.run(async (ctx) => (await ctx.db.query("activities").collect()).filter((a) => a.type === "blocking_message_received"));
const inboxRow = async (t: TestConvex, recipientKey: string, messageId: Id<"channelMessages">) =>
  await t.run(async (ctx) => (await ctx.db.query("inbox").withIndex("by_recipient_and_message", (q) => q.eq("recipientKey", recipientKey).eq("messageId", messageId)).unique())!);

/** Plays one model call of the run's action: what the injection showed is read, its blocking messages handled. */
async function modelCall(t: TestConvex, runId: Id<"runs">) {
  const inbox = (await roundInputs(t, runId)).inbox!;
  await endReply(t, runId, { seen: { shown: inbox.unread.map((m) => m.id), blocking: inbox.blocking.map((m) => m.id) } });
  return inbox;
}

describe("blocking messages", () => {
  test("to an idle agent: exactly one run starts on the message's task, recorded in its events and on the timeline", async () => {
    const { t, departmentId, admin, grace } = await setup();
    const taskId = await createTask(admin, departmentId, { title: "Newsletter" });
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    const messageId = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Stop the newsletter, the price is wrong", blocking: true, taskId });

    const runs = await runsOf(t, AGENTS.writer);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ taskId, status: "queued", trigger: { kind: "message", channelMessageId: messageId } });
    expect(await eventsOf(t, runs[0]._id)).toEqual([
      { type: "user_message_submitted", channelMessageId: messageId, author: "Grace", content: "Stop the newsletter, the price is wrong", blocking: true },
    ]);
    expect(await activities(t)).toMatchObject([{ taskId, actor: { kind: "member", name: "Grace" }, data: { title: "Newsletter", agent: "Writer" } }]);
    expect((await agent(t, AGENTS.writer)).status).toBe("active");

    // The run's first call opens with it ("You received a message from Grace …"), and after the call it is handled and read.
    await startRun(t, runs[0]._id);
    const { context } = await roundInputs(t, runs[0]._id);
    expect(context.trigger).toMatchObject({ kind: "message" });
    expect(context.trigger.text).toContain("Grace sent you a blocking message");
    const shown = await modelCall(t, runs[0]._id);
    expect(shown.blocking.map((m) => m.id)).toEqual([messageId]);
    const row = await inboxRow(t, AGENTS.writer, messageId);
    expect(row.handledAt).toBeDefined();
    expect(row.readAt).toBeDefined();
  });

  test("with no task: the agent's current in-progress task, else its own inbox task (created once)", async () => {
    const { t, departmentId, grace } = await setup();
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Urgent: call me", blocking: true });
    const [first] = await runsOf(t, AGENTS.writer);
    const inboxTask = await t.run(async (ctx) => (await ctx.db.get("tasks", first.taskId))!);
    expect(inboxTask).toMatchObject({ title: "Inbox: Writer", assigneeSessionKeys: [AGENTS.writer], tags: ["inbox"] });
    const attempt = await startRun(t, first._id);
    await modelCall(t, first._id);
    await t.mutation(internal.brain.writes.finish, { runId: first._id, attempt, status: "completed", reason: "replied", reply: "Calling." });

    // Again with no task: the same inbox task, not a second one.
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Also: the logo", blocking: true });
    const second = (await runsOf(t, AGENTS.writer)).at(-1)!;
    expect(second.taskId).toBe(inboxTask._id);
    expect(await t.run(async (ctx) => (await ctx.db.query("tasks").collect()).filter((x) => x.title === "Inbox: Writer").length)).toBe(1);
    const attempt2 = await startRun(t, second._id);
    await modelCall(t, second._id);
    await t.mutation(internal.brain.writes.finish, { runId: second._id, attempt: attempt2, status: "completed", reason: "replied" });

    // An agent working on an in-progress task gets it there.
    const working = await t.run(async (ctx) => {
      const writer = (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", AGENTS.writer)).unique())!;
      return await ctx.db.insert("tasks", taskRow(departmentId, { title: "Copy deck", status: "in_progress", priority: "medium", assigneeSessionKeys: [writer.sessionKey], order: 1 }));
    });
    const done = await insertRun(t, AGENTS.writer, working, "completed");
    expect(done).toBeDefined();
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "And the footer", blocking: true });
    expect((await runsOf(t, AGENTS.writer)).at(-1)!.taskId).toBe(working);
  });

  test("to a busy agent: no new run; its next call opens with it, the run's events and the timeline record it; handled after", async () => {
    const { t, departmentId, admin, grace, general } = await setup();
    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const runId = await insertRun(t, AGENTS.writer, taskId);
    const messageId = await grace.mutation(api.channelMessages.post, { channelId: general, body: "@Writer hold the press release", blocking: true });
    const runs = await runsOf(t, AGENTS.writer);
    expect(runs.map((r) => r._id)).toEqual([runId]);
    expect(runs[0]).toMatchObject({ foldedTriggers: 1, rerunRequested: false });
    expect(await eventsOf(t, runId)).toEqual([
      { type: "user_message_submitted", channelMessageId: messageId, author: "Grace", content: "@Writer hold the press release", blocking: true },
    ]);
    expect(await activities(t)).toMatchObject([{ taskId, data: { agent: "Writer", title: "Launch" } }]);
    const inbox = await modelCall(t, runId);
    expect(inbox.blocking.map((m) => [m.id, m.from])).toEqual([[messageId, "Grace"]]);
    expect((await inboxRow(t, AGENTS.writer, messageId)).handledAt).toBeDefined();
    // Handled: the next call does not open with it again.
    expect((await roundInputs(t, runId)).inbox!.blocking).toEqual([]);
  });

  test("a busy run that ends before another call: the blocking message starts the next run, once", async () => {
    const { t, departmentId, admin, grace, general } = await setup();
    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const runId = await insertRun(t, AGENTS.writer, taskId);
    await t.run(async (ctx) => ctx.db.patch("runs", runId, { attempt: 1 }));
    const messageId = await grace.mutation(api.channelMessages.post, { channelId: general, body: "@Writer stop", blocking: true });
    await t.mutation(internal.brain.writes.finish, { runId, attempt: 1, status: "completed", reason: "replied" });
    const runs = await runsOf(t, AGENTS.writer);
    expect(runs.map((r) => [r.status, r.trigger.kind])).toEqual([
      ["completed", "assigned"],
      ["queued", "message"],
    ]);
    expect(runs[1].trigger.channelMessageId).toBe(messageId);
    // That run fails before any call: the message does not start a third.
    const attempt = await startRun(t, runs[1]._id);
    await t.mutation(internal.brain.writes.finish, { runId: runs[1]._id, attempt, status: "error", reason: "model down" });
    expect(await runsOf(t, AGENTS.writer)).toHaveLength(2);
  });

  test("an agent's blocking message interrupts a busy agent but never wakes an idle one", async () => {
    const { t, departmentId, admin } = await setup();
    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const jarvisRun = await insertRun(t, AGENTS.jarvis, taskId);
    await t.mutation(internal.tools.messaging.postChannelTool, { runId: jarvisRun, channel: "general", body: "@Writer drop everything", blocking: true });
    expect(await runsOf(t, AGENTS.writer)).toEqual([]);
    const inbox = await t.run(async (ctx) => await ctx.db.query("inbox").withIndex("by_recipient_and_department_and_readAt", (q) => q.eq("recipientKey", AGENTS.writer)).collect());
    expect(inbox.map((r) => r.blocking)).toEqual([true]);
  });

  test("a channel's followers get it in their next call but are not woken: only those it is addressed to", async () => {
    const { t, departmentId, grace, general } = await setup();
    await t.run(async (ctx) => {
      await ctx.db.insert("channelMembers", { channelId: general, departmentId, key: AGENTS.writer, name: "Writer", subscribed: true });
    });
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "Everyone: freeze deploys", blocking: true });
    expect(await runsOf(t, AGENTS.writer)).toEqual([]);
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "@Writer you too, stop now", blocking: true });
    expect((await runsOf(t, AGENTS.writer)).map((r) => r.trigger.kind)).toEqual(["message"]);
  });

  test("a plain DM or @mention (normal importance) wakes an idle agent; to a busy one it interrupts nothing", async () => {
    const { t, departmentId, admin, grace, general } = await setup();
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    const messageId = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "@Writer please write the FAQ" });
    const runs = await runsOf(t, AGENTS.writer);
    expect(runs.map((r) => [r.status, r.trigger.kind, r.trigger.channelMessageId])).toEqual([["queued", "message", messageId]]);
    const { context } = await roundInputs(t, runs[0]._id);
    expect(context.trigger.text).toContain('Grace sent you a message');
    expect(context.trigger.text).toContain("please write the FAQ");
    expect(context.trigger.text).not.toContain("blocking");

    // Dev Bot is busy: a plain @mention neither starts a run nor is folded into the one it is in.
    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const busy = await insertRun(t, AGENTS.devBot, taskId);
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "@Dev Bot when you have a minute" });
    const devRuns = await runsOf(t, AGENTS.devBot);
    expect(devRuns.map((r) => r._id)).toEqual([busy]);
    expect(await eventsOf(t, busy)).not.toContainEqual(expect.objectContaining({ type: "user_message_submitted" }));
  });
});

describe("the end-of-run nudge", () => {
  test("what arrived unread during a run nudges once; the nudge run never nudges; nothing new, no nudge", async () => {
    const { t, departmentId, admin, grace } = await setup();
    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    const adaDm = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    // Arrived before the run (in a channel Writer follows, so it wakes nothing): not "while it worked".
    const general = await admin.mutation(api.channels.create, { departmentId, name: "news", visibility: "project" });
    await admin.mutation(api.channels.addMember, { channelId: general, key: AGENTS.writer });
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "old news" });
    const runId = await insertRun(t, AGENTS.writer, taskId);
    await t.run(async (ctx) => ctx.db.patch("runs", runId, { attempt: 1 }));
    const first = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Can you check the pricing table?" });
    await admin.mutation(api.channelMessages.post, { channelId: adaDm, body: "FYI the launch moved" });
    await t.mutation(internal.brain.writes.finish, { runId, attempt: 1, status: "completed", reason: "replied" });

    const runs = await runsOf(t, AGENTS.writer);
    expect(runs.map((r) => [r.status, r.trigger.kind])).toEqual([
      ["completed", "assigned"],
      ["queued", "nudge"],
    ]);
    const nudge = runs[1];
    expect(nudge.taskId).toBe(taskId);
    expect(nudge.trigger.note).toBe("While you worked, 2 messages arrived for you (Grace in a DM; Ada in a DM).");
    expect((await inboxRow(t, AGENTS.writer, first)).nudgedAt).toBeDefined();
    expect(await eventsOf(t, nudge._id)).toEqual([{ type: "control_submitted", action: "start", by: "Maestro", note: nudge.trigger.note }]);
    const { context } = await roundInputs(t, nudge._id);
    expect(context.trigger.text).toContain("While you worked, 2 messages arrived for you");

    // The nudge run does not read them, more arrive, and it ends: no nudge from a nudge.
    const attempt = await startRun(t, nudge._id);
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "ping" });
    await t.mutation(internal.brain.writes.finish, { runId: nudge._id, attempt, status: "completed", reason: "replied" });
    expect(await runsOf(t, AGENTS.writer)).toHaveLength(2);
    expect((await agent(t, AGENTS.writer)).status).toBe("idle");

    // A later run where nothing new arrived: the already-nudged messages nudge no more.
    const later = await insertRun(t, AGENTS.writer, taskId);
    await t.run(async (ctx) => ctx.db.patch("runs", later, { attempt: 1 }));
    await t.mutation(internal.brain.writes.finish, { runId: later, attempt: 1, status: "completed", reason: "replied" });
    expect(await runsOf(t, AGENTS.writer)).toHaveLength(3);
  });

  test("a blocking or critical message older than the newest unread ones is still found when the run ends", async () => {
    const { t, departmentId, admin, grace, general } = await setup();
    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    /** `count` unread rows for Writer newer than anything so far, as a flood of channel traffic leaves them (`nudged`: a nudge named them already). */
    const flood = async (count: number, nudged: boolean) => {
      const messageId = await admin.mutation(api.channelMessages.post, { channelId: general, body: "chatter" });
      await t.run(async (ctx) => {
        for (let i = 0; i < count; i++) {
          await ctx.db.insert("inbox", { departmentId, recipientKey: AGENTS.writer, channelId: general, messageId, importance: "normal", blocking: false, direct: false, ...(nudged ? { nudgedAt: Date.now() } : {}) });
        }
      });
    };
    const busyRun = async () => {
      const runId = await insertRun(t, AGENTS.writer, taskId);
      await t.run(async (ctx) => ctx.db.patch("runs", runId, { attempt: 1 }));
      return runId;
    };

    // A blocking message folded into the busy run, then more unread rows than the end of a run scans.
    const first = await busyRun();
    const blocking = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Stop, the price is wrong", blocking: true });
    await flood(160, false);
    await t.mutation(internal.brain.writes.finish, { runId: first, attempt: 1, status: "completed", reason: "replied" });
    const afterFirst = await runsOf(t, AGENTS.writer);
    expect(afterFirst.map((r) => [r.status, r.trigger.kind, r.trigger.channelMessageId])).toEqual([
      ["completed", "assigned", undefined],
      ["queued", "message", blocking],
    ]);
    await t.run(async (ctx) => {
      for (const row of await ctx.db.query("inbox").withIndex("by_recipient_and_department_and_readAt", (q) => q.eq("recipientKey", AGENTS.writer)).collect()) {
        await ctx.db.patch("inbox", row._id, { readAt: Date.now() });
      }
    });
    await admin.mutation(api.runs.stop, { taskId: afterFirst[1].taskId, runId: afterFirst[1]._id });

    // A critical DM, then a flood a nudge already named: the critical one is still news, and the nudge names it.
    const second = await busyRun();
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "The launch is off", importance: "critical" });
    await flood(160, true);
    await t.mutation(internal.brain.writes.finish, { runId: second, attempt: 1, status: "completed", reason: "replied" });
    const runs = await runsOf(t, AGENTS.writer);
    const secondStarted = runs.find((r) => r._id === second)!._creationTime;
    expect(runs.filter((r) => r._creationTime > secondStarted).map((r) => r.trigger.note)).toEqual(["While you worked, 1 message arrived for you (Grace in a DM)."]);
  });

  test("what the run was shown does not nudge, nor does a stopped run", async () => {
    const { t, departmentId, admin, grace } = await setup();
    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    const runId = await insertRun(t, AGENTS.writer, taskId);
    await t.run(async (ctx) => ctx.db.patch("runs", runId, { attempt: 1 }));
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "seen in the call" });
    await modelCall(t, runId);
    await t.mutation(internal.brain.writes.finish, { runId, attempt: 1, status: "completed", reason: "replied" });
    expect(await runsOf(t, AGENTS.writer)).toHaveLength(1);

    const stopped = await insertRun(t, AGENTS.writer, taskId);
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "arrives while stopping" });
    await admin.mutation(api.runs.stop, { taskId, runId: stopped });
    expect(await runsOf(t, AGENTS.writer)).toHaveLength(2);
  });

  test("the nudge's words name who and where, briefly", () => {
    expect(nudgeNote([{ from: "Ada", where: "#ops" }])).toBe("While you worked, 1 message arrived for you (Ada in #ops).");
    const many = ["A", "B", "C", "D", "E"].map((from) => ({ from, where: "#ops" }));
    expect(nudgeNote(many)).toBe("While you worked, 5 messages arrived for you (A in #ops; B in #ops; C in #ops; and 2 more).");
  });
});

describe("the answer goes where it was asked", () => {
  const taskThread = async (t: TestConvex, taskId: Id<"tasks">) =>
    await t.run(async (ctx) => (await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect()).map((m) => [m.author.kind, m.content]));
  const inConversation = async (t: TestConvex, channelId: Id<"channels">) =>
    await t.run(async (ctx) => await ctx.db.query("channelMessages").withIndex("by_channel_and_thread", (q) => q.eq("channelId", channelId)).collect());

  /** Starts the run the blocking message queued for Writer, lets one call show it, and ends it with `reply`. */
  async function answer(t: TestConvex, reply: string, during?: (runId: Id<"runs">) => Promise<unknown>) {
    const run = (await runsOf(t, AGENTS.writer)).at(-1)!;
    const attempt = await startRun(t, run._id);
    await modelCall(t, run._id);
    await during?.(run._id);
    await t.mutation(internal.brain.writes.finish, { runId: run._id, attempt, status: "completed", reason: "replied", reply });
    return run;
  }

  test("a blocking DM: the reply is posted in the DM as the agent, delivered to the asker, not repeated in the task thread", async () => {
    const { t, departmentId, admin, grace } = await setup();
    const taskId = await createTask(admin, departmentId, { title: "Newsletter" });
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    const asked = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Is the price right?", blocking: true, taskId });
    const run = await answer(t, "Yes: 20 EUR, checked against the plan.");

    const messages = await inConversation(t, dm);
    expect(messages.map((m) => [m.from.kind, m.type, m.body])).toEqual([
      ["member", "dm", "Is the price right?"],
      ["agent", "dm", "Yes: 20 EUR, checked against the plan."],
    ]);
    const reply = messages[1];
    expect(reply.from).toMatchObject({ kind: "agent", sessionKey: AGENTS.writer, name: "Writer" });
    expect(reply.context).toEqual({ taskId });
    expect(run.taskId).toBe(taskId);
    expect(await taskThread(t, taskId)).toEqual([]);
    // Grace sees it unread; the post was logged like any other.
    const graceSummary = await grace.query(api.inbox.summary, { departmentId });
    expect(graceSummary).toMatchObject({ unread: 1, direct: 1 });
    const posted = await t.run(async (ctx) => (await ctx.db.query("events").collect()).filter((e) => e.type === "messaging.posted" && e.messageId === reply._id));
    expect(posted).toHaveLength(1);
    expect((await agent(t, AGENTS.writer)).status).toBe("idle");
    expect(reply.correlationId).toBe((await t.run(async (ctx) => await ctx.db.get("channelMessages", asked)))!.correlationId);
  });

  test("a blocking channel message: the reply goes in that message's thread; a blocking thread reply: in the same thread", async () => {
    const { t, grace, general } = await setup();
    const asked = await grace.mutation(api.channelMessages.post, { channelId: general, body: "@Writer is the copy final?", blocking: true });
    await answer(t, "Final, signed off this morning.");
    const [root, reply] = await inConversation(t, general);
    expect(reply).toMatchObject({ type: "thread", threadRootId: asked, body: "Final, signed off this morning.", from: { kind: "agent", sessionKey: AGENTS.writer } });
    expect((await t.run(async (ctx) => await ctx.db.get("channelMessages", root._id)))!.replyCount).toBe(1);

    // Asked again inside the thread: answered in the same thread, not a thread of its own.
    await grace.mutation(api.channelMessages.reply, { channelId: general, messageId: reply._id, body: "@Writer and the footer?", blocking: true });
    await answer(t, "The footer too.");
    const thread = await grace.query(api.channelMessages.thread, { channelId: general, messageId: asked });
    expect(thread.replies.map((m) => [m.from.kind, m.body])).toEqual([
      ["agent", "Final, signed off this morning."],
      ["member", "@Writer and the footer?"],
      ["agent", "The footer too."],
    ]);
    // The runs worked on Writer's inbox task, whose thread stays empty.
    const runs = await runsOf(t, AGENTS.writer);
    expect(await taskThread(t, runs[0].taskId)).toEqual([]);
  });

  test("secrets in the reply are redacted, and a long reply is cut to the message limit", async () => {
    const { t, departmentId, grace } = await setup();
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Which key?", blocking: true });
    await answer(t, "Use AKIAIOSFODNN7EXAMPLE for now.");
    const redacted = (await inConversation(t, dm)).at(-1)!;
    expect(redacted.from.kind).toBe("agent");
    expect(redacted.body).toMatch(/^Use \[redacted\] for now\./);
    expect(redacted.body).not.toContain("AKIAIOSFODNN7EXAMPLE");

    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "The whole text, please", blocking: true });
    await answer(t, "x".repeat(12_000));
    const cut = (await inConversation(t, dm)).at(-1)!;
    expect(cut.body.length).toBe(LIMITS.messageChars);
    expect(cut.body.endsWith("[truncated]")).toBe(true);
  });

  test("when the agent already answered there during the run, its closing words go to the task thread instead", async () => {
    const { t, departmentId, grace } = await setup();
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Send me the draft", blocking: true });
    const run = await answer(t, "Sent Grace the draft.", (runId) =>
      t.mutation(internal.tools.messaging.dmSendTool, { runId, to: ["Grace"], body: "Here is the draft: …" }),
    );
    expect((await inConversation(t, dm)).map((m) => m.body)).toEqual(["Send me the draft", "Here is the draft: …"]);
    expect(await taskThread(t, run.taskId)).toEqual([["agent", "Sent Grace the draft."]]);
  });

  test("where it may no longer post (the channel was archived meanwhile), the answer is kept in the task thread", async () => {
    const { t, admin, grace, general } = await setup();
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "@Writer quick one", blocking: true });
    await admin.mutation(api.channels.setArchived, { channelId: general, archived: true });
    const run = await answer(t, "Here is the answer.");
    expect((await inConversation(t, general)).map((m) => m.body)).toEqual(["@Writer quick one"]);
    expect(await taskThread(t, run.taskId)).toEqual([["agent", "Here is the answer."]]);
  });

  test("a failed run says so in the task thread, not in the conversation; other runs reply in their task thread as before", async () => {
    const { t, departmentId, admin, grace } = await setup();
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Status?", blocking: true });
    const failed = (await runsOf(t, AGENTS.writer)).at(-1)!;
    const attempt = await startRun(t, failed._id);
    await t.mutation(internal.brain.writes.finish, { runId: failed._id, attempt, status: "error", reason: "model down" });
    expect((await inConversation(t, dm)).map((m) => m.body)).toEqual(["Status?"]);
    expect(await taskThread(t, failed.taskId)).toEqual([["system", "Writer could not finish: model down"]]);

    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const runId = await insertRun(t, AGENTS.writer, taskId);
    await t.run(async (ctx) => ctx.db.patch("runs", runId, { attempt: 1 }));
    await t.mutation(internal.brain.writes.finish, { runId, attempt: 1, status: "completed", reason: "replied", reply: "Launch copy done." });
    expect(await taskThread(t, taskId)).toEqual([["agent", "Launch copy done."]]);
  });
});

describe("agents' unread badges", () => {
  test("count what each agent has unread (bounded), for anyone in the department; a run that is shown them clears them; others are refused", async () => {
    const { t, departmentId, admin, grace } = await setup();
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    expect(await admin.query(api.inbox.agentUnread, { departmentId })).toEqual([]);
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "When you have a minute" });
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "And another thing" });
    expect(await admin.query(api.inbox.agentUnread, { departmentId })).toEqual([{ sessionKey: AGENTS.writer, unread: 2, more: false }]);
    for (let i = 0; i < MAX_AGENT_UNREAD_COUNTED; i++) await grace.mutation(api.channelMessages.post, { channelId: dm, body: `note ${i}` });
    expect(await grace.query(api.inbox.agentUnread, { departmentId })).toEqual([{ sessionKey: AGENTS.writer, unread: MAX_AGENT_UNREAD_COUNTED, more: true }]);

    // A blocking message starts a run; once its call has shown them, the badge is gone.
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Now, please", blocking: true });
    const [run] = await runsOf(t, AGENTS.writer);
    await startRun(t, run._id);
    await modelCall(t, run._id);
    expect(await admin.query(api.inbox.agentUnread, { departmentId })).toEqual([]);

    const { member: mallory } = await createOtherDepartment(t);
    await expectError(mallory.query(api.inbox.agentUnread, { departmentId }), "FORBIDDEN");
  });
});
