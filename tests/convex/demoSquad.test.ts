/**
 * The demo squad's board (issue 42): a split parent follows its subtasks
 * (reactions/taskChange reflectSubtasks, lib/delegation
 * parentStatusFromSubtasks), a split writes one line per delegated card in
 * the parent's thread (reactions/a2a), and the inbox task that holds a DM's
 * or a #maestro mention's run is no card (records/tasks `inboxOf`).
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { assemblePrompt, BASE_MIDDLEWARES, injectionMiddleware } from "../../convex/brain/prompt";
import { brainConfig } from "../../convex/lib/brainConfig";
import { parentStatusFromSubtasks } from "../../convex/lib/delegation";
import { parseToolCalls } from "../../convex/lib/toolCalls";
import { toolFunctions } from "../../convex/tools/registry";
import { textConversation } from "../../tools/demo-model/native";
import { demoReply } from "../../tools/demo-model/rules";
import { AGENTS, createTask, demoSquad, insertRun, roundInputs, startRun, taskRow, type TestConvex, withClosedModel } from "./setup";

/** Jarvis splits `parentTaskId`: one delegated card per title, to the given agent. */
async function jarvisSplits(t: TestConvex, departmentId: Id<"departments">, parentTaskId: Id<"tasks">, parts: Array<[string, string]>): Promise<Array<Id<"tasks">>> {
  const ids = [];
  for (const [title, assignee] of parts) {
    const made = await t.mutation(internal.tools.delegation.createDelegatedTask, {
      departmentId,
      delegatorSessionKey: AGENTS.jarvis,
      title,
      description: `Part of the launch page: ${title.toLowerCase()}.`,
      assigneeSessionKeys: [assignee],
      instruction: `Please take the ${title.toLowerCase()}.`,
      parentTaskId,
    });
    if (!made.ok) throw new Error(`the delegation of “${title}” was refused`);
    ids.push(made.taskId as Id<"tasks">);
  }
  return ids;
}

async function taskOf(t: TestConvex, taskId: Id<"tasks">) {
  return (await t.run(async (ctx) => await ctx.db.get("tasks", taskId)))!;
}

/** The specialist working the card moves it, as update_task_status does from its run. */
async function agentMoves(t: TestConvex, sessionKey: string, taskId: Id<"tasks">, status: "in_progress" | "review" | "done" | "blocked") {
  const runId = await insertRun(t, sessionKey, taskId);
  await t.mutation(internal.tools.thread.updateTaskStatus, { runId, status });
}

describe("parentStatusFromSubtasks", () => {
  test("In progress while any subtask is open, Review once all are in Review or Done; Done and Blocked stay; no subtasks, no move", () => {
    expect(parentStatusFromSubtasks("inbox", ["assigned", "assigned"])).toBe("in_progress");
    expect(parentStatusFromSubtasks("assigned", ["in_progress"])).toBe("in_progress");
    expect(parentStatusFromSubtasks("in_progress", ["review", "in_progress"])).toBeNull();
    expect(parentStatusFromSubtasks("in_progress", ["review", "done"])).toBe("review");
    expect(parentStatusFromSubtasks("inbox", ["done"])).toBe("review");
    // A new subtask opened under a parent in review: back to in progress.
    expect(parentStatusFromSubtasks("review", ["review", "assigned"])).toBe("in_progress");
    expect(parentStatusFromSubtasks("done", ["assigned"])).toBeNull();
    expect(parentStatusFromSubtasks("blocked", ["review"])).toBeNull();
    expect(parentStatusFromSubtasks("inbox", [])).toBeNull();
  });
});

