/**
 * The channel composer's backend: slash commands typed in a channel or DM
 * (the same registry, validation and permissions as a task's thread; the
 * task-only ones refused), `#` task links (the department's tasks only,
 * named by title for agents), and the tasks the completion offers. Written
 * from an attacker's side: another department's channel or task, a private
 * channel of others, a viewer.
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { bodyWithTaskLinks } from "../../convex/records/inbox";
import { AGENTS, createOtherTask, createTask, demoSquad, expectError, insertRun, memberKeyOf, roundInputs, withClosedModel, type Actor, type TestConvex } from "./setup";

withClosedModel();

async function squad() {
  const s = await demoSquad({ grace: true, vera: true, other: true });
  const channelId = await s.admin.mutation(api.channels.create, { departmentId: s.departmentId, name: "launch", visibility: "project" });
  const taskId = await createTask(s.admin, s.departmentId, { title: "Fix the login page" });
  return { ...s, channelId, taskId };
}

const send = (actor: Actor, departmentId: Id<"departments">, channelId: Id<"channels">, text: string) =>
  actor.mutation(api.slashCommands.resolveSlashCommand, { departmentId, channelId, text });

async function channelBodies(t: TestConvex, channelId: Id<"channels">) {
  return await t.run(async (ctx) => (await ctx.db.query("channelMessages").collect()).filter((m) => m.channelId === channelId).map((m) => m.body));
}

describe("slash commands in a channel", () => {
  test("the list says where each command runs: task-only ones are not offered in a channel", async () => {
    const { departmentId, vera } = await squad();
    const { commands } = await vera.query(api.slashCommands.getSlashCommands, { departmentId });
    const places = new Map(commands.map((c) => [c.name, c.places]));
    expect(places.get("status")).toEqual(["task"]);
    expect(places.get("assign")).toEqual(["task"]);
    expect(places.get("stop")).toEqual(["task"]);
    expect(places.get("help")).toEqual(["task", "chat", "channel"]);
    expect(places.get("delegate")).toContain("channel");
    expect(places.get("review")).toContain("channel");
  });

  test("a task-only command is refused with where it works, and changes nothing but its failure record", async () => {
    const { t, departmentId, grace, channelId } = await squad();
    const preview = await grace.query(api.slashCommands.previewSlashCommand, { departmentId, channelId, text: "/status done" });
    expect(preview).toEqual({ ok: false, error: "/status works in a task's thread." });
    expect(await send(grace, departmentId, channelId, "/status done")).toEqual({ ok: false, error: "/status works in a task's thread." });
    expect(await send(grace, departmentId, channelId, "/new")).toEqual({ ok: false, error: "/new works in a task's thread or #maestro." });
    expect(await channelBodies(t, channelId)).toEqual([]);
    const failures = await t.run(async (ctx) => (await ctx.db.query("commandEvents").collect()).map((e) => e.payload.type));
    expect(failures).toEqual(["slash_command_failed", "slash_command_failed"]);
  });

  test("/help answers, a prompt command posts into the channel as the member, /delegate creates the task", async () => {
    const { t, departmentId, grace, channelId } = await squad();
    expect(await send(grace, departmentId, channelId, "/help")).toMatchObject({ ok: true, message: expect.stringContaining("/delegate") });
    const preview = await grace.query(api.slashCommands.previewSlashCommand, { departmentId, channelId, text: "/review the error paths" });
    expect(preview).toMatchObject({ ok: true, kind: "prompt", target: "#launch" });
    expect(await send(grace, departmentId, channelId, "/review the error paths")).toEqual({ ok: true, message: "Posted in #launch." });
    const posted = await t.run(async (ctx) => (await ctx.db.query("channelMessages").collect()).find((m) => m.channelId === channelId)!);
    expect(posted.body).toBe(preview.ok ? preview.text : "");
    expect(posted.from).toMatchObject({ kind: "member", name: "Grace" });
    const delegated = await send(grace, departmentId, channelId, "/delegate Writer draft the launch notes");
    expect(delegated).toMatchObject({ ok: true, message: "Delegated “draft the launch notes” to Writer." });
    const task = await t.run(async (ctx) => (delegated.ok && delegated.taskId ? await ctx.db.get("tasks", delegated.taskId as Id<"tasks">) : null));
    expect(task).toMatchObject({ departmentId, assigneeSessionKeys: [AGENTS.writer] });
  });

  test("/delegate in a channel makes a task followed there: its delegation and status updates post back into the channel; in a DM none is", async () => {
    const { t, departmentId, admin, grace, channelId } = await squad();
    const preview = await grace.query(api.slashCommands.previewSlashCommand, { departmentId, channelId, text: "/delegate Writer draft the launch notes" });
    expect(preview).toMatchObject({ ok: true, text: expect.stringContaining("followed in #launch") });
    const delegated = await send(grace, departmentId, channelId, "/delegate Writer draft the launch notes");
    const taskId = (delegated.ok ? delegated.taskId : undefined) as Id<"tasks">;
    expect((await grace.query(api.tasks.get, { taskId })).channelId).toBe(channelId);
    await admin.mutation(api.tasks.setStatus, { taskId, status: "in_progress" });
    expect(await channelBodies(t, channelId)).toEqual([
      "Grace delegated “draft the launch notes” to Writer.",
      "Delegated task “draft the launch notes” (assigned to Writer) has started.",
    ]);

    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [memberKeyOf(t, "Ada")] });
    const inDm = await send(grace, departmentId, dm, "/delegate Writer check the numbers");
    const dmTask = (inDm.ok ? inDm.taskId : undefined) as Id<"tasks">;
    expect((await grace.query(api.tasks.get, { taskId: dmTask })).channelId).toBeUndefined();
    expect(await channelBodies(t, dm)).toEqual([]);
  });

  test("refused: a viewer, another department's channel, a private channel of others, a task and a channel at once", async () => {
    const { t, departmentId, admin, grace, vera, other, channelId, taskId } = await squad();
    await expectError(send(vera, departmentId, channelId, "/review it"), "FORBIDDEN");
    const theirs = await other.member.mutation(api.channels.create, { departmentId: other.departmentId, name: "secret", visibility: "project" });
    await expectError(send(grace, departmentId, theirs, "/review it"), "NOT_FOUND");
    await expectError(grace.query(api.slashCommands.previewSlashCommand, { departmentId, channelId: theirs, text: "/help" }), "NOT_FOUND");
    // Their own department named with our channel: still not theirs.
    await expectError(send(other.member, other.departmentId, channelId, "/review it"), "NOT_FOUND");
    const leads = await admin.mutation(api.channels.create, { departmentId, name: "leads", visibility: "private" });
    await expectError(send(grace, departmentId, leads, "/review it"), "FORBIDDEN", /private/);
    await expectError(grace.mutation(api.slashCommands.resolveSlashCommand, { departmentId, channelId, taskId, text: "/help" }), "INVALID_ARGUMENT");
    expect(await channelBodies(t, theirs)).toEqual([]);
    expect(await channelBodies(t, leads)).toEqual([]);
  });

  test("an archived channel takes no prompt command", async () => {
    const { t, departmentId, admin, channelId } = await squad();
    await admin.mutation(api.channels.setArchived, { channelId, archived: true });
    await expectError(send(admin, departmentId, channelId, "/review it"), "FORBIDDEN", /archived/);
    expect(await channelBodies(t, channelId)).toEqual([]);
  });
});

describe("task links", () => {
  test("a message links a task of its department; another department's task is refused and nothing is posted", async () => {
    const { t, grace, other, channelId, taskId } = await squad();
    const foreign = await createOtherTask(t, other.departmentId);
    const id = await grace.mutation(api.channelMessages.post, { channelId, body: "See #Fix the login page", artifacts: [{ kind: "task", taskId }] });
    await expectError(grace.mutation(api.channelMessages.post, { channelId, body: "see theirs", artifacts: [{ kind: "task", taskId: foreign }] }), "NOT_FOUND", /not in this department/);
    await expectError(grace.mutation(api.channelMessages.reply, { channelId, messageId: id, body: "and theirs", artifacts: [{ kind: "task", taskId: foreign }] }), "NOT_FOUND");
    expect(await channelBodies(t, channelId)).toEqual(["See #Fix the login page"]);
  });

  test("a viewer cannot post a link", async () => {
    const { vera, channelId, taskId } = await squad();
    await expectError(vera.mutation(api.channelMessages.post, { channelId, body: "see", artifacts: [{ kind: "task", taskId }] }), "FORBIDDEN");
  });

  test("agents read the link by title and id; a task of another department is never titled", async () => {
    const { t, grace, other, channelId, taskId } = await squad();
    const id = await grace.mutation(api.channelMessages.post, { channelId, body: "Please look", artifacts: [{ kind: "task", taskId }] });
    const foreign = await createOtherTask(t, other.departmentId);
    const readable = await t.run(async (ctx) => {
      const message = (await ctx.db.get("channelMessages", id))!;
      // A row that somehow names another department's task (written around the checks) still does not leak its title.
      return [await bodyWithTaskLinks(ctx, message), await bodyWithTaskLinks(ctx, { ...message, artifacts: [{ kind: "task", taskId: foreign }] })];
    });
    expect(readable[0]).toBe(`Please look\n[linked task: “Fix the login page” (task id ${taskId})]`);
    expect(readable[1]).not.toContain("Their task");
    expect(readable[1]).toContain("not in this department");
  });

  test("the # completion lists this department's tasks by title or id, never another's", async () => {
    const { t, departmentId, vera, other, taskId } = await squad();
    const foreign = await createOtherTask(t, other.departmentId);
    expect((await vera.query(api.tasks.linkable, { departmentId, text: "login" })).map((task) => task._id)).toEqual([taskId]);
    expect((await vera.query(api.tasks.linkable, { departmentId, text: taskId })).map((task) => task.title)).toEqual(["Fix the login page"]);
    expect(await vera.query(api.tasks.linkable, { departmentId, text: foreign })).toEqual([]);
    expect(await vera.query(api.tasks.linkable, { departmentId, text: "Their task" })).toEqual([]);
    expect((await vera.query(api.tasks.linkable, { departmentId, text: "" })).length).toBeGreaterThan(0);
    await expectError(other.member.query(api.tasks.linkable, { departmentId, text: "" }), "FORBIDDEN");
  });

  test("chip titles: the department's tasks among the ids; another department's is left out", async () => {
    const { t, departmentId, vera, other, taskId } = await squad();
    const foreign = await createOtherTask(t, other.departmentId);
    expect(await vera.query(api.tasks.linked, { departmentId, taskIds: [taskId, foreign] })).toEqual([{ _id: taskId, title: "Fix the login page", status: "inbox" }]);
  });
});

describe("task links in a task's thread", () => {
  test("a thread message links a task of the department, listed with it; another department's is refused and nothing is posted", async () => {
    const { t, departmentId, grace, other, taskId } = await squad();
    const target = await createTask(grace, departmentId, { title: "Launch copy" });
    const foreign = await createOtherTask(t, other.departmentId);
    await grace.mutation(api.messages.create, { taskId, content: "Depends on #Launch copy", taskLinks: [target, target] });
    await expectError(grace.mutation(api.messages.create, { taskId, content: "and theirs", taskLinks: [foreign] }), "NOT_FOUND", /not in this department/);
    const page = (await grace.query(api.messages.list, { taskId, paginationOpts: { numItems: 10, cursor: null } })).page;
    expect(page.map((m) => [m.content, m.taskLinks])).toEqual([["Depends on #Launch copy", [target]]]);
  });

  test("a viewer cannot post one; another department's member cannot post into this task", async () => {
    const { vera, other, taskId } = await squad();
    await expectError(vera.mutation(api.messages.create, { taskId, content: "see", taskLinks: [taskId] }), "FORBIDDEN");
    await expectError(other.member.mutation(api.messages.create, { taskId, content: "see", taskLinks: [taskId] }), "FORBIDDEN");
  });

  test("the agent on the task reads the link by title in its thread", async () => {
    const { t, departmentId, grace, taskId } = await squad();
    const target = await createTask(grace, departmentId, { title: "Launch copy" });
    await grace.mutation(api.messages.create, { taskId, content: "Depends on this", taskLinks: [target] });
    const runId = await insertRun(t, AGENTS.devBot, taskId);
    const thread = (await roundInputs(t, runId)).context?.thread ?? [];
    expect(thread.map((m) => m.content)).toContain(`Depends on this\n[linked task: “Launch copy” (task id ${target})]`);
  });
});

describe("the command history of commands typed in a channel", () => {
  const first = { numItems: 20, cursor: null };

  test("names the channel, not #maestro; #maestro's scope leaves it out; filtering by the channel lists only its commands", async () => {
    const { t, departmentId, admin, grace, vera, channelId } = await squad();
    await send(grace, departmentId, channelId, "/help");
    await send(grace, departmentId, channelId, "/status done");
    await admin.mutation(api.slashCommands.resolveSlashCommand, { departmentId, text: "/help" });
    const stored = await t.run(async (ctx) => (await ctx.db.query("commandEvents").collect()).map((e) => [e.payload.invokedAs, e.channelId ?? null]));
    expect(stored).toEqual([["/help", channelId], ["/status done", channelId], ["/help", null]]);

    const history = (args: { channelId?: Id<"channels">; scope?: "chat" | "department" }) => vera.query(api.slashCommands.listCommandEvents, { departmentId, ...args, paginationOpts: first });
    const everywhere = await history({ scope: "department" });
    expect(everywhere.page.map((r) => [r.payload.invokedAs, r.channelName ?? "#maestro", r.channelId])).toEqual([
      ["/help", "#maestro", undefined],
      ["/status done", "#launch", channelId],
      ["/help", "#launch", channelId],
    ]);
    expect((await history({ scope: "chat" })).page.map((r) => r.payload.invokedAs)).toEqual(["/help"]);
    expect((await history({ channelId })).page.map((r) => [r.payload.invokedAs, r.channelName])).toEqual([
      ["/status done", "#launch"],
      ["/help", "#launch"],
    ]);
  });

  test("a private channel's commands are hidden from those who cannot read it, and filtering by it is refused; another department's channel too", async () => {
    const { t, departmentId, admin, grace, other } = await squad();
    const secret = await admin.mutation(api.channels.create, { departmentId, name: "secret", visibility: "private" });
    await admin.mutation(api.slashCommands.resolveSlashCommand, { departmentId, channelId: secret, text: "/help password=hunter2" });
    const list = (actor: Actor, args: Record<string, unknown>) => actor.query(api.slashCommands.listCommandEvents, { departmentId, ...args, paginationOpts: first });
    expect((await list(admin, { scope: "department" })).page.map((r) => r.channelName)).toEqual(["#secret"]);
    expect((await list(grace, { scope: "department" })).page).toEqual([]);
    await expectError(list(grace, { channelId: secret }), "FORBIDDEN");
    const theirs = await other!.member.mutation(api.channels.create, { departmentId: other!.departmentId, name: "theirs", visibility: "project" });
    await expectError(list(admin, { channelId: theirs }), "NOT_FOUND");
    await expectError(other!.member.query(api.slashCommands.listCommandEvents, { departmentId, channelId: secret, paginationOpts: first }), "FORBIDDEN");
    const taskId = await createTask(admin, departmentId, { title: "Both" });
    await expectError(list(admin, { channelId: secret, taskId }), "INVALID_ARGUMENT", /not both/);
    expect(t).toBeDefined();
  });
});
