import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { NO_MODEL_NOTE } from "../../convex/lib/modelConfig";
import { postToThread } from "../../convex/reactions/threadPost";
import {
  AGENTS,
  addToDepartment,
  allTriggers,
  insertRun,
  roundInputs,
  createTask,
  demoSquad,
  expectError,
  expectTaskRefusals,
  memberKeyOf,
  notificationsFor,
  runScheduled,
  userIdOf,
  type Actor,
  holdScheduledFunctions,
} from "./setup";

// Mentions of agents schedule trigger functions; fake timers keep them queued until a test runs them.
holdScheduledFunctions();

/** Grace, another department, and a fresh task to talk on. */
async function thread() {
  const squad = await demoSquad({ grace: true, other: true });
  return { ...squad, taskId: await createTask(squad.admin, squad.departmentId, { title: "Launch plan" }) };
}

async function mentionsOf(actor: Actor, taskId: Id<"tasks">, content: string) {
  await actor.mutation(api.messages.create, { taskId, content });
  const { page } = await actor.query(api.messages.list, { taskId, paginationOpts: { numItems: 1, cursor: null } });
  return page[0].mentions;
}

describe("messages.create", () => {
  test("posts a trimmed message as the caller and records a message_posted activity with a preview", async () => {
    const { t, admin, taskId } = await thread();
    const messageId = await admin.mutation(api.messages.create, { taskId, content: "  Hello squad  " });
    const { page } = await admin.query(api.messages.list, { taskId, paginationOpts: { numItems: 10, cursor: null } });
    expect(page).toEqual([
      {
        _id: messageId,
        _creationTime: expect.any(Number),
        taskId,
        author: { kind: "member", userId: userIdOf(t, "Ada"), name: "Ada" },
        content: "Hello squad",
        mentions: [],
      },
    ]);
    const activity = await t.run(async (ctx) => (await ctx.db.query("activities").collect()).find((a) => a.type === "message_posted"));
    expect(activity).toMatchObject({ taskId, data: { title: "Launch plan", preview: "Hello squad" } });
  });

  test("a long message's activity preview is cut at 140 characters", async () => {
    const { t, admin, taskId } = await thread();
    await admin.mutation(api.messages.create, { taskId, content: "y".repeat(500) });
    const activity = await t.run(async (ctx) => (await ctx.db.query("activities").collect()).find((a) => a.type === "message_posted"));
    expect(activity!.data.preview).toBe(`${"y".repeat(139)}…`);
  });

  test("resolves @mentions of agents (multi-word, any case) and members, and leaves unknown names as text", async () => {
    const { t, admin, taskId } = await thread();
    expect(await mentionsOf(admin, taskId, "@dev bot and @WRITER, please sync with @Grace")).toEqual([
      { kind: "agent", key: AGENTS.devBot, name: "Dev Bot" },
      { kind: "agent", key: AGENTS.writer, name: "Writer" },
      { kind: "member", key: memberKeyOf(t, "Grace"), name: "Grace" },
    ]);
    const content = "@Nobody can help, not even @Writers";
    await admin.mutation(api.messages.create, { taskId, content });
    const { page } = await admin.query(api.messages.list, { taskId, paginationOpts: { numItems: 1, cursor: null } });
    expect(page[0]).toMatchObject({ content, mentions: [] });
  });

  test("no mentions inside inline code, fenced code blocks or e-mail addresses", async () => {
    const { t, admin, taskId } = await thread();
    expect(await mentionsOf(admin, taskId, "Run `@Jarvis deploy` then mail ops@writer.com")).toEqual([]);
    expect(await mentionsOf(admin, taskId, "```\n@Dev Bot fix this\n```\n~~~\n@Archie\n~~~")).toEqual([]);
    await runScheduled(t);
    expect(await allTriggers(t)).toEqual([]);
    expect(await t.run(async (ctx) => await ctx.db.query("notifications").collect())).toEqual([]);
  });

  test("the longest matching name wins", async () => {
    const { admin, departmentId, taskId } = await thread();
    await admin.mutation(api.agents.create, {
      departmentId,
      name: "Dev",
      role: "Intern",
      kind: "coder",
      systemPrompt: "",
      isSquadLead: false,
      allowedTools: [],
    });
    expect(await mentionsOf(admin, taskId, "@Dev Bot")).toEqual([{ kind: "agent", key: AGENTS.devBot, name: "Dev Bot" }]);
    expect(await mentionsOf(admin, taskId, "@Dev, then @dev bot")).toEqual([
      { kind: "agent", key: "agent:dev:product", name: "Dev" },
      { kind: "agent", key: AGENTS.devBot, name: "Dev Bot" },
    ]);
  });

  test("each mentioned agent or member is notified once per message; agents are triggered once; the author never", async () => {
    const { t, admin, grace, taskId, departmentId } = await thread();
    const messageId = await admin.mutation(api.messages.create, {
      taskId,
      content: "@Dev Bot look. @dev bot, really. @Grace and @Ada (that's me) too",
    });
    expect(await notificationsFor(t, AGENTS.devBot)).toMatchObject([{ kind: "mention", taskId, messageId, departmentId }]);
    expect(await notificationsFor(t, memberKeyOf(t, "Grace"))).toMatchObject([{ kind: "mention", taskId, messageId }]);
    expect(await notificationsFor(t, memberKeyOf(t, "Ada"))).toEqual([]);
    await runScheduled(t);
    const triggers = await allTriggers(t);
    expect(triggers).toMatchObject([{ agentSessionKey: AGENTS.devBot, kind: "mentioned", taskId, messageId, status: "consumed", note: NO_MODEL_NOTE }]);
    expect(triggers[0].runId).toBeUndefined();

    // A member's own notifications show up for them only.
    expect((await grace.query(api.notifications.listMine, { departmentId })).unreadMentionTaskIds).toEqual([taskId]);
    expect((await admin.query(api.notifications.listMine, { departmentId })).unreadCount).toBe(0);
  });

  test("bad input: empty and oversized messages", async () => {
    const { admin, taskId } = await thread();
    await expectError(admin.mutation(api.messages.create, { taskId, content: " \n " }), "INVALID_ARGUMENT", "A message must not be empty.");
    await expectError(
      admin.mutation(api.messages.create, { taskId, content: "m".repeat(10_001) }),
      "INVALID_ARGUMENT",
      "A message is 10001 characters; the limit is 10000.",
    );
    await admin.mutation(api.messages.create, { taskId, content: "m".repeat(10_000) });
    const { page } = await admin.query(api.messages.list, { taskId, paginationOpts: { numItems: 10, cursor: null } });
    expect(page).toHaveLength(1);
  });

  test("anonymous callers, other departments and unknown tasks are refused", async () => {
    const { t, admin, other, taskId, departmentId } = await thread();
    const post = (caller: Actor, id: Id<"tasks">) => caller.mutation(api.messages.create, { taskId: id, content: "hi" });
    const { gone } = await expectTaskRefusals({ t, departmentId, admin, other }, taskId, post, "Task not found.");
    await expectError(post(t, gone), "UNAUTHENTICATED");
    expect(await t.run(async (ctx) => await ctx.db.query("messages").collect())).toEqual([]);
  });
});