describe("a split parent follows its subtasks", () => {
  test("Jarvis holds the parent he split and it is In progress while a part is open, then Review once both parts are handed back", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const parentId = await createTask(admin, departmentId, { title: "Landing page" });
    expect(await taskOf(t, parentId)).toMatchObject({ status: "inbox", assigneeSessionKeys: [] });

    const [form, copy] = await jarvisSplits(t, departmentId, parentId, [
      ["Signup form", AGENTS.devBot],
      ["Hero copy", AGENTS.writer],
    ]);
    expect(await taskOf(t, parentId)).toMatchObject({ status: "in_progress", assigneeSessionKeys: [AGENTS.jarvis] });
    // Held quietly: Jarvis is already working on it, so no assignment run or trigger is queued for him.
    const triggers = await t.run(async (ctx) => (await ctx.db.query("agentTriggers").collect()).filter((x) => x.agentSessionKey === AGENTS.jarvis && x.taskId === parentId));
    expect(triggers).toEqual([]);

    await agentMoves(t, AGENTS.devBot, form, "in_progress");
    await agentMoves(t, AGENTS.devBot, form, "review");
    expect((await taskOf(t, parentId)).status).toBe("in_progress");
    await agentMoves(t, AGENTS.writer, copy, "in_progress");
    await agentMoves(t, AGENTS.writer, copy, "review");
    expect((await taskOf(t, parentId)).status).toBe("review");
    const board = await admin.query(api.tasks.list, { departmentId, statuses: ["review"] });
    expect(board[0].tasks.map((card) => card.title)).toEqual(expect.arrayContaining(["Hero copy", "Landing page", "Signup form"]));

    // Sent back for more: the parent is in progress again; a person's Done on the parent stands.
    await admin.mutation(api.tasks.setStatus, { taskId: copy, status: "in_progress" });
    expect((await taskOf(t, parentId)).status).toBe("in_progress");
    await admin.mutation(api.tasks.setStatus, { taskId: parentId, status: "done" });
    await admin.mutation(api.tasks.setStatus, { taskId: copy, status: "review" });
    expect((await taskOf(t, parentId)).status).toBe("done");
  });

  test("a parent someone already holds keeps its assignee, and still moves to In progress", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const held = await createTask(admin, departmentId, { title: "Pricing", assigneeSessionKeys: [AGENTS.archie] });
    await jarvisSplits(t, departmentId, held, [["Pricing copy", AGENTS.writer]]);
    expect(await taskOf(t, held)).toMatchObject({ status: "in_progress", assigneeSessionKeys: [AGENTS.archie] });
  });
});

describe("a split's thread entries", () => {
  test("one line per delegated card in the parent's thread, rewritten in place as the card moves (it was a new line per move)", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const parentId = await createTask(admin, departmentId, { title: "Landing page" });
    const [form, copy] = await jarvisSplits(t, departmentId, parentId, [
      ["Signup form", AGENTS.devBot],
      ["Hero copy", AGENTS.writer],
    ]);
    for (const [agent, task] of [
      [AGENTS.devBot, form],
      [AGENTS.writer, copy],
    ] as const) {
      await agentMoves(t, agent, task, "in_progress");
      await agentMoves(t, agent, task, "review");
    }
    const thread = await admin.query(api.messages.list, { taskId: parentId, paginationOpts: { numItems: 50, cursor: null } });
    const lines = thread.page.map((m) => m.content).reverse();
    expect(lines).toEqual(["Jarvis delegated “Signup form” to Dev Bot: ready for review.", "Jarvis delegated “Hero copy” to Writer: ready for review."]);
    expect(thread.page.map((m) => m.correlationId).reverse()).toEqual([`a2a:${form}`, `a2a:${copy}`]);

    // The lead is still woken by each result, on the parent, with where the card stands.
    const woken = await t.run(async (ctx) => (await ctx.db.query("runs").collect()).filter((r) => r.agentSessionKey === AGENTS.jarvis && r.trigger.kind === "delegation_result"));
    expect(woken.map((r) => r.taskId)).toEqual(woken.map(() => parentId));
  });
});

