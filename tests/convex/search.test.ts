import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { agentMatches, MAX_PALETTE_TASKS, queryTerms, textMatches } from "../../convex/search";
import { AGENTS, createOtherDepartment, createTask, demoSquad, expectError, insertRun, memberKeyOf, signIn } from "./setup";

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

describe("textMatches", () => {
  test("every term starts a word, channel names split at dashes and #", () => {
    expect(textMatches("#launch-copy", queryTerms("copy"))).toBe(true);
    expect(textMatches("Writer Hero copy run", queryTerms("writ hero"))).toBe(true);
    expect(textMatches("#launch-copy", queryTerms("opy"))).toBe(false);
  });

  test("words across a name's dashes, in the order typed or not, with or without its # or @", () => {
    for (const typed of ["launch room", "room launch", "#launch", "#launch room", "LAUNCH-ROOM"]) expect(textMatches("launch-room", queryTerms(typed)), typed).toBe(true);
    expect(agentMatches({ name: "Dev Bot", role: "Engineer" }, queryTerms("@dev"))).toBe(true);
    expect(textMatches("launch-room", queryTerms("launch rooms"))).toBe(false);
  });
});

describe("search.palette", () => {
  test("finds channels the caller can read, their DMs, and runs by agent and task", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    await admin.mutation(api.channels.create, { departmentId, name: "launch-copy", visibility: "project" });
    await admin.mutation(api.channels.create, { departmentId, name: "launch-secret", visibility: "private" });
    await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [memberKeyOf(t, "Grace")] });
    const hero = await createTask(admin, departmentId, { title: "Hero copy" });
    const run = await insertRun(t, AGENTS.writer, hero, "completed");

    const launch = await grace.query(api.search.palette, { departmentId, text: "launch" });
    expect(launch.channels.map((c) => c.title)).toEqual(["#launch-copy"]); // not the private one
    expect((await admin.query(api.search.palette, { departmentId, text: "launch" })).channels.map((c) => c.title)).toEqual(["#launch-copy", "#launch-secret"]);
    expect((await grace.query(api.search.palette, { departmentId, text: "ada" })).channels).toEqual([expect.objectContaining({ kind: "dm", title: "Ada" })]);
    expect((await grace.query(api.search.palette, { departmentId, text: "writer hero" })).runs).toEqual([
      { _id: run, agentName: "Writer", taskTitle: "Hero copy", status: "completed" },
    ]);
    // An empty query offers the latest runs and the channels too.
    const empty = await grace.query(api.search.palette, { departmentId, text: "" });
    expect(empty.runs.map((r) => r._id)).toEqual([run]);
    expect(empty.channels.map((c) => c.title)).toEqual(["#launch-copy"]);
  });

  test("finds an agent's or a task's run however many newer runs the department has", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const hero = await createTask(admin, departmentId, { title: "Hero copy" });
    const old = await insertRun(t, AGENTS.writer, hero, "completed");
    // Newer runs of another agent on another task: more than a scan of the newest runs ever looked at.
    const busy = await createTask(admin, departmentId, { title: "Busy work" });
    for (let i = 0; i < 220; i++) await insertRun(t, AGENTS.devBot, busy, "completed");
    expect((await admin.query(api.search.palette, { departmentId, text: "writer hero" })).runs.map((r) => r._id)).toEqual([old]);
    expect((await admin.query(api.search.palette, { departmentId, text: "hero" })).runs.map((r) => r._id)).toEqual([old]);
    expect((await admin.query(api.search.palette, { departmentId, text: "writer" })).runs.map((r) => r._id)).toEqual([old]);
    // No words, or only "run": the newest runs, a handful.
    const newest = await admin.query(api.search.palette, { departmentId, text: "run" });
    expect(newest.runs).toHaveLength(5);
    expect(newest.runs.every((r) => r.agentName === "Dev Bot")).toBe(true);
  });

  test("finds tasks by title words and agents by name, in the caller's department only", async () => {
    const { departmentId, admin, other } = await demoSquad({ other: true });
    await createTask(other.member, other.departmentId, { title: "Pricing page elsewhere" });
    const found = await admin.query(api.search.palette, { departmentId, text: "pricing" });
    expect(found.tasks.map((task) => task.title)).toEqual(["Pricing page copy"]);
    expect(found.agents).toEqual([]);

    const writer = await admin.query(api.search.palette, { departmentId, text: "  writ " });
    expect(writer.agents.map((agent) => agent.name)).toEqual(["Writer"]);
  });

  test("an empty query lists the squad and no tasks; results are bounded", async () => {
    const { departmentId, admin } = await demoSquad();
    const empty = await admin.query(api.search.palette, { departmentId, text: "" });
    expect(empty.tasks).toEqual([]);
    expect(empty.agents.map((agent) => agent.name).sort()).toEqual(["Archie", "Dev Bot", "Jarvis", "Writer"]);
    for (let i = 0; i < MAX_PALETTE_TASKS + 3; i++) await createTask(admin, departmentId, { title: `Launch step ${i}` });
    const many = await admin.query(api.search.palette, { departmentId, text: "launch" });
    expect(many.tasks).toHaveLength(MAX_PALETTE_TASKS);
  });

  test("a viewer may search; someone from another department may not", async () => {
    const { t, departmentId } = await demoSquad();
    const vera = await signIn(t, "Vera", "viewer");
    expect((await vera.query(api.search.palette, { departmentId, text: "pricing" })).tasks).toHaveLength(1);
    const other = await createOtherDepartment(t);
    await expectError(other.member.query(api.search.palette, { departmentId, text: "pricing" }), "FORBIDDEN");
  });
});
