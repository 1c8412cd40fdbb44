import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { agentMatches, MAX_PALETTE_TASKS, queryTerms } from "../../convex/search";
import { createOtherDepartment, createTask, expectError, seedDemoWithAdmin, setupTest, signIn } from "./setup";

describe("agentMatches", () => {
  test("every term starts a word of the name or role", () => {
    const devBot = { name: "Dev Bot", role: "Full-stack Engineer" };
    expect(agentMatches(devBot, queryTerms("dev"))).toBe(true);
    expect(agentMatches(devBot, queryTerms("BOT eng"))).toBe(true);
    expect(agentMatches(devBot, queryTerms("stack"))).toBe(true);
    expect(agentMatches(devBot, queryTerms("ot"))).toBe(false);
    expect(agentMatches(devBot, queryTerms("dev writer"))).toBe(false);
  });
});

describe("search.palette", () => {
  test("finds tasks by title words and agents by name, in the caller's department only", async () => {
    const t = setupTest();
    const { departmentId, admin } = await seedDemoWithAdmin(t);
    const other = await createOtherDepartment(t);
    await createTask(other.member, other.departmentId, { title: "Pricing page elsewhere" });
    const found = await admin.query(api.search.palette, { departmentId, text: "pricing" });
    expect(found.tasks.map((task) => task.title)).toEqual(["Pricing page copy"]);
    expect(found.agents).toEqual([]);

    const writer = await admin.query(api.search.palette, { departmentId, text: "  writ " });
    expect(writer.agents.map((agent) => agent.name)).toEqual(["Writer"]);
  });

  test("an empty query lists the squad and no tasks; results are bounded", async () => {
    const t = setupTest();
    const { departmentId, admin } = await seedDemoWithAdmin(t);
    const empty = await admin.query(api.search.palette, { departmentId, text: "" });
    expect(empty.tasks).toEqual([]);
    expect(empty.agents.map((agent) => agent.name).sort()).toEqual(["Archie", "Dev Bot", "Jarvis", "Writer"]);
    for (let i = 0; i < MAX_PALETTE_TASKS + 3; i++) await createTask(admin, departmentId, { title: `Launch step ${i}` });
    const many = await admin.query(api.search.palette, { departmentId, text: "launch" });
    expect(many.tasks).toHaveLength(MAX_PALETTE_TASKS);
  });

  test("a viewer may search; someone from another department may not", async () => {
    const t = setupTest();
    const { departmentId } = await seedDemoWithAdmin(t);
    const vera = await signIn(t, "Vera", "viewer");
    expect((await vera.query(api.search.palette, { departmentId, text: "pricing" })).tasks).toHaveLength(1);
    const other = await createOtherDepartment(t);
    await expectError(other.member.query(api.search.palette, { departmentId, text: "pricing" }), "FORBIDDEN");
  });
});
