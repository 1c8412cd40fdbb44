import { describe, expect, test, vi } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { NO_MODEL_NOTE } from "../../convex/lib/modelConfig";
import { REDACTED, REDACTION_NOTE } from "../../convex/lib/secrets/scanner";
import { createTask as createTaskHelper, moveTask } from "../../convex/reactions/taskChange";
import { enqueueRun } from "../../convex/reactions/runQueue";
import { getTaskX, MAX_TASKS_PER_COLUMN, resolveAssignees } from "../../convex/records/tasks";
import {
  AGENTS,
  allTriggers,
  columnTitles,
  createOtherAgent,
  createOtherTask,
  createTask,
  deletedTaskId,
  insertRun,
  demoSquad,
  expectError,
  expectTaskRefusals,
  memberKeyOf,
  notificationsFor,
  runScheduled,
  signIn,
  taskRow,
  type TestConvex,
  holdScheduledFunctions,
} from "./setup";

// Assigning schedules trigger functions; fake timers keep them queued until a test runs them.
holdScheduledFunctions();

const SEEDED_INBOX = "Landing page for the launch";

async function activityTypes(t: TestConvex, taskId: Id<"tasks">) {
  return await t.run(async (ctx) =>
    (await ctx.db.query("activities").collect()).filter((a) => a.taskId === taskId).map((a) => ({ type: a.type, data: a.data })),
  );
}

