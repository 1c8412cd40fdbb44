/**
 * The board's column counters (taskColumnCounts): every write that puts a
 * card on a column, takes it off or moves it keeps its column's count equal
 * to the cards there (live, not archived), and a column shows that count
 * with only its first page read.
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { TASK_STATUSES } from "../../convex/validators";
import { AGENTS, createTask, demoSquad, holdScheduledFunctions, taskRow, type TestConvex } from "./setup";

// Assigning schedules trigger functions; fake timers keep them queued (no runs move cards meanwhile).
holdScheduledFunctions();

/** Each column's counter beside the cards it holds, counted by hand from every task. */
async function countersAndColumns(t: TestConvex, departmentId: Id<"departments">) {
  return await t.run(async (ctx) => {
    const tasks = (await ctx.db.query("tasks").collect()).filter((task) => task.departmentId === departmentId);
    const counters = (await ctx.db.query("taskColumnCounts").collect()).filter((row) => row.departmentId === departmentId);
    const counted = Object.fromEntries(TASK_STATUSES.map((status) => [status, counters.find((row) => row.status === status)?.count ?? 0]));
    const cards = Object.fromEntries(
      TASK_STATUSES.map((status) => [status, tasks.filter((task) => task.status === status && task.archivedAt === undefined && task.deletedAt === undefined).length]),
    );
    return { counted, cards };
  });
}

async function expectCountersRight(t: TestConvex, departmentId: Id<"departments">) {
  const { counted, cards } = await countersAndColumns(t, departmentId);
  expect(counted).toEqual(cards);
}

describe("column counters", () => {
  test("stay equal to each column's cards through create, assign, move, archive, unarchive and delete", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    // The demo seed's cards are counted.
    const seeded = await countersAndColumns(t, departmentId);
    expect(Object.values(seeded.counted).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    await expectCountersRight(t, departmentId);

    const loose = await createTask(admin, departmentId, { title: "Loose" });
    const held = await createTask(admin, departmentId, { title: "Held", assigneeSessionKeys: [AGENTS.writer] });
    await expectCountersRight(t, departmentId);

    // Assigning an inbox card moves it to assigned.
    await admin.mutation(api.tasks.assign, { taskId: loose, assigneeSessionKeys: [AGENTS.devBot] });
    await expectCountersRight(t, departmentId);
    await admin.mutation(api.tasks.move, { taskId: loose, status: "review", position: 0 });
    await admin.mutation(api.tasks.setStatus, { taskId: held, status: "done" });
    // A move within its own column changes no count.
    await admin.mutation(api.tasks.move, { taskId: held, status: "done", position: 1 });
    await expectCountersRight(t, departmentId);

    await admin.mutation(api.tasks.archive, { taskId: loose, archived: true });
    await expectCountersRight(t, departmentId);
    // Archiving again changes nothing; bringing it back counts it again.
    await admin.mutation(api.tasks.archive, { taskId: loose, archived: true });
    await expectCountersRight(t, departmentId);
    await admin.mutation(api.tasks.archive, { taskId: loose, archived: false });
    await expectCountersRight(t, departmentId);

    await admin.mutation(api.tasks.remove, { taskId: held });
    await expectCountersRight(t, departmentId);
    // An archived card deleted is not taken off twice.
    await admin.mutation(api.tasks.archive, { taskId: loose, archived: true });
    await admin.mutation(api.tasks.remove, { taskId: loose });
    await expectCountersRight(t, departmentId);

    // Another department's columns are counted apart.
    const before = await countersAndColumns(t, other.departmentId);
    await createTask(other.member, other.departmentId, { title: "Theirs" });
    const after = await countersAndColumns(t, other.departmentId);
    expect(after.counted.inbox).toBe(before.counted.inbox + 1);
    expect(after.counted).toEqual(after.cards);
    await expectCountersRight(t, departmentId);
  });

  test("a column whose cards predate its counter is counted once, on its first write", async () => {
    const { t, departmentId, admin } = await demoSquad();
    await t.run(async (ctx) => {
      for (let i = 0; i < 40; i++) await ctx.db.insert("tasks", taskRow(departmentId, { title: `Old ${i}`, status: "blocked", order: i }));
      await ctx.db.insert("tasks", taskRow(departmentId, { title: "Old archived", status: "blocked", order: 50, archivedAt: 1 }));
    });
    const taskId = await createTask(admin, departmentId, { title: "Now blocked" });
    await admin.mutation(api.tasks.setStatus, { taskId, status: "blocked" });
    await expectCountersRight(t, departmentId);
    expect((await countersAndColumns(t, departmentId)).counted.blocked).toBe(41);
  });

  test("a column's first page carries the counter's count, however long the column", async () => {
    const { t, departmentId, admin } = await demoSquad();
    for (let i = 0; i < 12; i++) await createTask(admin, departmentId, { title: `Card ${i}` });
    const archived = await createTask(admin, departmentId, { title: "Put away" });
    await admin.mutation(api.tasks.archive, { taskId: archived, archived: true });
    const { cards } = await countersAndColumns(t, departmentId);
    const page = await admin.query(api.tasks.listColumn, { departmentId, status: "inbox", limit: 5 });
    expect(page.tasks.map((task) => task.title)).toEqual(["Card 11", "Card 10", "Card 9", "Card 8", "Card 7"]);
    expect(page.count).toBe(cards.inbox);
    expect(page.truncated).toBe(false);
    // A longer page shows more of the same column, in the same order.
    const longer = await admin.query(api.tasks.listColumn, { departmentId, status: "inbox", limit: 10 });
    expect(longer.tasks.slice(0, 5)).toEqual(page.tasks);
    expect(longer.tasks).toHaveLength(10);
    // The archived card is only on the archived board.
    expect(longer.tasks.map((task) => task.title)).not.toContain("Put away");
    const put = await admin.query(api.tasks.listColumn, { departmentId, status: "inbox", archived: true });
    expect(put.tasks.map((task) => task.title)).toEqual(["Put away"]);
  });
});
