import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { cleanBoardFilter, isFiltered, matchesBoardFilter, SEARCH_TEXT_CHARS } from "../../convex/lib/boardFilters";
import {
  AGENTS,
  columnTitles,
  createOtherAgent,
  createOtherTask,
  createTask,
  demoSquad,
  expectError,
  holdScheduledFunctions,
  memberKeyOf,
  signIn,
} from "./setup";

// Assigning schedules trigger functions; fake timers keep them queued.
holdScheduledFunctions();

async function board() {
  const { t, departmentId, admin, other } = await demoSquad({ other: true });
  await createTask(admin, departmentId, { title: "Launch email copy", tags: ["Copy", "email"], priority: "high", assigneeSessionKeys: [AGENTS.writer] });
  await createTask(admin, departmentId, { title: "Launch banner", tags: ["design"], priority: "low" });
  await createTask(admin, departmentId, { title: "Fix the signup bug", tags: ["api"], priority: "high", assigneeSessionKeys: [AGENTS.devBot] });
  return { t, departmentId, admin, other };
}

const allTitles = (columns: Array<{ tasks: Array<{ title: string }> }>) => columns.flatMap((column) => column.tasks.map((task) => task.title)).sort();

describe("cleanBoardFilter / matchesBoardFilter", () => {
  test("blank fields mean no filter; oversized ones are refused", () => {
    expect(cleanBoardFilter({ text: "  ", tag: "", assignee: " " })).toEqual({ text: undefined, tag: undefined, assignee: undefined, priority: undefined, mine: false, archived: false });
    expect(isFiltered(cleanBoardFilter({}))).toBe(false);
    expect(isFiltered(cleanBoardFilter({ mine: true }))).toBe(true);
    expect(isFiltered(cleanBoardFilter({ archived: true }))).toBe(true);
    expect(() => cleanBoardFilter({ text: "x".repeat(SEARCH_TEXT_CHARS + 1) })).toThrow(/Search text is 101 characters; the limit is 100/);
    expect(() => cleanBoardFilter({ tag: "t".repeat(33) })).toThrow(/the limit is 32/);
  });

  test("archived tasks match only the archived filter, which shows nothing else; deleted ones never match", () => {
    const live = { tags: [], assigneeSessionKeys: [], priority: "low" as const, createdBy: "member:u1" };
    const archived = { ...live, archivedAt: 1 };
    expect([live, archived].map((task) => matchesBoardFilter(task, cleanBoardFilter({}), "member:u1"))).toEqual([true, false]);
    expect([live, archived].map((task) => matchesBoardFilter(task, cleanBoardFilter({ archived: true }), "member:u1"))).toEqual([false, true]);
    expect(matchesBoardFilter({ ...archived, deletedAt: 2 }, cleanBoardFilter({ archived: true }), "member:u1")).toBe(false);
  });

  test("every set filter must pass; tags compare case-insensitively; mine is created or held", () => {
    const task = { tags: ["Copy"], assigneeSessionKeys: ["agent:a"], priority: "high" as const, createdBy: "member:u1" };
    expect(matchesBoardFilter(task, cleanBoardFilter({ tag: "copy", priority: "high", assignee: "agent:a" }), "member:u1")).toBe(true);
    expect(matchesBoardFilter(task, cleanBoardFilter({ tag: "copy", priority: "low" }), "member:u1")).toBe(false);
    expect(matchesBoardFilter(task, cleanBoardFilter({ assignee: "agent:b" }), "member:u1")).toBe(false);
    expect(matchesBoardFilter(task, cleanBoardFilter({ mine: true }), "member:u1")).toBe(true);
    expect(matchesBoardFilter(task, cleanBoardFilter({ mine: true }), "member:u2")).toBe(false);
    expect(matchesBoardFilter({ ...task, createdBy: "system", assigneeSessionKeys: ["member:u2"] }, cleanBoardFilter({ mine: true }), "member:u2")).toBe(true);
  });
});

