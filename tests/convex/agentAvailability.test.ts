/**
 * `agents.setStatus` has a use: an owner or admin takes an agent offline
 * (no new run of it starts; its squad lead's roster shows it offline, per
 * the delegation spec's `=== SQUAD ROSTER ===` of name, role and status)
 * and brings it back. "active" and "blocked" stay the brain's.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { api } from "../../convex/_generated/api";
import { AGENTS, allTriggers, createTask, demoSquad, runScheduled } from "./setup";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

async function squad() {
  const { t, departmentId, admin, grace, vera } = await demoSquad({ grace: true, vera: true });
  const roster = await admin.query(api.agents.list, { departmentId });
  const idOf = (name: string) => roster.find((a) => a.name === name)!._id;
  return { t, departmentId, admin, grace, vera, idOf };
}

describe("taking an agent offline", () => {
  test("offline and back; the brain's own statuses are not a person's to set, and an agent at work stays at work", async () => {
    const { t, departmentId, admin, idOf } = await squad();
    const agentId = idOf("Jarvis");
    await admin.mutation(api.agents.setStatus, { agentId, status: "offline" });
    expect((await admin.query(api.agents.list, { departmentId })).find((a) => a._id === agentId)!.status).toBe("offline");
    await admin.mutation(api.agents.setStatus, { agentId, status: "idle" });
    expect((await admin.query(api.agents.list, { departmentId })).find((a) => a._id === agentId)!.status).toBe("idle");
    // @ts-expect-error: "active" is the brain's
    await expect(admin.mutation(api.agents.setStatus, { agentId, status: "active" })).rejects.toThrow(/Validator/i);
    await t.run(async (ctx) => await ctx.db.patch("agents", agentId, { status: "active" }));
    await admin.mutation(api.agents.setStatus, { agentId, status: "idle" });
    expect((await admin.query(api.agents.list, { departmentId })).find((a) => a._id === agentId)!.status).toBe("active");
  });

  test("an agent taken offline starts no run when mentioned; a member or viewer cannot take one offline", async () => {
    const { t, departmentId, admin, grace, vera, idOf } = await squad();
    await expect(grace.mutation(api.agents.setStatus, { agentId: idOf("Writer"), status: "offline" })).rejects.toThrow(/Only/);
    await expect(vera.mutation(api.agents.setStatus, { agentId: idOf("Writer"), status: "offline" })).rejects.toThrow(/Only/);
    await admin.mutation(api.agents.setStatus, { agentId: idOf("Writer"), status: "offline" });
    const taskId = await createTask(admin, departmentId, { title: "Copy for the launch" });
    await admin.mutation(api.messages.create, { taskId, content: "@Writer draft the hero line" });
    await runScheduled(t);
    const triggers = await allTriggers(t);
    expect(triggers.filter((tr) => tr.agentSessionKey === AGENTS.writer).map((tr) => [tr.status, tr.note])).toEqual([["consumed", "Writer is offline"]]);
    expect((await t.run(async (ctx) => await ctx.db.query("runs").collect())).filter((r) => r.agentSessionKey === AGENTS.writer)).toEqual([]);
  });
});
