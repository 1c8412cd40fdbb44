import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { asUser, demoSquad, expectError, memberKeyOf, setupTest, userIdOf } from "./setup";

describe("departments.listMine", () => {
  test("the caller's departments with their role; other people's departments are not listed; anonymous callers get none", async () => {
    const { t, departmentId, admin, grace, other } = await demoSquad({ grace: true, other: true });
    expect(await admin.query(api.departments.listMine, {})).toEqual([{ _id: departmentId, name: "Product Squad", slug: "product", role: "admin" }]);
    expect(await grace.query(api.departments.listMine, {})).toEqual([{ _id: departmentId, name: "Product Squad", slug: "product", role: "member" }]);
    expect(await other.member.query(api.departments.listMine, {})).toEqual([{ _id: other.departmentId, name: "Other", slug: "other", role: "admin" }]);
    await expectError(t.query(api.departments.listMine, {}), "UNAUTHENTICATED");
    expect(await (await asUser(t, "Stranger")).query(api.departments.listMine, {})).toEqual([]);
  });
});

describe("departments.create", () => {
  test("an admin creates a department whose creator is its only member and owner, and records them joining", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const designId = await admin.mutation(api.departments.create, { name: "  Design Crew " });
    expect(await admin.query(api.departments.listMine, {})).toEqual([
      { _id: departmentId, name: "Product Squad", slug: "product", role: "admin" },
      { _id: designId, name: "Design Crew", slug: "design-crew", role: "owner" },
    ]);
    expect(await grace.query(api.departments.listMine, {})).toHaveLength(1);
    expect(await admin.query(api.members.list, { departmentId: designId })).toEqual([
      { _id: expect.any(String), userId: userIdOf(t, "Ada"), name: "Ada", email: "ada@example.com", role: "owner", key: memberKeyOf(t, "Ada") },
    ]);
    const feed = await admin.query(api.activities.list, { departmentId: designId, paginationOpts: { numItems: 10, cursor: null } });
    expect(feed.page.map((a) => [a.type, a.data])).toEqual([["member_joined", { name: "Ada", role: "owner" }]]);
    const chat = await t.run(async (ctx) => (await ctx.db.get("departments", designId))!.chatSessionId);
    expect(chat).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("a new department starts with Jarvis as its squad lead, allowed delegate_task; the demo specialists are one click away for its admins", async () => {
    const { admin, grace, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    const designId = await admin.mutation(api.departments.create, { name: "Design" });
    const roster = await admin.query(api.agents.list, { departmentId: designId });
    expect(roster.map((a) => [a.name, a.isSquadLead, a.sessionKey])).toEqual([["Jarvis", true, "agent:jarvis:design"]]);
    expect(roster[0].allowedTools).toContain("delegate_task");

    // Members, viewers, and other departments' admins may not add them.
    for (const caller of [grace, vera, other.member]) await expectError(caller.mutation(api.agents.addDemoSpecialists, { departmentId: designId }), "FORBIDDEN");
    expect(await admin.mutation(api.agents.addDemoSpecialists, { departmentId: designId })).toEqual(["Dev Bot", "Writer", "Archie"]);
    const squad = await admin.query(api.agents.list, { departmentId: designId });
    expect(squad.map((a) => a.name).sort()).toEqual(["Archie", "Dev Bot", "Jarvis", "Writer"]);
    expect(squad.filter((a) => a.isSquadLead).map((a) => a.name)).toEqual(["Jarvis"]);
    // Twice is once; a name already taken is left alone.
    expect(await admin.mutation(api.agents.addDemoSpecialists, { departmentId: designId })).toEqual([]);
    const feed = await admin.query(api.activities.list, { departmentId: designId, paginationOpts: { numItems: 10, cursor: null } });
    expect(feed.page.filter((a) => a.type === "agent_created").map((a) => a.data.name).sort()).toEqual(["Archie", "Dev Bot", "Writer"]);
  });

  test("a department's board is closed to people who are not in it", async () => {
    const { admin, grace } = await demoSquad({ grace: true });
    const designId = await admin.mutation(api.departments.create, { name: "Design" });
    await expectError(grace.query(api.tasks.list, { departmentId: designId }), "FORBIDDEN");
    await expectError(grace.mutation(api.tasks.create, { departmentId: designId, title: "Mine now" }), "FORBIDDEN");
  });

  test("members, viewers and people of no department cannot create one; the owner of a deployment with none can", async () => {
    const { t, grace, vera } = await demoSquad({ grace: true, vera: true });
    for (const caller of [grace, vera, await asUser(t, "Stranger")]) {
      await expectError(caller.mutation(api.departments.create, { name: "Shadow IT" }), "FORBIDDEN", /ask one of them for an invite/);
    }
    expect(await t.run(async (ctx) => (await ctx.db.query("departments").collect()).length)).toBe(1);
    // A fresh deployment with no department: its first account (the owner) makes the first one; nobody else may.
    const fresh = setupTest();
    const owner = await asUser(fresh, "Olive");
    const later = await asUser(fresh, "Lars");
    await expectError(later.mutation(api.departments.create, { name: "First" }), "FORBIDDEN");
    await owner.mutation(api.departments.create, { name: "First" });
    expect(await owner.query(api.departments.listMine, {})).toEqual([expect.objectContaining({ name: "First", role: "owner" })]);
  });

  test("anonymous callers are refused", async () => {
    const t = setupTest();
    await expectError(t.mutation(api.departments.create, { name: "Design" }), "UNAUTHENTICATED");
    expect(await t.run(async (ctx) => await ctx.db.query("departments").collect())).toEqual([]);
  });

  test("bad input: empty, oversized or letterless names; a name whose slug is taken is a CONFLICT", async () => {
    const { admin } = await demoSquad();
    await expectError(admin.mutation(api.departments.create, { name: "  " }), "INVALID_ARGUMENT", "Department name must not be empty.");
    await expectError(admin.mutation(api.departments.create, { name: "d".repeat(81) }), "INVALID_ARGUMENT", /limit is 80/);
    await expectError(admin.mutation(api.departments.create, { name: "!!!" }), "INVALID_ARGUMENT", /at least one letter or digit/);
    await expectError(
      admin.mutation(api.departments.create, { name: "PRODUCT!" }),
      "CONFLICT",
      "A department called Product Squad already exists.",
    );
    expect(await admin.query(api.departments.listMine, {})).toHaveLength(1);
  });
});