describe("tasks.listColumn", () => {
  test("one column, in board order, the same cards tasks.list shows there", async () => {
    const { departmentId, admin } = await board();
    const inbox = await admin.query(api.tasks.listColumn, { departmentId, status: "inbox" });
    expect(inbox.status).toBe("inbox");
    expect(inbox.truncated).toBe(false);
    expect(inbox.tasks.map((task) => task.title)).toEqual(await columnTitles(admin, departmentId, "inbox"));
    expect(inbox.tasks.map((task) => task.title)).toContain("Launch banner");
  });

  test("text search goes through the title index, within the department, in column order", async () => {
    const { t, departmentId, admin, other } = await board();
    await createOtherTask(t, other.departmentId);
    await createTask(admin, departmentId, { title: "Launch party" });
    const inbox = await admin.query(api.tasks.listColumn, { departmentId, status: "inbox", text: "launch" });
    // "Landing page for the launch" (seeded) also matches; order is the column's.
    expect(inbox.tasks.map((task) => task.title)).toEqual(["Launch party", "Launch banner", "Landing page for the launch"]);
    const theirs = await other.member.query(api.tasks.listColumn, { departmentId: other.departmentId, status: "inbox", text: "launch" });
    expect(theirs.tasks).toEqual([]);
    const none = await admin.query(api.tasks.listColumn, { departmentId, status: "inbox", text: "zebra" });
    expect(none.tasks).toEqual([]);
  });

  test("assignee, tag, priority and mine narrow on the server", async () => {
    const { t, departmentId, admin } = await board();
    const grace = await signIn(t, "Grace");
    await createTask(grace, departmentId, { title: "Grace's note", tags: ["copy"] });

    const byWriter = await admin.query(api.tasks.list, { departmentId, assignee: AGENTS.writer });
    expect(allTitles(byWriter)).toContain("Launch email copy");
    expect(allTitles(byWriter)).not.toContain("Fix the signup bug");
    expect(byWriter.flatMap((column) => column.tasks).every((task) => task.assigneeSessionKeys.includes(AGENTS.writer))).toBe(true);

    // The seeded "Pricing page copy" is tagged "copy" too.
    expect(allTitles(await admin.query(api.tasks.list, { departmentId, tag: "COPY" }))).toEqual(["Grace's note", "Launch email copy", "Pricing page copy"]);
    const high = await admin.query(api.tasks.list, { departmentId, priority: "high" });
    expect(high.flatMap((column) => column.tasks).every((task) => task.priority === "high")).toBe(true);
    expect(allTitles(high)).toEqual(expect.arrayContaining(["Launch email copy", "Fix the signup bug"]));

    expect(allTitles(await grace.query(api.tasks.list, { departmentId, mine: true }))).toEqual(["Grace's note"]);
    expect(allTitles(await admin.query(api.tasks.list, { departmentId, mine: true, text: "launch" }))).toEqual(["Launch banner", "Launch email copy"]);
    expect(memberKeyOf(t, "Grace")).toMatch(/^member:/);
  });

  test("tasks.list with statuses returns only those columns, in board order", async () => {
    const { departmentId, admin } = await board();
    const columns = await admin.query(api.tasks.list, { departmentId, statuses: ["done", "inbox"] });
    expect(columns.map((column) => column.status)).toEqual(["inbox", "done"]);
  });

  test("another department's board or agent is FORBIDDEN; bad filters are refused clearly", async () => {
    const { t, departmentId, admin, other } = await board();
    const theirAgent = await createOtherAgent(t, other.departmentId);
    await expectError(admin.query(api.tasks.listColumn, { departmentId: other.departmentId, status: "inbox" }), "FORBIDDEN");
    await expectError(other.member.query(api.tasks.list, { departmentId, text: "launch" }), "FORBIDDEN");
    await expectError(admin.query(api.tasks.listColumn, { departmentId, status: "inbox", assignee: theirAgent }), "FORBIDDEN", /another department/);
    await expectError(admin.query(api.tasks.listColumn, { departmentId, status: "inbox", assignee: "agent:nobody:x" }), "INVALID_ARGUMENT", /Unknown assignee/);
    await expectError(admin.query(api.tasks.list, { departmentId, text: "x".repeat(101) }), "INVALID_ARGUMENT", /limit is 100/);
    await expectError(t.query(api.tasks.listColumn, { departmentId, status: "inbox" }), "UNAUTHENTICATED");
  });
});

describe("tasks.move before a named card (a filtered board)", () => {
  test("lands just before that card, whatever the position says", async () => {
    const { departmentId, admin } = await board();
    const inbox = await admin.query(api.tasks.listColumn, { departmentId, status: "inbox" });
    const [first, second] = inbox.tasks;
    const moved = await createTask(admin, departmentId, { title: "Moved" });
    await admin.mutation(api.tasks.move, { taskId: moved, status: "inbox", position: 0, beforeTaskId: second._id });
    expect((await columnTitles(admin, departmentId, "inbox")).slice(0, 3)).toEqual([first.title, "Moved", second.title]);
    await admin.mutation(api.tasks.move, { taskId: moved, status: "review", position: 0 });
    const review = await admin.query(api.tasks.listColumn, { departmentId, status: "review" });
    await admin.mutation(api.tasks.move, { taskId: first._id, status: "review", position: 99, beforeTaskId: review.tasks[0]._id });
    expect((await columnTitles(admin, departmentId, "review"))[0]).toBe(first.title);
  });

  test("refuses itself, a card of another department, a missing card, or one no longer in that column; nothing changes", async () => {
    const { t, departmentId, admin, other } = await board();
    const inbox = await admin.query(api.tasks.listColumn, { departmentId, status: "inbox" });
    const taskId = inbox.tasks[0]._id;
    const before = await columnTitles(admin, departmentId, "inbox");
    const theirs = await createOtherTask(t, other.departmentId);
    await expectError(admin.mutation(api.tasks.move, { taskId, status: "inbox", position: 0, beforeTaskId: taskId }), "INVALID_ARGUMENT", /before itself/);
    await expectError(admin.mutation(api.tasks.move, { taskId, status: "inbox", position: 0, beforeTaskId: theirs }), "FORBIDDEN");
    const gone = await t.run(async (ctx) => {
      const { _id, _creationTime, ...fields } = (await ctx.db.get("tasks", taskId))!;
      const id = await ctx.db.insert("tasks", { ...fields, title: "gone" });
      await ctx.db.delete("tasks", id);
      return id;
    });
    await expectError(admin.mutation(api.tasks.move, { taskId, status: "inbox", position: 0, beforeTaskId: gone }), "NOT_FOUND");
    const inReview = (await admin.query(api.tasks.listColumn, { departmentId, status: "review" })).tasks[0]._id;
    await expectError(admin.mutation(api.tasks.move, { taskId, status: "inbox", position: 0, beforeTaskId: inReview }), "CONFLICT", /no longer in that column/);
    expect(await columnTitles(admin, departmentId, "inbox")).toEqual(before);
  });
});