describe("tasks.create", () => {
  test("without assignees: a trimmed card on top of inbox, with defaults, task_created only, nobody notified", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId, { title: "  Write the FAQ  " });
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(["Write the FAQ", SEEDED_INBOX]);
    expect(await admin.query(api.tasks.get, { taskId })).toMatchObject({
      title: "Write the FAQ",
      description: "",
      status: "inbox",
      priority: "medium",
      tags: [],
      assigneeSessionKeys: [],
      createdBy: memberKeyOf(t, "Ada"),
      departmentId,
    });
    expect(await activityTypes(t, taskId)).toEqual([{ type: "task_created", data: { title: "Write the FAQ" } }]);
    await runScheduled(t);
    expect(await t.run(async (ctx) => await ctx.db.query("notifications").collect())).toEqual([]);
    expect(await allTriggers(t)).toEqual([]);
  });

  test("with assignees: status assigned, task_created and task_assigned recorded, each assignee notified and triggered once", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId, {
      title: "Ship the API",
      description: "Rate limits included.",
      priority: "high",
      tags: ["api", "API", " launch "],
      assigneeSessionKeys: [AGENTS.devBot, AGENTS.archie, AGENTS.devBot],
    });
    const task = await admin.query(api.tasks.get, { taskId });
    expect(task).toMatchObject({
      status: "assigned",
      priority: "high",
      tags: ["api", "launch"],
      assigneeSessionKeys: [AGENTS.devBot, AGENTS.archie],
    });
    expect(task).not.toHaveProperty("order");
    expect(await columnTitles(admin, departmentId, "assigned")).toEqual(["Ship the API", "Pricing page copy"]);
    expect(await activityTypes(t, taskId)).toEqual([
      { type: "task_created", data: { title: "Ship the API" } },
      { type: "task_assigned", data: { title: "Ship the API", assignees: "Dev Bot, Archie" } },
    ]);
    for (const key of [AGENTS.devBot, AGENTS.archie]) {
      expect(await notificationsFor(t, key)).toMatchObject([{ kind: "assignment", taskId, departmentId }]);
    }
    expect(await notificationsFor(t, AGENTS.writer)).toEqual([]);

    expect(await allTriggers(t)).toEqual([]);
    await runScheduled(t);
    const triggers = await allTriggers(t);
    // Taken up at once by the brain; no model is configured here, so each says why no run started.
    expect(triggers.map((r) => [r.agentSessionKey, r.kind, r.status, r.runId ?? null, r.note]).sort()).toEqual([
      [AGENTS.archie, "assigned", "consumed", null, NO_MODEL_NOTE],
      [AGENTS.devBot, "assigned", "consumed", null, NO_MODEL_NOTE],
    ]);
  });

  test("any member may create; new cards go on top of their column, where the board's first page shows them", async () => {
    const { departmentId, admin, t } = await demoSquad({ other: true });
    const grace = await signIn(t, "Grace");
    await createTask(grace, departmentId, { title: "One" });
    await createTask(admin, departmentId, { title: "Two" });
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(["Two", "One", SEEDED_INBOX]);
  });

  test("anonymous callers and other departments are refused", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    await expectError(t.mutation(api.tasks.create, { departmentId, title: "Sneaky" }), "UNAUTHENTICATED");
    await expectError(createTask(other.member, departmentId), "FORBIDDEN");
    await expectError(createTask(admin, other.departmentId), "FORBIDDEN");
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual([SEEDED_INBOX]);
  });

  test("bad input: empty or oversized title, oversized description, too many or too long tags", async () => {
    const { departmentId, admin } = await demoSquad({ other: true });
    await expectError(createTask(admin, departmentId, { title: "" }), "INVALID_ARGUMENT", "Title must not be empty.");
    await expectError(createTask(admin, departmentId, { title: "   " }), "INVALID_ARGUMENT", "Title must not be empty.");
    await expectError(createTask(admin, departmentId, { title: "x".repeat(201) }), "INVALID_ARGUMENT", "Title is 201 characters; the limit is 200.");
    await createTask(admin, departmentId, { title: "x".repeat(200) });
    await expectError(
      createTask(admin, departmentId, { description: "d".repeat(10_001) }),
      "INVALID_ARGUMENT",
      "Description is 10001 characters; the limit is 10000.",
    );
    const elevenTags = Array.from({ length: 11 }, (_, i) => `tag${i}`);
    await expectError(createTask(admin, departmentId, { tags: elevenTags }), "INVALID_ARGUMENT", /at most 10 tags/);
    await expectError(createTask(admin, departmentId, { tags: ["t".repeat(33)] }), "INVALID_ARGUMENT", /A tag is 33 characters/);
    await expectError(createTask(admin, departmentId, { tags: [" "] }), "INVALID_ARGUMENT", "A tag must not be empty.");
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(["x".repeat(200), SEEDED_INBOX]);
  });

  test("bad input: an unknown assignee, or another department's agent, is named in the error and nothing is written", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    await expectError(
      createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.writer, "agent:ghost:product"] }),
      "INVALID_ARGUMENT",
      "Unknown assignee: agent:ghost:product is not an agent of this department.",
    );
    const spy = await createOtherAgent(t, other.departmentId);
    await expectError(createTask(admin, departmentId, { assigneeSessionKeys: [spy] }), "INVALID_ARGUMENT", /agent:spy:other/);
    const eleven = Array.from({ length: 11 }, (_, i) => `agent:a${i}:product`);
    await expectError(createTask(admin, departmentId, { assigneeSessionKeys: eleven }), "INVALID_ARGUMENT", /at most 10 assignees/);
    await runScheduled(t);
    expect(await columnTitles(admin, departmentId, "assigned")).toEqual(["Pricing page copy"]);
    expect(await notificationsFor(t, AGENTS.writer)).toEqual([]);
    expect(await allTriggers(t)).toEqual([]);
  });
});

describe("tasks.get", () => {
  test("returns the drawer's detail, with the parent's title for a delegated subtask", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    const parentId = await createTask(admin, departmentId, { title: "Launch" });
    const childId = await t.run(
      async (ctx) =>
        (
          await createTaskHelper(ctx, { kind: "agent", sessionKey: AGENTS.jarvis, name: "Jarvis" }, {
            departmentId,
            title: "Launch blog post",
            assigneeSessionKeys: [AGENTS.writer],
            parentTaskId: parentId,
            delegatedBy: AGENTS.jarvis,
          })
        )._id,
    );
    expect(await admin.query(api.tasks.get, { taskId: childId })).toMatchObject({
      _id: childId,
      title: "Launch blog post",
      status: "assigned",
      parentTaskId: parentId,
      parentTitle: "Launch",
      delegatedBy: AGENTS.jarvis,
      createdBy: AGENTS.jarvis,
    });
    const parent = await admin.query(api.tasks.get, { taskId: parentId });
    expect(parent.parentTitle).toBeUndefined();
  });

  test("anonymous callers, other departments and unknown ids are refused", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId);
    const gone = await deletedTaskId(t, departmentId);
    const theirs = await createOtherTask(t, other.departmentId);
    await expectError(t.query(api.tasks.get, { taskId }), "UNAUTHENTICATED");
    // An anonymous caller learns nothing about which ids exist.
    await expectError(t.query(api.tasks.get, { taskId: gone }), "UNAUTHENTICATED");
    await expectError(other.member.query(api.tasks.get, { taskId }), "FORBIDDEN");
    await expectError(admin.query(api.tasks.get, { taskId: theirs }), "FORBIDDEN");
    await expectError(admin.query(api.tasks.get, { taskId: gone }), "NOT_FOUND", "Task not found.");
  });
});

