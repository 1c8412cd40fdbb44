import { expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import { asUser, createOtherDepartment, demoSquad, setupTest } from "./setup";

test("seed.demo creates the demo squad once", async () => {
  const t = setupTest();
  const first = await t.mutation(internal.seed.demo, {});
  const second = await t.mutation(internal.seed.demo, {});
  expect(second).toEqual(first);
  const counts = await t.run(async (ctx) => ({
    departments: (await ctx.db.query("departments").collect()).length,
    agents: (await ctx.db.query("agents").collect()).length,
    tasks: (await ctx.db.query("tasks").collect()).length,
  }));
  expect(counts).toEqual({ departments: 1, agents: 4, tasks: 5 });
});

test("departments.listMine: each person's departments with their role; a newcomer has none; anonymous callers refused", async () => {
  const { t, departmentId, admin } = await demoSquad();
  expect(await admin.query(api.departments.listMine, {})).toEqual([{ _id: departmentId, name: "Product Squad", slug: "product", role: "admin" }]);
  const grace = await asUser(t, "Grace");
  expect(await grace.query(api.departments.listMine, {})).toEqual([]);
  await expect(t.query(api.departments.listMine, {})).rejects.toThrow(/UNAUTHENTICATED/);
});

test("tasks.list: columns in order with the seeded cards; other departments and anonymous callers refused", async () => {
  const { t, departmentId, admin } = await demoSquad();
  const columns = await admin.query(api.tasks.list, { departmentId });
  expect(columns.map((c) => c.status)).toEqual(["inbox", "assigned", "in_progress", "review", "done", "blocked"]);
  expect(columns.map((c) => c.tasks.length)).toEqual([1, 1, 1, 1, 1, 0]);
  expect(columns[1].tasks[0]).toMatchObject({ title: "Pricing page copy", assigneeSessionKeys: ["agent:writer:product"] });

  const other = await createOtherDepartment(t);
  await expect(other.member.query(api.tasks.list, { departmentId })).rejects.toThrow(/FORBIDDEN/);
  await expect(admin.query(api.tasks.list, { departmentId: other.departmentId })).rejects.toThrow(/FORBIDDEN/);
  await expect(t.query(api.tasks.list, { departmentId })).rejects.toThrow(/UNAUTHENTICATED/);
});

test("agents.list: the roster sorted by name with the squad lead flagged; scoped to members", async () => {
  const { t, departmentId, admin } = await demoSquad();
  const roster = await admin.query(api.agents.list, { departmentId });
  expect(roster.map((a) => a.name)).toEqual(["Archie", "Dev Bot", "Jarvis", "Writer"]);
  expect(roster.find((a) => a.isSquadLead)?.sessionKey).toBe("agent:jarvis:product");
  const other = await createOtherDepartment(t);
  await expect(other.member.query(api.agents.list, { departmentId })).rejects.toThrow(/FORBIDDEN/);
  await expect(t.query(api.agents.list, { departmentId })).rejects.toThrow(/UNAUTHENTICATED/);
});