describe("postToThread (reactions/threadPost, the brain's path)", () => {
  test("an agent author is not notified of its own mention but others are", async () => {
    const { t, taskId } = await thread();
    await t.run(async (ctx) => {
      const task = (await ctx.db.get("tasks", taskId))!;
      await postToThread(ctx, { kind: "agent", sessionKey: AGENTS.jarvis, name: "Jarvis" }, task, "@Jarvis here; @Writer please draft");
    });
    expect(await notificationsFor(t, AGENTS.jarvis)).toEqual([]);
    expect(await notificationsFor(t, AGENTS.writer)).toHaveLength(1);
    await runScheduled(t);
    // Recorded (Writer was mentioned), but an agent's mention starts no run.
    expect((await allTriggers(t)).map((r) => [r.agentSessionKey, r.status, r.runId ?? null, r.note])).toEqual([
      [AGENTS.writer, "consumed", null, "mentioned by an agent: agents' mentions notify but start no run"],
    ]);
  });
});

describe("postToThread: an agent's mention is recorded as it is posted", () => {
  test("in the post's own transaction, consumed with its note, with no job scheduled for it; a person's mention still goes through its job", async () => {
    const { t, taskId } = await thread();
    await t.run(async (ctx) => {
      const task = (await ctx.db.get("tasks", taskId))!;
      await postToThread(ctx, { kind: "agent", sessionKey: AGENTS.jarvis, name: "Jarvis" }, task, "@Writer please draft");
      await postToThread(ctx, { kind: "system" }, task, "@Dev Bot the build is red");
    });
    // Before any scheduled job runs: both rows are there, consumed, and nothing waits to record them.
    expect((await allTriggers(t)).map((r) => [r.agentSessionKey, r.kind, r.status, r.runId ?? null, r.note])).toEqual([
      [AGENTS.writer, "mentioned", "consumed", null, "mentioned by an agent: agents' mentions notify but start no run"],
      [AGENTS.devBot, "mentioned", "consumed", null, "mentioned by an agent: agents' mentions notify but start no run"],
    ]);
    const jobs = await t.run(async (ctx) => await ctx.db.system.query("_scheduled_functions").collect());
    expect(jobs.filter((job) => job.name.includes("agentMentioned"))).toEqual([]);
    // A person's mention is a hand-off to its own transaction.
    const admin = await t.run(async (ctx) => (await ctx.db.query("members").first())!);
    await t.run(async (ctx) => {
      const task = (await ctx.db.get("tasks", taskId))!;
      await postToThread(ctx, { kind: "member", userId: admin.userId, name: "Ada" }, task, "@Writer one more thing");
    });
    const after = await t.run(async (ctx) => await ctx.db.system.query("_scheduled_functions").collect());
    expect(after.filter((job) => job.name.includes("agentMentioned"))).toHaveLength(1);
  });
});

