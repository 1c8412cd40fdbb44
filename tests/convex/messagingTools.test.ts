import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import { inboxMiddleware } from "../../convex/brain/prompt";
import { buildInjection } from "../../convex/lib/injection";
import { countTokens } from "../../convex/lib/tokens";
import type { ActionCtx } from "../../convex/_generated/server";
import { unreadFor } from "../../convex/records/inbox";
import { TOOL_REGISTRY, type ToolDefinition } from "../../convex/tools/registry";
import { AGENTS, createTask, demoSquad, endReply, expectError, insertRun, roundInputs, type TestConvex } from "./setup";

async function setup() {
  const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
  const taskId = await createTask(admin, departmentId, { title: "Launch" });
  const writerRun = await insertRun(t, AGENTS.writer, taskId);
  return { t, departmentId, admin, grace, taskId, writerRun };
}

describe("the agents' messaging tools", () => {
  test("create_channel, post_message to a channel, reply_thread, channel_history", async () => {
    const { t, departmentId, admin, writerRun, taskId } = await setup();
    const { channelId, name } = await t.mutation(internal.tools.messaging.createChannelTool, { runId: writerRun, name: "Launch Copy", topic: "words" });
    expect(name).toBe("launch-copy");
    const root = await t.mutation(internal.tools.messaging.postChannelTool, { runId: writerRun, channel: "#launch-copy", body: "Draft 1 is up", importance: "high" });
    const reply = await admin.mutation(api.channelMessages.reply, { channelId, messageId: root, body: "Looks good" });
    await t.mutation(internal.tools.messaging.replyThreadTool, { runId: writerRun, messageId: reply, body: "Thanks, polishing now" });
    const history = await t.query(internal.tools.messaging.channelHistoryTool, { runId: writerRun, channel: "launch-copy" });
    expect(history.map((m) => [m.body, m.replyCount, m.context.taskId])).toEqual([["Draft 1 is up", 2, taskId]]);
    expect((await admin.query(api.channels.list, { departmentId }))[0]).toMatchObject({ name: "launch-copy" });
    await expectError(t.mutation(internal.tools.messaging.postChannelTool, { runId: writerRun, channel: "nope", body: "x" }), "NOT_FOUND", /No channel #nope/);
  });

  test("an agent cannot read or post in a private channel it is not in", async () => {
    const { t, departmentId, admin, writerRun } = await setup();
    await admin.mutation(api.channels.create, { departmentId, name: "leads", visibility: "private" });
    await expectError(t.query(internal.tools.messaging.channelHistoryTool, { runId: writerRun, channel: "leads" }), "FORBIDDEN", /private/);
    await expectError(t.mutation(internal.tools.messaging.postChannelTool, { runId: writerRun, channel: "leads", body: "hi" }), "FORBIDDEN");
  });

  test("dm_send reaches a person; agents alone cannot DM; dm_list shows it", async () => {
    const { t, grace, departmentId, writerRun } = await setup();
    const { channelId } = await t.mutation(internal.tools.messaging.dmSendTool, { runId: writerRun, to: ["Grace"], body: "Which tone do you want?", blocking: true });
    const list = await grace.query(api.channels.list, { departmentId });
    expect(list).toEqual([expect.objectContaining({ _id: channelId, kind: "dm", title: "Writer", unread: 1 })]);
    await expectError(t.mutation(internal.tools.messaging.dmSendTool, { runId: writerRun, to: ["Jarvis"], body: "psst" }), "INVALID_ARGUMENT", /Agents do not DM each other/);
    await expectError(t.mutation(internal.tools.messaging.dmSendTool, { runId: writerRun, to: ["Nobody"], body: "?" }), "NOT_FOUND");
    expect(await t.query(internal.tools.messaging.dmListTool, { runId: writerRun })).toEqual([expect.objectContaining({ channelId, with: ["Grace"], unread: 0 })]);
  });

  test("inbox.read, messages.fetch and message_mark_read; the unread feed the injection budget packs", async () => {
    const { t, departmentId, admin, grace, writerRun, taskId } = await setup();
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    await t.mutation(internal.tools.messaging.subscribeTool, { runId: writerRun, channel: "general", subscribed: true });
    await grace.mutation(api.channelMessages.post, { channelId, body: "FYI the launch moved", taskId });
    await admin.mutation(api.channelMessages.post, { channelId, body: "@Writer prod copy is wrong", importance: "critical" });
    const unread = await t.query(internal.tools.messaging.inboxReadTool, { runId: writerRun });
    expect(unread.map((m) => [m.from, m.importance, m.direct])).toEqual([["Ada", "critical", true], ["Grace", "normal", false]]);
    const full = await t.query(internal.tools.messaging.fetchMessageTool, { runId: writerRun, messageId: unread[0].id });
    expect(full.body).toBe("@Writer prod copy is wrong");
    const injection = await t.run(async (ctx) => {
      const agent = (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", AGENTS.writer)).unique())!;
      return buildInjection(await unreadFor(ctx, agent, taskId, 100));
    });
    expect(injection.text.indexOf("prod copy is wrong")).toBeLessThan(injection.text.indexOf("launch moved"));
    expect(injection.included).toHaveLength(2);
    expect(await t.mutation(internal.tools.messaging.markReadTool, { runId: writerRun, messageIds: [unread[0].id] })).toBe(1);
    expect(await t.query(internal.tools.messaging.inboxReadTool, { runId: writerRun })).toHaveLength(1);
    expect(await t.mutation(internal.tools.messaging.markReadTool, { runId: writerRun })).toBe(1);
    expect(await t.query(internal.tools.messaging.inboxReadTool, { runId: writerRun })).toEqual([]);
  });

  test("a finished run acts on nothing", async () => {
    const { t, writerRun } = await setup();
    await t.run(async (ctx) => ctx.db.patch("runs", writerRun, { status: "completed" }));
    await expectError(t.mutation(internal.tools.messaging.createChannelTool, { runId: writerRun, name: "x" }), "INVALID_ARGUMENT", /not running/);
  });
});

describe("through the tool registry", () => {
  /** An action context for an executor, forwarding to the test deployment's internal functions. */
  function actionCtx(t: TestConvex) {
    type Run = (ref: unknown, args: unknown) => Promise<unknown>;
    const runMutation = t.mutation as unknown as Run;
    const runQuery = t.query as unknown as Run;
    return { runMutation, runQuery } as unknown as ActionCtx;
  }
  const find = (name: string) => TOOL_REGISTRY.find((tool) => tool.name === name)! as unknown as ToolDefinition;

  test("post_message with a channel posts there; without one, in the thread; the messaging tools answer in lines", async () => {
    const { t, departmentId, admin, grace, writerRun, taskId } = await setup();
    await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    const base = { runId: writerRun, agentName: "Writer", sessionKey: AGENTS.writer, departmentId, taskId, triggerKind: "mentioned" as const };
    const ctx = actionCtx(t);
    const post = find("post_message");
    // Each call its own idempotency key, as the dispatcher derives it from the cause, the tool and the arguments.
    const scope = (key: string) => ({ ...base, key });
    expect(await post.execute(ctx, scope("k1"), post.args.parse({ content: "Copy is ready", channel: "general", importance: "high" }))).toEqual({
      ok: true,
      text: expect.stringMatching(/^posted in #general \(message .+\)$/),
    });
    const history = find("channel_history");
    expect(await history.execute(ctx, scope("k2"), history.args.parse({ channel: "#general" }))).toEqual({ ok: true, text: expect.stringMatching(/^\[.+\] Writer: Copy is ready$/) });
    expect(await post.execute(ctx, scope("k3"), post.args.parse({ content: "Done here" }))).toEqual({ ok: true, text: "posted in the thread" });
    const dm = find("dm_send");
    expect(await dm.execute(ctx, scope("k4"), dm.args.parse({ to: ["Grace"], content: "Need your eyes" }))).toEqual({ ok: true, text: "sent a DM to Grace" });
    expect((await grace.query(api.inbox.summary, { departmentId })).direct).toBe(1);
    // A refusal from the server is thrown: the dispatcher turns it into a failed result with the server's words.
    await expect(post.execute(ctx, scope("k5"), post.args.parse({ content: "x", channel: "#nope" }))).rejects.toThrow(/No channel #nope/);
    expect(dm.args.safeParse({ to: [], content: "x" }).success).toBe(false);
  });
});

describe("what a run's prompt is given", () => {
  test("blocking messages open the call, the rest is packed within the budget; afterwards they are read and handled", async () => {
    const { t, departmentId, admin, grace, writerRun } = await setup();
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    await t.mutation(internal.tools.messaging.subscribeTool, { runId: writerRun, channel: "general", subscribed: true });
    await admin.mutation(api.channelMessages.post, { channelId, body: "FYI: the launch moved to Friday" });
    await grace.mutation(api.channelMessages.post, { channelId, body: "@Writer stop the newsletter, the price is wrong", blocking: true });
    const inbox = (await roundInputs(t, writerRun)).inbox!;
    expect(inbox.blocking.map((m) => m.from)).toEqual(["Grace"]);
    expect(inbox.unread.map((m) => m.body)).toEqual(["FYI: the launch moved to Friday"]);

    const middleware = inboxMiddleware(async () => inbox, 200);
    const state = { context: {} as never, system: [] as string[], user: [] as string[] };
    await middleware.apply(state);
    const [section] = state.user;
    expect(section).toContain("You received a message from Grace (#general): @Writer stop the newsletter, the price is wrong");
    expect(section.indexOf("You received a message")).toBeLessThan(section.indexOf("launch moved"));
    expect(countTokens(section)).toBeLessThanOrEqual(200);
    const injected = middleware.injected()!;
    expect(injected.blocking).toHaveLength(1);
    expect(injected.shown).toHaveLength(1);

    await endReply(t, writerRun, { seen: { shown: injected.shown, blocking: injected.blocking } });
    expect((await roundInputs(t, writerRun)).inbox).toEqual({ blocking: [], unread: [], older: 0, olderMore: false });
    const rows = await t.run(async (ctx) => await ctx.db.query("inbox").withIndex("by_recipient_and_department_and_readAt", (q) => q.eq("recipientKey", AGENTS.writer)).collect());
    expect(rows.map((r) => [r.blocking, r.readAt !== undefined, r.handledAt !== undefined])).toEqual([
      [false, true, false],
      [true, true, true],
    ]);
  });

  test("an empty inbox adds nothing; a tiny budget still never overflows", async () => {
    const empty = inboxMiddleware(async () => ({ blocking: [], unread: [] }), 768);
    const state = { context: {} as never, system: [] as string[], user: [] as string[] };
    await empty.apply(state);
    expect(state.user).toEqual([]);
    expect(empty.injected()).toBeNull();
    const many = Array.from({ length: 30 }, (_, i) => ({ id: `m${i}`, from: "Ana", where: "#ops", body: `Message ${i} about the rollout plan and its many steps`, importance: "normal" as const, direct: false, aboutTask: false, createdAt: i }));
    const tight = inboxMiddleware(async () => ({ blocking: many.slice(0, 3).map((m) => ({ ...m, importance: "critical" as const })), unread: many.slice(3) }), 120);
    await tight.apply(state);
    expect(countTokens(state.user[0])).toBeLessThanOrEqual(120);
  });
});
