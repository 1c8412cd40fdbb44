/**
 * `#maestro` reaches the agent you name (issue 40, point 4;
 * reactions/chatMention.ts): a person's @mention of an agent in the chat
 * wakes it as a direct mention in a thread does, and its answer goes to
 * `#maestro`; so does an outside agent's post with its key (never waking
 * itself); a post from a run inside Maestro that @mentions another agent
 * starts no run (the loop guard), nor does a mention of an architect or of
 * a name that is not the department's.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import { hashApiKey } from "../../convex/lib/apiKeys";
import { agent, AGENTS, demoSquad, startRun, type TestConvex, withClosedModel } from "./setup";

async function runsOf(t: TestConvex, sessionKey: string) {
  return await t.run(async (ctx) => (await ctx.db.query("runs").collect()).filter((r) => r.agentSessionKey === sessionKey));
}

describe("#maestro mentions", () => {
  withClosedModel();

  test("a person's @Jarvis in #maestro starts a run of Jarvis, and its reply is posted in #maestro as Jarvis", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const { id } = await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Jarvis what is everyone working on?" });
    const [run] = await runsOf(t, AGENTS.jarvis);
    expect(run).toMatchObject({ status: "queued", trigger: { kind: "mentioned", chatId: id } });
    const task = await t.run(async (ctx) => await ctx.db.get("tasks", run.taskId));
    expect(task?.title).toBe("Inbox: Jarvis");
    // The stream says what woke it.
    const events = await t.run(async (ctx) => await ctx.db.query("runEvents").collect());
    expect(JSON.stringify(events.filter((e) => e.runId === run._id))).toContain("in #maestro: @Jarvis what is everyone working on?");

    const attempt = await startRun(t, run._id);
    await t.mutation(internal.brain.writes.finish, { runId: run._id, attempt, status: "completed", reason: "replied", reply: "Dev Bot is on the login bug." });
    const pane = await admin.query(api.chat.list, { departmentId });
    expect(pane.map((m) => [m.author, m.text])).toEqual([
      ["@human", "@Jarvis what is everyone working on?"],
      ["@jarvis", "Dev Bot is on the login bug."],
    ]);
    // Not repeated in the inbox task's thread.
    const thread = await t.run(async (ctx) => (await ctx.db.query("messages").collect()).filter((m) => m.taskId === run.taskId));
    expect(thread.map((m) => m.content)).not.toContain("Dev Bot is on the login bug.");
  });

  test("a reply that calls tools says its words in #maestro too; the final reply follows there, unless the agent posted there by itself after them", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const pane = async () => (await admin.query(api.chat.list, { departmentId })).map((m) => [m.author, m.text]);
    const threadOf = async (taskId: string) => await t.run(async (ctx) => (await ctx.db.query("messages").collect()).filter((m) => m.taskId === taskId).map((m) => m.content));
    const usage = { model: "m", promptTokens: 1, completionTokens: 1 };

    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Jarvis split the launch" });
    const [run] = await runsOf(t, AGENTS.jarvis);
    const attempt = await startRun(t, run._id);
    await t.mutation(internal.brain.writes.beginMessage, { runId: run._id, attempt, round: 0 });
    await t.mutation(internal.brain.writes.endReply, { runId: run._id, attempt, ...usage, say: "On it: splitting the launch.", firstCall: { index: 0, name: "delegate_task", args: "{}" } });
    await t.mutation(internal.brain.writes.finish, { runId: run._id, attempt, status: "completed", reason: "replied", reply: "Both parts are delegated." });
    expect(await pane()).toEqual([
      ["@human", "@Jarvis split the launch"],
      ["@jarvis", "On it: splitting the launch."],
      ["@jarvis", "Both parts are delegated."],
    ]);
    expect(await threadOf(run.taskId)).toEqual([]);

    // Its own post there (chat_post) after its words: the closing words go to the task's thread, as before.
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Jarvis who has the copy?" });
    const second = (await runsOf(t, AGENTS.jarvis)).find((r) => r._id !== run._id)!;
    const again = await startRun(t, second._id);
    await t.mutation(internal.brain.writes.beginMessage, { runId: second._id, attempt: again, round: 0 });
    await t.mutation(internal.brain.writes.endReply, { runId: second._id, attempt: again, ...usage, say: "Looking.", firstCall: { index: 0, name: "chat_post", args: "{}" } });
    await t.run(async (ctx) => {
      await ctx.db.insert("chat", { id: 999, departmentId, sessionId: (await ctx.db.get("departments", departmentId))!.chatSessionId, ts: new Date().toISOString(), author: "@jarvis", text: "Writer has it.", truncated: false, redacted: false });
    });
    await t.mutation(internal.brain.writes.finish, { runId: second._id, attempt: again, status: "completed", reason: "replied", reply: "Answered in #maestro." });
    expect((await pane()).slice(3)).toEqual([
      ["@human", "@Jarvis who has the copy?"],
      ["@jarvis", "Looking."],
      ["@jarvis", "Writer has it."],
    ]);
    expect(await threadOf(second.taskId)).toContain("Answered in #maestro.");
  });

  test("a retried send (the same clientMessageId) wakes nobody twice; two agents named are both woken", async () => {
    const { t, departmentId, admin } = await demoSquad();
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Jarvis and @Writer: status?", clientMessageId: "c-1" });
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Jarvis and @Writer: status?", clientMessageId: "c-1" });
    expect(await runsOf(t, AGENTS.jarvis)).toHaveLength(1);
    expect(await runsOf(t, AGENTS.writer)).toHaveLength(1);
  });

  test("an outside agent's post with its key wakes the agents it names, as a person's does, but never the poster itself", async () => {
    const { t, admin } = await demoSquad();
    const writer = await agent(t, AGENTS.writer);
    const { key } = await admin.mutation(api.agentApiKeys.create, { agentId: writer._id });
    const id = await t.mutation(internal.mcp.post, { keyHash: hashApiKey(key), text: "@Jarvis please review my copy, @Writer here" });
    const [run] = await runsOf(t, AGENTS.jarvis);
    expect(run).toMatchObject({ status: "queued", trigger: { kind: "mentioned", chatId: id } });
    expect(await runsOf(t, AGENTS.writer)).toEqual([]);
  });

  test("the loop guard: a #maestro post from a run inside Maestro that @mentions another agent starts no run; nor does an architect's name or plain text", async () => {
    const { t, departmentId, admin } = await demoSquad();
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Writer draft the tagline" });
    const [writerRun] = await runsOf(t, AGENTS.writer);
    await startRun(t, writerRun._id);
    await t.mutation(internal.chat.postForRun, { runId: writerRun._id, text: "@Jarvis please review my copy", key: "loop-guard-post" });
    expect((await admin.query(api.chat.list, { departmentId })).map((m) => m.text)).toContain("@Jarvis please review my copy");
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Archie have a look" });
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "Jarvis, no at-sign here" });
    expect(await runsOf(t, AGENTS.jarvis)).toEqual([]);
    expect(await runsOf(t, AGENTS.archie)).toEqual([]);
  });

  test("a viewer cannot post, so cannot wake anyone; another department's agents are not reached", async () => {
    const { t, departmentId, vera, other } = await demoSquad({ vera: true, other: true });
    await expect(vera.mutation(api.chat.postAsHuman, { departmentId, text: "@Jarvis hi" })).rejects.toThrow();
    await other.member.mutation(api.chat.postAsHuman, { departmentId: other.departmentId, text: "@Jarvis hi" }).catch(() => null);
    expect(await runsOf(t, AGENTS.jarvis)).toEqual([]);
  });
});