describe("tasks.list", () => {
  test("a column holds at most MAX_TASKS_PER_COLUMN cards and says when it holds more", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    await t.run(async (ctx) => {
      for (let i = 0; i < 501; i++) {
        await ctx.db.insert("tasks", taskRow(departmentId, { title: `Blocked ${i}`, status: "blocked", order: i }));
      }
    });
    const blocked = (await admin.query(api.tasks.list, { departmentId })).find((c) => c.status === "blocked")!;
    expect(blocked.truncated).toBe(true);
    expect(blocked.tasks).toHaveLength(500);
    expect(blocked.tasks[0].title).toBe("Blocked 0");
    const inbox = (await admin.query(api.tasks.list, { departmentId })).find((c) => c.status === "inbox")!;
    expect(inbox.truncated).toBe(false);
  });

  test("listColumn with a limit ships the first cards and the column's count; without one, the whole column and no count", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    await t.run(async (ctx) => {
      for (let i = 0; i < 30; i++) {
        await ctx.db.insert("tasks", taskRow(departmentId, { title: `Blocked ${i}`, status: "blocked", priority: i % 2 === 0 ? "high" : "low", order: i }));
      }
    });
    const first = await admin.query(api.tasks.listColumn, { departmentId, status: "blocked", limit: 10 });
    expect(first.tasks.map((task) => task.title)).toEqual(Array.from({ length: 10 }, (_, i) => `Blocked ${i}`));
    expect(first.count).toBe(30);
    expect(first.truncated).toBe(false);
    // The count is of the cards the filters leave.
    const high = await admin.query(api.tasks.listColumn, { departmentId, status: "blocked", priority: "high", limit: 10 });
    expect(high.count).toBe(15);
    expect(high.tasks).toHaveLength(10);
    // A limit the column fits in changes nothing: no count, every card.
    const all = await admin.query(api.tasks.listColumn, { departmentId, status: "blocked" });
    expect(all.count).toBeUndefined();
    expect(all.tasks).toHaveLength(30);
    expect(await admin.query(api.tasks.listColumn, { departmentId, status: "blocked", limit: 30 })).toEqual(all);
    for (const limit of [0, -1, 2.5]) {
      await expectError(admin.query(api.tasks.listColumn, { departmentId, status: "blocked", limit }), "INVALID_ARGUMENT");
    }
  });

  test("on a column longer than the board's first page, a new card and one moved in without a position are in that first page", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    await t.run(async (ctx) => {
      for (let i = 0; i < MAX_TASKS_PER_COLUMN + 20; i++) {
        await ctx.db.insert("tasks", taskRow(departmentId, { title: `Waiting ${i}`, status: "assigned", assigneeSessionKeys: [AGENTS.devBot], order: i }));
        await ctx.db.insert("tasks", taskRow(departmentId, { title: `Reviewing ${i}`, status: "review", order: i }));
      }
    });
    const firstPage = async (status: "assigned" | "review") =>
      (await admin.query(api.tasks.listColumn, { departmentId, status, limit: 50 })).tasks.map((task) => task.title);
    const taskId = await createTask(admin, departmentId, { title: "Fresh work", assigneeSessionKeys: [AGENTS.writer] });
    expect((await firstPage("assigned"))[0]).toBe("Fresh work");
    // What an agent's update_task_status or /status does: a move that names no position.
    await admin.mutation(api.tasks.setStatus, { taskId, status: "review" });
    expect((await firstPage("review"))[0]).toBe("Fresh work");
    expect(await firstPage("assigned")).not.toContain("Fresh work");
  });

  test("another department's board shows only its own cards", async () => {
    const { t, admin, departmentId, other } = await demoSquad({ other: true });
    await createOtherTask(t, other.departmentId);
    const theirs = await other.member.query(api.tasks.list, { departmentId: other.departmentId });
    expect(theirs.flatMap((c) => c.tasks.map((task) => task.title))).toEqual(["Their task"]);
    const ours = await admin.query(api.tasks.list, { departmentId });
    expect(ours.flatMap((c) => c.tasks.map((task) => task.title))).not.toContain("Their task");
  });
});