describe("messages.list", () => {
  test("newest first, a page at a time, only this task's thread", async () => {
    const { admin, grace, departmentId, taskId } = await thread();
    const otherTask = await createTask(admin, departmentId, { title: "Elsewhere" });
    await admin.mutation(api.messages.create, { taskId: otherTask, content: "not here" });
    for (let i = 1; i <= 5; i++) {
      await (i % 2 === 0 ? grace : admin).mutation(api.messages.create, { taskId, content: `m${i}` });
    }
    const first = await grace.query(api.messages.list, { taskId, paginationOpts: { numItems: 2, cursor: null } });
    expect(first.page.map((m) => m.content)).toEqual(["m5", "m4"]);
    expect(first.page[1].author).toMatchObject({ kind: "member", name: "Grace" });
    expect(first.isDone).toBe(false);
    const second = await grace.query(api.messages.list, { taskId, paginationOpts: { numItems: 2, cursor: first.continueCursor } });
    expect(second.page.map((m) => m.content)).toEqual(["m3", "m2"]);
    const third = await grace.query(api.messages.list, { taskId, paginationOpts: { numItems: 2, cursor: second.continueCursor } });
    expect(third.page.map((m) => m.content)).toEqual(["m1"]);
    expect(third.isDone).toBe(true);
    expect(Object.keys(first.page[0]).sort()).toEqual(["_creationTime", "_id", "author", "content", "mentions", "taskId"]);
  });

  test("page sizes outside 1..100 are refused; 100 is fine", async () => {
    const { admin, taskId } = await thread();
    for (const numItems of [101, 0, 2.5]) {
      await expectError(
        admin.query(api.messages.list, { taskId, paginationOpts: { numItems, cursor: null } }),
        "INVALID_ARGUMENT",
        "Page size must be between 1 and 100.",
      );
    }
    const page = await admin.query(api.messages.list, { taskId, paginationOpts: { numItems: 100, cursor: null } });
    expect(page.page).toEqual([]);
  });

  test("anonymous callers, other departments and unknown tasks are refused", async () => {
    const { t, admin, other, taskId, departmentId } = await thread();
    const paginationOpts = { numItems: 10, cursor: null };
    await expectTaskRefusals({ t, departmentId, admin, other }, taskId, (caller, id) => caller.query(api.messages.list, { taskId: id, paginationOpts }));
  });
});