describe("an agent's inbox task is no card", () => {
  withClosedModel();

  test("a DM and a #maestro mention run on the agent's inbox task, which the board, its counts, search and # links never show", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    await createTask(admin, departmentId, { title: "Visible card" });
    const inboxCount = async () => {
      const column = await admin.query(api.tasks.listColumn, { departmentId, status: "inbox", limit: 1 });
      return column.count ?? column.tasks.length;
    };
    const before = await inboxCount();
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Can you write a tagline for the launch?" });
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Dev Bot what is the status of the signup form?" });

    const runs = await t.run(async (ctx) => await ctx.db.query("runs").collect());
    const inboxTasks = await t.run(async (ctx) => (await ctx.db.query("tasks").collect()).filter((task) => task.tags.includes("inbox")));
    expect(inboxTasks.map((task) => [task.title, task.inboxOf]).sort()).toEqual([
      ["Inbox: Dev Bot", AGENTS.devBot],
      ["Inbox: Writer", AGENTS.writer],
    ]);
    expect(new Set(runs.map((r) => r.taskId))).toEqual(new Set(inboxTasks.map((task) => task._id)));

    const board = await admin.query(api.tasks.list, { departmentId });
    const titles = board.flatMap((column) => column.tasks.map((card) => card.title));
    expect(titles).toContain("Visible card");
    expect(titles.filter((title) => title.startsWith("Inbox: "))).toEqual([]);
    expect(await inboxCount()).toBe(before);
    const filtered = await admin.query(api.tasks.list, { departmentId, assignee: AGENTS.writer });
    expect(filtered.flatMap((column) => column.tasks.map((card) => card.title)).filter((title) => title.startsWith("Inbox: "))).toEqual([]);
    expect((await admin.query(api.search.palette, { departmentId, text: "Inbox" })).tasks).toEqual([]);
    expect((await admin.query(api.tasks.linkable, { departmentId, text: "" })).map((task) => task.title)).not.toContain("Inbox: Writer");

    // The run's task still opens by id, for its run record, approvals and Stop.
    const opened = await admin.query(api.tasks.get, { taskId: inboxTasks[0]._id });
    expect(opened?.title).toMatch(/^Inbox: /);
  });

  test("a card Jarvis split from a #maestro mention names no parent in its drawer (his inbox task is off the board); a card split from a task keeps its parent link", async () => {
    const { t, departmentId, admin } = await demoSquad();
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Jarvis split the launch page between Writer and Dev Bot" });
    const inbox = await t.run(async (ctx) => (await ctx.db.query("tasks").collect()).find((task) => task.inboxOf === AGENTS.jarvis));
    expect(inbox?.title).toBe("Inbox: Jarvis");
    const [fromChat] = await jarvisSplits(t, departmentId, inbox!._id, [["Hero copy", AGENTS.writer]]);
    const card = await admin.query(api.tasks.get, { taskId: fromChat });
    expect(card).toMatchObject({ title: "Hero copy", delegatedBy: AGENTS.jarvis });
    expect(card?.parentTaskId).toBeUndefined();
    expect(card?.parentTitle).toBeUndefined();

    const page = await createTask(admin, departmentId, { title: "Launch page" });
    const [fromTask] = await jarvisSplits(t, departmentId, page, [["Signup form", AGENTS.devBot]]);
    expect(await admin.query(api.tasks.get, { taskId: fromTask })).toMatchObject({ parentTaskId: page, parentTitle: "Launch page" });
  });

  test("an inbox task made before inbox tasks left the board leaves it the next time it is used", async () => {
    const { t, departmentId, grace } = await demoSquad({ grace: true });
    const titles = async () => (await grace.query(api.tasks.list, { departmentId })).flatMap((column) => column.tasks.map((card) => card.title));
    await t.run(async (ctx) => {
      await ctx.db.insert(
        "tasks",
        taskRow(departmentId, {
          title: "Inbox: Writer",
          priority: "medium",
          tags: ["inbox"],
          assigneeSessionKeys: [AGENTS.writer],
          order: 1,
          delegationKey: `inbox:${AGENTS.writer}`,
        }),
      );
    });
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    expect(await titles()).toContain("Inbox: Writer");
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Hello Writer" });
    expect(await titles()).not.toContain("Inbox: Writer");
  });
});

/**
 * The run's first model call as the run action builds it (brain/run: the
 * base chain, then the one injection step over what roundInputs read, and
 * its native tools), answered by the demo model as its server would.
 */
async function demoAnswer(t: TestConvex, runId: Id<"runs">): Promise<string> {
  const inputs = await roundInputs(t, runId);
  const injection = injectionMiddleware(
    { inbox: async () => inputs.inbox, chat: async () => inputs.chat, pack: async () => inputs.pack },
    brainConfig().injectionTokenBudget,
    { pii: inputs.injection.pii },
  );
  const { messages } = await assemblePrompt(inputs.context, [...BASE_MIDDLEWARES, injection]);
  // Native tools travel beside the prompt; the demo server reads them into its text form (tools/demo-model/native).
  const tools = inputs.context.toolCalls !== "text" && inputs.context.tools.length > 0 ? toolFunctions(inputs.context.tools) : undefined;
  return demoReply(tools === undefined ? messages : textConversation(messages, tools)!);
}