describe("tasks.setStatus", () => {
  test("moves the card on top of the new column and records the change; the same status is a no-op", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId, { title: "Fix the bug" });
    await admin.mutation(api.tasks.setStatus, { taskId, status: "review" });
    expect(await columnTitles(admin, departmentId, "review")).toEqual(["Fix the bug", "Review the event schema"]);
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual([SEEDED_INBOX]);
    await admin.mutation(api.tasks.setStatus, { taskId, status: "review" });
    expect(await activityTypes(t, taskId)).toEqual([
      { type: "task_created", data: { title: "Fix the bug" } },
      { type: "task_status_changed", data: { title: "Fix the bug", from: "inbox", to: "review" } },
    ]);
    expect((await admin.query(api.tasks.get, { taskId })).status).toBe("review");
  });

  test("anonymous callers, other departments, unknown ids and unknown statuses are refused", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId);
    await expectTaskRefusals({ t, departmentId, admin, other }, taskId, (caller, id) => caller.mutation(api.tasks.setStatus, { taskId: id, status: "done" }));
    // @ts-expect-error: not a column
    await expect(admin.mutation(api.tasks.setStatus, { taskId, status: "archived" })).rejects.toThrow(/Validator/i);
    expect((await admin.query(api.tasks.get, { taskId })).status).toBe("inbox");
  });
});