describe("messages.edit and messages.remove", () => {
  async function activity(t: Awaited<ReturnType<typeof thread>>["t"], type: string) {
    return await t.run(async (ctx) => (await ctx.db.query("activities").collect()).filter((a) => a.type === type).map((a) => a.data));
  }
  async function newest(actor: Actor, taskId: Id<"tasks">) {
    return (await actor.query(api.messages.list, { taskId, paginationOpts: { numItems: 1, cursor: null } })).page[0];
  }

  test("the author edits a message: the new text, mentions resolved again, marked edited, in the feed, and what agents read next", async () => {
    const { t, grace, taskId } = await thread();
    const messageId = await grace.mutation(api.messages.create, { taskId, content: "Ship it on Firday" });
    await grace.mutation(api.messages.edit, { taskId, messageId, content: "Ship it on Friday, @Writer" });
    const edited = await newest(grace, taskId);
    expect(edited).toMatchObject({ content: "Ship it on Friday, @Writer", mentions: [{ kind: "agent", key: AGENTS.writer, name: "Writer" }] });
    expect(edited.editedAt).toBeTypeOf("number");
    expect(await activity(t, "message_edited")).toEqual([{ title: "Launch plan", preview: "Ship it on Friday, @Writer" }]);
    // The feed's entry for the post shows the text as it is now, not the typo.
    expect(await activity(t, "message_posted")).toEqual([{ title: "Launch plan", preview: "Ship it on Friday, @Writer", edited: true }]);
    const runId = await insertRun(t, AGENTS.writer, taskId, "queued");
    const { context } = await roundInputs(t, runId);
    expect(context.thread.map((m) => m.content)).toEqual(["Ship it on Friday, @Writer"]);
  });

  test("only the author edits; secrets are redacted on edit as on posting; deleted messages stay deleted", async () => {
    const { admin, grace, taskId } = await thread();
    const messageId = await grace.mutation(api.messages.create, { taskId, content: "draft" });
    await expectError(admin.mutation(api.messages.edit, { taskId, messageId, content: "not yours" }), "FORBIDDEN", /author/);
    await grace.mutation(api.messages.edit, { taskId, messageId, content: "key AKIAIOSFODNN7EXAMPLF here" });
    expect((await newest(grace, taskId)).content).not.toContain("AKIAIOSFODNN7EXAMPLF");
    await grace.mutation(api.messages.remove, { taskId, messageId });
    await expectError(grace.mutation(api.messages.edit, { taskId, messageId, content: "back" }), "FORBIDDEN", /deleted/);
    await expectError(grace.mutation(api.messages.remove, { taskId, messageId }), "FORBIDDEN", /already deleted/);
  });

  test("the author or an admin deletes a message: its text is gone for people and agents, and the feed says who deleted whose", async () => {
    const { t, admin, grace, taskId } = await thread();
    const adasId = await admin.mutation(api.messages.create, { taskId, content: "Ada's note" });
    const gracesId = await grace.mutation(api.messages.create, { taskId, content: "Grace's typo @Writer" });
    await expectError(grace.mutation(api.messages.remove, { taskId, messageId: adasId }), "FORBIDDEN", /owner or admin/);
    await admin.mutation(api.messages.remove, { taskId, messageId: gracesId });
    const gone = await newest(grace, taskId);
    expect(gone).toMatchObject({ _id: gracesId, content: "", mentions: [] });
    expect(gone.deletedAt).toBeTypeOf("number");
    expect(await activity(t, "message_deleted")).toEqual([{ title: "Launch plan", author: "Grace" }]);
    // Its post's feed entry no longer quotes it; Ada's still does.
    expect(await activity(t, "message_posted")).toEqual([
      { title: "Launch plan", preview: "Ada's note" },
      { title: "Launch plan", preview: null, deleted: true },
    ]);
    const runId = await insertRun(t, AGENTS.writer, taskId, "queued");
    expect((await roundInputs(t, runId)).context.thread.map((m) => m.content)).toEqual(["Ada's note"]);
  });

  test("viewers, other tasks' messages, other departments and anonymous callers are refused", async () => {
    const squad = await thread();
    const { t, departmentId, admin, taskId } = squad;
    const vera = await addToDepartment(t, departmentId, "Vera", "viewer");
    const messageId = await admin.mutation(api.messages.create, { taskId, content: "mine" });
    await expectError(vera.mutation(api.messages.remove, { taskId, messageId }), "FORBIDDEN");
    const elsewhere = await createTask(admin, departmentId, { title: "Elsewhere" });
    await expectError(admin.mutation(api.messages.edit, { taskId: elsewhere, messageId, content: "x" }), "NOT_FOUND");
    await expectError(admin.mutation(api.messages.remove, { taskId: elsewhere, messageId }), "NOT_FOUND");
    await expectTaskRefusals(squad, taskId, (caller, id) => caller.mutation(api.messages.edit, { taskId: id, messageId, content: "x" }));
    await expectTaskRefusals(squad, taskId, (caller, id) => caller.mutation(api.messages.remove, { taskId: id, messageId }));
    expect((await newest(admin, taskId)).content).toBe("mine");
  });
});
