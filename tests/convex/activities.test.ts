import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { createTask, demoSquad, expectError, userIdOf } from "./setup";

describe("activities.list", () => {
  test("the department's feed, newest first, a page at a time", async () => {
    const { t, departmentId, admin } = await demoSquad({ other: true });
    for (const title of ["A", "B", "C"]) await createTask(admin, departmentId, { title });
    const first = await admin.query(api.activities.list, { departmentId, paginationOpts: { numItems: 2, cursor: null } });
    expect(first.page.map((a) => [a.type, a.data.title ?? a.data.name])).toEqual([
      ["task_created", "C"],
      ["task_created", "B"],
    ]);
    expect(first.page[0]).toEqual({
      _id: expect.any(String),
      _creationTime: expect.any(Number),
      type: "task_created",
      actor: { kind: "member", userId: userIdOf(t, "Ada"), name: "Ada" },
      taskId: expect.any(String),
      data: { title: "C" },
    });
    expect(first.isDone).toBe(false);
    const second = await admin.query(api.activities.list, { departmentId, paginationOpts: { numItems: 2, cursor: first.continueCursor } });
    expect(second.page.map((a) => [a.type, a.data.title ?? a.data.name])).toEqual([
      ["task_created", "A"],
      ["member_joined", "Ada"],
    ]);
    const third = await admin.query(api.activities.list, { departmentId, paginationOpts: { numItems: 2, cursor: second.continueCursor } });
    expect(third.page).toEqual([]);
    expect(third.isDone).toBe(true);
    for (let i = 1; i < first.page.length; i++) expect(first.page[i]._creationTime).toBeLessThan(first.page[i - 1]._creationTime);
  });

  test("each department sees only its own feed", async () => {
    const { departmentId, admin, other } = await demoSquad({ other: true });
    await createTask(admin, departmentId, { title: "Ours" });
    await createTask(other.member, other.departmentId, { title: "Theirs" });
    const theirs = await other.member.query(api.activities.list, { departmentId: other.departmentId, paginationOpts: { numItems: 100, cursor: null } });
    expect(theirs.page.map((a) => a.data.title ?? a.data.name)).toEqual(["Theirs", "Mallory"]);
    const ours = await admin.query(api.activities.list, { departmentId, paginationOpts: { numItems: 100, cursor: null } });
    expect(ours.page.map((a) => a.data.title ?? null)).not.toContain("Theirs");
  });

  test("page sizes outside 1..100 are refused", async () => {
    const { departmentId, admin } = await demoSquad({ other: true });
    for (const numItems of [101, 0, -1, 1.5]) {
      await expectError(
        admin.query(api.activities.list, { departmentId, paginationOpts: { numItems, cursor: null } }),
        "INVALID_ARGUMENT",
        "Page size must be between 1 and 100.",
      );
    }
    const page = await admin.query(api.activities.list, { departmentId, paginationOpts: { numItems: 100, cursor: null } });
    expect(page.page.length).toBeGreaterThan(0);
  });

  test("anonymous callers and other departments are refused", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    const paginationOpts = { numItems: 10, cursor: null };
    await expectError(t.query(api.activities.list, { departmentId, paginationOpts }), "UNAUTHENTICATED");
    await expectError(other.member.query(api.activities.list, { departmentId, paginationOpts }), "FORBIDDEN");
    await expectError(admin.query(api.activities.list, { departmentId: other.departmentId, paginationOpts }), "FORBIDDEN");
  });
});