describe("tasks.move", () => {
  test("within a column: card order follows the drop position, clamped to the column, with no status activity", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    const a = await createTask(admin, departmentId, { title: "A" });
    await createTask(admin, departmentId, { title: "B" });
    const c = await createTask(admin, departmentId, { title: "C" });
    const L = SEEDED_INBOX;
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(["C", "B", "A", L]);

    await admin.mutation(api.tasks.move, { taskId: a, status: "inbox", position: 0 });
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(["A", "C", "B", L]);
    await admin.mutation(api.tasks.move, { taskId: a, status: "inbox", position: 2 });
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(["C", "B", "A", L]);
    await admin.mutation(api.tasks.move, { taskId: c, status: "inbox", position: 99 });
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(["B", "A", L, "C"]);
    await admin.mutation(api.tasks.move, { taskId: c, status: "inbox", position: 1 });
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(["B", "C", "A", L]);

    const columns = await admin.query(api.tasks.list, { departmentId });
    const orders = columns[0].tasks.map((task) => task.order);
    expect([...orders].sort((x, y) => x - y)).toEqual(orders);
    expect((await activityTypes(t, a)).map((e) => e.type)).toEqual(["task_created"]);
  });

  test("between columns: the card lands at the drop position, leaves its old column and records the change", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    const a = await createTask(admin, departmentId, { title: "A" });
    const b = await createTask(admin, departmentId, { title: "B" });
    await admin.mutation(api.tasks.move, { taskId: a, status: "review", position: 0 });
    expect(await columnTitles(admin, departmentId, "review")).toEqual(["A", "Review the event schema"]);
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(["B", SEEDED_INBOX]);
    await admin.mutation(api.tasks.move, { taskId: b, status: "review", position: 1 });
    expect(await columnTitles(admin, departmentId, "review")).toEqual(["A", "B", "Review the event schema"]);
    await admin.mutation(api.tasks.move, { taskId: a, status: "blocked", position: 7 });
    expect(await columnTitles(admin, departmentId, "blocked")).toEqual(["A"]);
    expect(await columnTitles(admin, departmentId, "review")).toEqual(["B", "Review the event schema"]);
    expect((await admin.query(api.tasks.get, { taskId: a })).status).toBe("blocked");
    expect((await activityTypes(t, a)).slice(1)).toEqual([
      { type: "task_status_changed", data: { title: "A", from: "inbox", to: "review" } },
      { type: "task_status_changed", data: { title: "A", from: "review", to: "blocked" } },
    ]);
  });

  test("many drops into the same gap: the column is renumbered and the order stays right", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    for (const title of ["X", "Y", "Z"]) await createTask(admin, departmentId, { title });
    const expected = ["Z", "Y", "X", SEEDED_INBOX];
    const idOf = new Map((await admin.query(api.tasks.list, { departmentId }))[0].tasks.map((task) => [task.title, task._id]));
    // Each drop halves the gap after the first card; ~30 halvings exhaust it.
    for (let i = 0; i < 45; i++) {
      const last = expected.pop()!;
      expected.splice(1, 0, last);
      await admin.mutation(api.tasks.move, { taskId: idOf.get(last)!, status: "inbox", position: 1 });
      expect(await columnTitles(admin, departmentId, "inbox")).toEqual(expected);
    }
    const cards = (await admin.query(api.tasks.list, { departmentId }))[0].tasks;
    // The first card never moved; renumbering gave it the first step.
    expect(cards[0].order).toBe(1024);
    for (let i = 1; i < cards.length; i++) expect(cards[i].order).toBeGreaterThan(cards[i - 1].order);
    // Renumbering touched only this column.
    expect(await columnTitles(admin, departmentId, "assigned")).toEqual(["Pricing page copy"]);
    expect(await t.run(async (ctx) => (await ctx.db.get("tasks", idOf.get(SEEDED_INBOX)!))!.status)).toBe("inbox");
  });

  test("bad positions, anonymous callers, other departments and unknown ids are refused", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId);
    await expectError(admin.mutation(api.tasks.move, { taskId, status: "done", position: -1 }), "INVALID_ARGUMENT", /Position/);
    await expectError(admin.mutation(api.tasks.move, { taskId, status: "done", position: 1.5 }), "INVALID_ARGUMENT", /Position/);
    await expectTaskRefusals({ t, departmentId, admin, other }, taskId, (caller, id) => caller.mutation(api.tasks.move, { taskId: id, status: "done", position: 0 }));
    expect((await admin.query(api.tasks.get, { taskId })).status).toBe("inbox");
  });
});