describe("two quick mentions: both requests are answered (a mention folded into a queued run)", () => {
  withClosedModel();

  test("two people @Jarvis on a task before his run starts: one run, and the demo model delegates both requests, the urgent one at high priority", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const taskId = await createTask(admin, departmentId, { title: "Launch week" });
    for (const [who, content] of [
      [admin, "@Jarvis delegate the launch press kit to Writer"],
      [grace, "@Jarvis delegate the launch tagline to Writer, urgent"],
    ] as const) {
      const messageId = await who.mutation(api.messages.create, { taskId, content });
      await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis });
    }
    const runs = await t.run(async (ctx) => await ctx.db.query("runs").collect());
    expect(runs).toHaveLength(1);
    await startRun(t, runs[0]._id);

    const calls = parseToolCalls(await demoAnswer(t, runs[0]._id));
    expect(calls.map((call) => [call.name, call.args?.assignees, call.args?.priority])).toEqual([
      ["delegate_task", ["Writer"], "medium"],
      ["delegate_task", ["Writer"], "high"],
    ]);
    expect(String(calls[0].args?.title)).toMatch(/press kit/i);
    expect(String(calls[1].args?.title)).toMatch(/tagline/i);
  });

  test("two people @Dev Bot in #maestro before his run starts: his one reply in #maestro answers each of them by name", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "@Dev Bot what is the status of the signup form?" });
    await grace.mutation(api.chat.postAsHuman, { departmentId, text: "@Dev Bot can you fix the login bug?" });
    const runs = await t.run(async (ctx) => await ctx.db.query("runs").collect());
    expect(runs).toHaveLength(1);
    const attempt = await startRun(t, runs[0]._id);

    const reply = await demoAnswer(t, runs[0]._id);
    expect(parseToolCalls(reply)).toEqual([]);
    await t.mutation(internal.brain.writes.finish, { runId: runs[0]._id, attempt, status: "completed", reason: "replied", reply });
    const chat = await admin.query(api.chat.list, { departmentId });
    const answer = chat.filter((line) => line.author === "@dev-bot");
    expect(answer).toHaveLength(1);
    // Ada asked for a status, Grace for a fix: each gets her own answer.
    expect(answer[0].text).toMatch(/^Status, Ada: /m);
    expect(answer[0].text).toMatch(/^Sure, Grace: I'll start with the data it needs/m);
  });

  test("two DMs to Writer before her run starts: her one reply in the DM answers both; a DM from someone else is not folded into that run", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Can you write a tagline for the launch?" });
    const second = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Also, what is the status of the signup form?" });
    // Ada's DM is another conversation: the run's one reply goes to Grace's DM, so Ada's words are not folded into it.
    const adas = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    await admin.mutation(api.channelMessages.post, { channelId: adas, body: "Secret plans: can you review them?" });
    const runs = await t.run(async (ctx) => await ctx.db.query("runs").collect());
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ foldedTriggers: 1, rerunRequested: false, queuedTriggers: [{ kind: "message", channelMessageId: second }] });
    const attempt = await startRun(t, runs[0]._id);
    expect((await roundInputs(t, runs[0]._id)).context.trigger.text).not.toContain("Secret plans");

    const reply = await demoAnswer(t, runs[0]._id);
    await t.mutation(internal.brain.writes.finish, { runId: runs[0]._id, attempt, status: "completed", reason: "replied", reply });
    const history = await grace.query(api.channelMessages.history, { channelId: dm, paginationOpts: { numItems: 10, cursor: null } });
    const answers = history.page.filter((m) => m.from.kind === "agent");
    expect(answers).toHaveLength(1);
    expect(answers[0].body).toMatch(/^Sure, Grace: here's a first line to start from/m);
    expect(answers[0].body).toMatch(/^Status, Grace: /m);
    expect(answers[0].body).not.toMatch(/Ada/);
  });

  test("in a channel, a second @Writer in the thread the run answers in folds into it; a new top-level post is a conversation of its own", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    const first = await admin.mutation(api.channelMessages.post, { channelId, body: "@Writer can you write a tagline for the launch?" });
    const inThread = await grace.mutation(api.channelMessages.reply, { channelId, messageId: first, body: "@Writer and what is the status of the FAQ?" });
    await grace.mutation(api.channelMessages.post, { channelId, body: "@Writer a new topic: can you review the pricing page?" });
    const runs = await t.run(async (ctx) => await ctx.db.query("runs").collect());
    expect(runs).toHaveLength(1);
    expect(runs[0].queuedTriggers).toEqual([{ kind: "message", channelMessageId: inThread }]);
    const attempt = await startRun(t, runs[0]._id);
    const reply = await demoAnswer(t, runs[0]._id);
    await t.mutation(internal.brain.writes.finish, { runId: runs[0]._id, attempt, status: "completed", reason: "replied", reply });
    const thread = await admin.query(api.channelMessages.thread, { channelId, messageId: first });
    const answers = thread.replies.filter((m) => m.from.kind === "agent");
    expect(answers).toHaveLength(1);
    expect(answers[0].body).toMatch(/^Sure, Ada: /m);
    expect(answers[0].body).toMatch(/^Status, Grace: /m);
  });
});