describe("tasks.assign", () => {
  test("adds and removes assignees, moves an inbox card to assigned, and notifies and triggers only the newly added", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId, { title: "Docs" });

    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [AGENTS.devBot, AGENTS.writer] });
    expect(await admin.query(api.tasks.get, { taskId })).toMatchObject({
      status: "assigned",
      assigneeSessionKeys: [AGENTS.devBot, AGENTS.writer],
    });
    expect(await columnTitles(admin, departmentId, "assigned")).toEqual(["Docs", "Pricing page copy"]);

    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [AGENTS.writer, AGENTS.archie] });
    expect((await admin.query(api.tasks.get, { taskId })).assigneeSessionKeys).toEqual([AGENTS.writer, AGENTS.archie]);

    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [] });
    expect((await admin.query(api.tasks.get, { taskId })).assigneeSessionKeys).toEqual([]);

    expect((await notificationsFor(t, AGENTS.devBot)).map((n) => n.kind)).toEqual(["assignment"]);
    expect((await notificationsFor(t, AGENTS.writer)).map((n) => n.kind)).toEqual(["assignment"]);
    expect((await notificationsFor(t, AGENTS.archie)).map((n) => n.kind)).toEqual(["assignment"]);
    expect(await notificationsFor(t, AGENTS.jarvis)).toEqual([]);

    await runScheduled(t);
    const triggers = await allTriggers(t);
    expect(triggers.map((r) => r.agentSessionKey).sort()).toEqual([AGENTS.archie, AGENTS.devBot, AGENTS.writer]);
    expect(triggers.every((r) => r.kind === "assigned" && r.taskId === taskId)).toBe(true);

    expect(await activityTypes(t, taskId)).toEqual([
      { type: "task_created", data: { title: "Docs" } },
      { type: "task_assigned", data: { title: "Docs", assignees: "Dev Bot, Writer" } },
      { type: "task_status_changed", data: { title: "Docs", from: "inbox", to: "assigned" } },
      { type: "task_assigned", data: { title: "Docs", assignees: "Writer, Archie" } },
      { type: "task_assigned", data: { title: "Docs", assignees: "" } },
    ]);
  });

  test("a card already past inbox keeps its column when assigned", async () => {
    const { departmentId, admin } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId, { title: "Hot fix" });
    await admin.mutation(api.tasks.setStatus, { taskId, status: "in_progress" });
    await admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [AGENTS.devBot] });
    expect((await admin.query(api.tasks.get, { taskId })).status).toBe("in_progress");
  });

  test("an unknown assignee is named and nothing changes; anonymous callers, other departments and unknown ids are refused", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId, { assigneeSessionKeys: [AGENTS.writer] });
    await expectError(
      admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [AGENTS.devBot, "agent:nobody:product"] }),
      "INVALID_ARGUMENT",
      /agent:nobody:product/,
    );
    const eleven = Array.from({ length: 11 }, (_, i) => `agent:a${i}:product`);
    await expectError(admin.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: eleven }), "INVALID_ARGUMENT", /at most 10/);
    await expectError(t.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [] }), "UNAUTHENTICATED");
    await expectError(other.member.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [] }), "FORBIDDEN");
    const theirs = await createOtherTask(t, other.departmentId);
    await expectError(admin.mutation(api.tasks.assign, { taskId: theirs, assigneeSessionKeys: [AGENTS.writer] }), "FORBIDDEN");
    const gone = await deletedTaskId(t, departmentId);
    await expectError(admin.mutation(api.tasks.assign, { taskId: gone, assigneeSessionKeys: [] }), "NOT_FOUND");
    expect((await admin.query(api.tasks.get, { taskId })).assigneeSessionKeys).toEqual([AGENTS.writer]);
    expect(await notificationsFor(t, AGENTS.devBot)).toEqual([]);
  });
});

describe("tasks.update", () => {
  test("edits the given fields, records which ones changed, and ignores an empty edit", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId, { title: "Old", description: "Old text", tags: ["a"] });
    const before = await admin.query(api.tasks.get, { taskId });
    vi.advanceTimersByTime(1000);
    await admin.mutation(api.tasks.update, { taskId, title: " New ", description: "", priority: "low", tags: ["b", "c"] });
    const after = await admin.query(api.tasks.get, { taskId });
    expect(after).toMatchObject({ title: "New", description: "", priority: "low", tags: ["b", "c"], status: "inbox" });
    expect(after.updatedAt).toBeGreaterThan(before.updatedAt);

    await admin.mutation(api.tasks.update, { taskId, priority: "high" });
    await admin.mutation(api.tasks.update, { taskId });
    expect((await activityTypes(t, taskId)).slice(1)).toEqual([
      { type: "task_updated", data: { title: "New", fields: "title, description, priority, tags" } },
      { type: "task_updated", data: { title: "New", fields: "priority" } },
    ]);
  });

  test("bad input is refused and nothing changes", async () => {
    const { departmentId, admin } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId, { title: "Keep me" });
    await expectError(admin.mutation(api.tasks.update, { taskId, title: " " }), "INVALID_ARGUMENT", "Title must not be empty.");
    await expectError(admin.mutation(api.tasks.update, { taskId, title: "t".repeat(201) }), "INVALID_ARGUMENT", /limit is 200/);
    await expectError(admin.mutation(api.tasks.update, { taskId, description: "d".repeat(10_001) }), "INVALID_ARGUMENT", /limit is 10000/);
    await expectError(
      admin.mutation(api.tasks.update, { taskId, title: "Fine", tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }),
      "INVALID_ARGUMENT",
      /at most 10 tags/,
    );
    expect((await admin.query(api.tasks.get, { taskId })).title).toBe("Keep me");
  });

  test("anonymous callers, other departments and unknown ids are refused", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId);
    await expectTaskRefusals({ t, departmentId, admin, other }, taskId, (caller, id) => caller.mutation(api.tasks.update, { taskId: id, title: "Mine" }));
  });
});

describe("the task records and reactions other modules build on", () => {
  test("getTaskX, resolveAssignees and moveTask work for the brain's internal functions", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    const taskId = await createTask(admin, departmentId, { title: "Brainwork" });
    const gone = await deletedTaskId(t, departmentId);
    await t.run(async (ctx) => {
      await expectError(getTaskX(ctx, gone), "NOT_FOUND");
      const agents = await resolveAssignees(ctx, departmentId, [AGENTS.jarvis, AGENTS.jarvis, AGENTS.writer]);
      expect(agents.map((a) => a.name)).toEqual(["Jarvis", "Writer"]);
      await moveTask(ctx, { kind: "system" }, await getTaskX(ctx, taskId), "done");
    });
    expect(await columnTitles(admin, departmentId, "done")).toEqual(["Brainwork", "Pick the launch date"]);
    const moved = await t.run(async (ctx) => (await ctx.db.query("activities").collect()).find((a) => a.type === "task_status_changed"));
    expect(moved).toMatchObject({ actor: { kind: "system" }, data: { from: "inbox", to: "done" } });
  });

  test("createTask refuses a parent task of another department", async () => {
    const { t, departmentId, other } = await demoSquad({ other: true });
    const theirs = await createOtherTask(t, other.departmentId);
    await expectError(
      t.run(async (ctx) => (await createTaskHelper(ctx, { kind: "system" }, { departmentId, title: "Child", parentTaskId: theirs }))._id),
      "FORBIDDEN",
    );
  });
});

describe("secret scanning of board text", () => {
  test("task titles, descriptions and thread messages are redacted with the chat's note; the scanner setting is the department's", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const key = "AKIA" + "Z7QWERTYUIOP2345";
    const taskId = await createTask(admin, departmentId, { title: `deploy with ${key}`, description: `password=hunter2hunter2 and ${key}` });
    const task = await admin.query(api.tasks.get, { taskId });
    expect(task.title).toBe(`deploy with ${REDACTED}${REDACTION_NOTE}`);
    expect(task.description).not.toContain(key);
    expect(task.description.endsWith(REDACTION_NOTE)).toBe(true);
    await admin.mutation(api.tasks.update, { taskId, description: `now ${key}` });
    expect((await admin.query(api.tasks.get, { taskId })).description).toBe(`now ${REDACTED}${REDACTION_NOTE}`);
    await admin.mutation(api.messages.create, { taskId, content: `the key is ${key}` });
    const { page } = await admin.query(api.messages.list, { taskId, paginationOpts: { numItems: 1, cursor: null } });
    expect(page[0].content).toBe(`the key is ${REDACTED}${REDACTION_NOTE}`);
    const stored = JSON.stringify(await t.run(async (ctx) => [await ctx.db.query("tasks").collect(), await ctx.db.query("messages").collect(), await ctx.db.query("activities").collect()]));
    expect(stored).not.toContain(key);
    // A department that turned its scanner off keeps text as written.
    await admin.mutation(api.chat.updateSettings, { departmentId, scannerEnabled: false });
    const plain = await createTask(admin, departmentId, { title: `raw ${key}` });
    expect((await admin.query(api.tasks.get, { taskId: plain })).title).toBe(`raw ${key}`);
  });
});

describe("tasks.archive and tasks.remove", () => {
  async function activity(t: TestConvex, type: string) {
    return await t.run(async (ctx) => (await ctx.db.query("activities").collect()).filter((a) => a.type === type));
  }

  test("archiving hides a task from the board, stops its runs and is found by the archived filter; restoring brings it back", async () => {
    const { t, departmentId, grace } = await demoSquad({ grace: true });
    const taskId = await createTask(grace, departmentId, { title: "Old test task", assigneeSessionKeys: [AGENTS.writer] });
    const running = await insertRun(t, AGENTS.writer, taskId, "running");
    const waiting = await insertRun(t, AGENTS.devBot, taskId, "waiting");
    await grace.mutation(api.tasks.archive, { taskId, archived: true });
    expect(await columnTitles(grace, departmentId, "assigned")).not.toContain("Old test task");
    const archived = await grace.query(api.tasks.list, { departmentId, archived: true });
    expect(archived.flatMap((c) => c.tasks).map((card) => [card.title, card.archived])).toEqual([["Old test task", true]]);
    const runs = await t.run(async (ctx) => [(await ctx.db.get("runs", running))!, (await ctx.db.get("runs", waiting))!]);
    expect(runs.map((run) => [run.status, run.reason])).toEqual([
      ["aborted", "stopped by Grace"],
      ["aborted", "stopped by Grace"],
    ]);
    expect((await activity(t, "task_archived")).map((a) => a.data)).toEqual([{ title: "Old test task", stoppedRuns: 2 }]);
    expect((await grace.query(api.tasks.get, { taskId })).archivedAt).toBeTypeOf("number");
    await grace.mutation(api.tasks.archive, { taskId, archived: false });
    expect(await columnTitles(grace, departmentId, "assigned")).toContain("Old test task");
    expect((await activity(t, "task_unarchived")).map((a) => a.data)).toEqual([{ title: "Old test task" }]);
  });

  test("no run starts on an archived task", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId, { title: "Parked" });
    await admin.mutation(api.tasks.archive, { taskId, archived: true });
    const note = await t.run(async (ctx) => {
      const writer = (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", AGENTS.writer)).unique())!;
      return await enqueueRun(ctx, writer, taskId, { kind: "assigned" });
    });
    expect(note).toEqual({ runId: null, note: "the task is archived" });
    expect(await t.run(async (ctx) => await ctx.db.query("runs").collect())).toEqual([]);
  });

  test("viewers cannot archive; other departments and anonymous callers are refused", async () => {
    const squad = await demoSquad({ vera: true, other: true });
    const taskId = await createTask(squad.admin, squad.departmentId, { title: "Keep" });
    await expectError(squad.vera.mutation(api.tasks.archive, { taskId, archived: true }), "FORBIDDEN");
    await expectTaskRefusals(squad, taskId, (caller, id) => caller.mutation(api.tasks.archive, { taskId: id, archived: true }));
    await expectTaskRefusals(squad, taskId, (caller, id) => caller.mutation(api.tasks.remove, { taskId: id }));
    expect((await squad.admin.query(api.tasks.get, { taskId })).archivedAt).toBeUndefined();
  });

  test("the creator or an admin deletes a task: gone from the board, the archive, search and every task function; its runs stopped", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const adasTask = await createTask(admin, departmentId, { title: "Ada's task" });
    const gracesTask = await createTask(grace, departmentId, { title: "Typo tsak", assigneeSessionKeys: [AGENTS.writer] });
    const run = await insertRun(t, AGENTS.writer, gracesTask, "queued");
    await expectError(grace.mutation(api.tasks.remove, { taskId: adasTask }), "FORBIDDEN", /archive it instead/);
    await grace.mutation(api.tasks.remove, { taskId: gracesTask });
    expect((await t.run(async (ctx) => await ctx.db.get("runs", run)))!.status).toBe("aborted");
    await expectError(grace.query(api.tasks.get, { taskId: gracesTask }), "NOT_FOUND");
    await expectError(grace.mutation(api.messages.create, { taskId: gracesTask, content: "hello?" }), "NOT_FOUND");
    await expectError(grace.mutation(api.tasks.remove, { taskId: gracesTask }), "NOT_FOUND");
    for (const archived of [false, true]) {
      const cards = (await grace.query(api.tasks.list, { departmentId, archived })).flatMap((c) => c.tasks);
      expect(cards.map((c) => c.title)).not.toContain("Typo tsak");
    }
    expect((await grace.query(api.search.palette, { departmentId, text: "Typo" })).tasks).toEqual([]);
    await expect(t.run(async (ctx) => await getTaskX(ctx, gracesTask))).rejects.toThrow(/Task not found/);
    // An admin deletes anyone's.
    await admin.mutation(api.tasks.remove, { taskId: await createTask(grace, departmentId, { title: "Grace's other" }) });
    expect((await activity(t, "task_deleted")).map((a) => a.data)).toEqual([{ title: "Typo tsak", stoppedRuns: 1 }, { title: "Grace's other" }]);
  });
});
