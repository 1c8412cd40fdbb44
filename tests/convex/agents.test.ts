import { describe, expect, test } from "vitest";
import type { FunctionArgs } from "convex/server";
import { api } from "../../convex/_generated/api";
import { MAX_AGENTS_PER_DEPARTMENT } from "../../convex/lib/limits";
import type { Id } from "../../convex/_generated/dataModel";
import { approvalPolicy, needsApproval, TOOL_REGISTRY } from "../../convex/tools/registry";
import { AGENTS, createTask, demoSquad, expectError, insertRun, type TestConvex } from "./setup";

type AgentFields = Omit<FunctionArgs<typeof api.agents.create>, "departmentId">;

const PIXEL: AgentFields = {
  name: "Pixel",
  role: "Designer",
  kind: "designer",
  systemPrompt: "You are Pixel.",
  isSquadLead: false,
  allowedTools: ["post_message", "update_task_status"],
};

async function squad() {
  const { t, departmentId, admin, grace, other } = await demoSquad({ grace: true, other: true });
  const roster = await admin.query(api.agents.list, { departmentId });
  const idOf = (name: string) => roster.find((a) => a.name === name)!._id;
  return { t, departmentId, admin, grace, other, idOf };
}

async function agentActivities(t: TestConvex) {
  return await t.run(async (ctx) =>
    (await ctx.db.query("activities").collect()).filter((a) => a.type.startsWith("agent_")).map((a) => ({ type: a.type, data: a.data })),
  );
}

async function deletedAgentId(t: TestConvex, departmentId: Id<"departments">) {
  return await t.run(async (ctx) => {
    const id = await ctx.db.insert("agents", { ...PIXEL, departmentId, nameKey: "pixel", sessionKey: "agent:pixel:gone", status: "idle" });
    await ctx.db.delete("agents", id);
    return id;
  });
}

describe("agents.list", () => {
  test("every member sees the full roster; anonymous callers and other departments are refused", async () => {
    const { t, departmentId, grace, other } = await squad();
    const roster = await grace.query(api.agents.list, { departmentId });
    expect(roster.find((a) => a.name === "Dev Bot")).toEqual({
      _id: expect.any(String),
      name: "Dev Bot",
      role: "Full-stack Engineer",
      kind: "coder",
      sessionKey: AGENTS.devBot,
      status: "idle",
      isSquadLead: false,
      allowedTools: ["post_message", "update_task_status", "ask_question", "chat.post", "chat.getNew"],
      systemPrompt: "You are Dev Bot, a pragmatic full-stack engineer.",
    });
    await expectError(t.query(api.agents.list, { departmentId }), "UNAUTHENTICATED");
    await expectError(other.member.query(api.agents.list, { departmentId }), "FORBIDDEN");
    expect(await other.member.query(api.agents.list, { departmentId: other.departmentId })).toEqual([]);
  });
});

describe("agents.create", () => {
  test("an admin adds an idle agent with a session key from its name; activity recorded; blank model dropped; tools de-duplicated", async () => {
    const { t, departmentId, admin } = await squad();
    const agentId = await admin.mutation(api.agents.create, {
      departmentId,
      ...PIXEL,
      name: "  Pixel Perfect ",
      model: " ",
      allowedTools: ["post_message", "post_message", "chat.post"],
    });
    const roster = await admin.query(api.agents.list, { departmentId });
    expect(roster.map((a) => a.name)).toEqual(["Archie", "Dev Bot", "Jarvis", "Pixel Perfect", "Writer"]);
    const pixel = roster.find((a) => a._id === agentId)!;
    expect(pixel).toMatchObject({ sessionKey: "agent:pixel-perfect:product", status: "idle", allowedTools: ["post_message", "chat.post"] });
    expect(pixel).not.toHaveProperty("model");
    expect(await agentActivities(t)).toEqual([{ type: "agent_created", data: { name: "Pixel Perfect", role: "Designer" } }]);
  });

  test("a department holds at most MAX_AGENTS_PER_DEPARTMENT agents: one more is refused with the reason, and nothing is added", async () => {
    const { t, departmentId, admin } = await squad();
    const seeded = (await admin.query(api.agents.list, { departmentId })).length;
    await t.run(async (ctx) => {
      for (let i = seeded; i < MAX_AGENTS_PER_DEPARTMENT; i++) {
        await ctx.db.insert("agents", { departmentId, name: `Filler ${i}`, nameKey: `filler ${i}`, role: "Specialist", kind: "specialist", systemPrompt: "", isSquadLead: false, allowedTools: [], sessionKey: `agent:filler-${i}:product`, status: "idle" });
      }
    });
    await expectError(
      admin.mutation(api.agents.create, { departmentId, ...PIXEL }),
      "INVALID_ARGUMENT",
      `A department holds at most ${MAX_AGENTS_PER_DEPARTMENT} agents: remove one before adding another.`,
    );
    const count = await t.run(async (ctx) => (await ctx.db.query("agents").withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId)).collect()).length);
    expect(count).toBe(MAX_AGENTS_PER_DEPARTMENT);
  });

  test("a new squad lead takes the flag from the old one", async () => {
    const { departmentId, admin } = await squad();
    await admin.mutation(api.agents.create, { departmentId, ...PIXEL, kind: "lead", isSquadLead: true, model: "gpt-5" });
    const leads = (await admin.query(api.agents.list, { departmentId })).filter((a) => a.isSquadLead);
    expect(leads).toMatchObject([{ name: "Pixel", model: "gpt-5" }]);
  });

  test("non-admins, anonymous callers and admins of other departments are refused", async () => {
    const { t, departmentId, grace, other } = await squad();
    await expectError(grace.mutation(api.agents.create, { departmentId, ...PIXEL }), "FORBIDDEN", "Only owners and admins can do this.");
    await expectError(t.mutation(api.agents.create, { departmentId, ...PIXEL }), "UNAUTHENTICATED");
    await expectError(other.member.mutation(api.agents.create, { departmentId, ...PIXEL }), "FORBIDDEN");
    expect((await grace.query(api.agents.list, { departmentId })).map((a) => a.name)).not.toContain("Pixel");
  });

  test("an unknown tool is named; two unknown tools are both named", async () => {
    const { departmentId, admin } = await squad();
    await expectError(
      admin.mutation(api.agents.create, { departmentId, ...PIXEL, allowedTools: ["post_message", "rm_rf"] }),
      "INVALID_ARGUMENT",
      "Unknown tool in allowedTools: rm_rf.",
    );
    await expectError(
      admin.mutation(api.agents.create, { departmentId, ...PIXEL, allowedTools: ["rm_rf", "Post_Message"] }),
      "INVALID_ARGUMENT",
      "Unknown tools in allowedTools: rm_rf, Post_Message.",
    );
  });

  test("a name already taken, in any case or by its session key, is a CONFLICT", async () => {
    const { departmentId, admin } = await squad();
    await expectError(
      admin.mutation(api.agents.create, { departmentId, ...PIXEL, name: "dev BOT" }),
      "CONFLICT",
      "An agent called Dev Bot already exists in this department.",
    );
    await expectError(admin.mutation(api.agents.create, { departmentId, ...PIXEL, name: "JARVIS" }), "CONFLICT", /Jarvis/);
    await expectError(admin.mutation(api.agents.create, { departmentId, ...PIXEL, name: "Dev-Bot" }), "CONFLICT", /agent:dev-bot:product/);
  });

  test("bad input: empty or oversized fields, and a name with no letter or digit", async () => {
    const { departmentId, admin } = await squad();
    const create = (fields: Partial<AgentFields>) => admin.mutation(api.agents.create, { departmentId, ...PIXEL, ...fields });
    await expectError(create({ name: " " }), "INVALID_ARGUMENT", "Name must not be empty.");
    await expectError(create({ name: "n".repeat(61) }), "INVALID_ARGUMENT", /limit is 60/);
    await expectError(create({ role: "" }), "INVALID_ARGUMENT", "Role must not be empty.");
    await expectError(create({ role: "r".repeat(81) }), "INVALID_ARGUMENT", /limit is 80/);
    await expectError(create({ model: "m".repeat(121) }), "INVALID_ARGUMENT", /limit is 120/);
    await expectError(create({ systemPrompt: "p".repeat(20_001) }), "INVALID_ARGUMENT", /limit is 20000/);
    await expectError(create({ name: "!!!" }), "INVALID_ARGUMENT", /at least one letter or digit/);
    expect(await admin.query(api.agents.list, { departmentId })).toHaveLength(4);
  });
});

describe("agents.update", () => {
  test("an admin edits an agent; its session key survives a rename; it can keep its own name in another case", async () => {
    const { t, departmentId, admin, idOf } = await squad();
    const writerId = idOf("Writer");
    await admin.mutation(api.agents.update, {
      agentId: writerId,
      ...PIXEL,
      name: "Scribe",
      role: "Copywriter",
      kind: "writer",
      allowedTools: ["post_message", "chat.post"],
    });
    const scribe = (await admin.query(api.agents.list, { departmentId })).find((a) => a._id === writerId)!;
    expect(scribe).toMatchObject({ name: "Scribe", sessionKey: AGENTS.writer, allowedTools: ["post_message", "chat.post"] });
    await admin.mutation(api.agents.update, { agentId: writerId, ...PIXEL, name: "SCRIBE", role: "Copywriter", kind: "writer" });
    expect(await agentActivities(t)).toEqual([
      { type: "agent_updated", data: { name: "Scribe", allowedTools: "post_message, chat.post" } },
      { type: "agent_updated", data: { name: "SCRIBE", allowedTools: "post_message, update_task_status" } },
    ]);
  });

  test("making another agent squad lead clears the flag from Jarvis", async () => {
    const { departmentId, admin, idOf } = await squad();
    await admin.mutation(api.agents.update, { agentId: idOf("Archie"), ...PIXEL, name: "Archie", isSquadLead: true });
    const leads = (await admin.query(api.agents.list, { departmentId })).filter((a) => a.isSquadLead).map((a) => a.name);
    expect(leads).toEqual(["Archie"]);
  });

  test("non-admins, anonymous callers and other departments are refused; unknown agents are NOT_FOUND", async () => {
    const { t, departmentId, grace, other, idOf } = await squad();
    const agentId = idOf("Archie");
    await expectError(grace.mutation(api.agents.update, { agentId, ...PIXEL }), "FORBIDDEN");
    await expectError(t.mutation(api.agents.update, { agentId, ...PIXEL }), "UNAUTHENTICATED");
    await expectError(other.member.mutation(api.agents.update, { agentId, ...PIXEL }), "FORBIDDEN");
    const gone = await deletedAgentId(t, departmentId);
    await expectError(grace.mutation(api.agents.update, { agentId: gone, ...PIXEL }), "NOT_FOUND", "Agent not found.");
    await expectError(t.mutation(api.agents.update, { agentId: gone, ...PIXEL }), "UNAUTHENTICATED");
    expect((await grace.query(api.agents.list, { departmentId })).find((a) => a._id === agentId)!.name).toBe("Archie");
  });

  test("bad input: another agent's name, unknown tools, empty name", async () => {
    const { departmentId, admin, idOf } = await squad();
    const agentId = idOf("Archie");
    await expectError(admin.mutation(api.agents.update, { agentId, ...PIXEL, name: "writer" }), "CONFLICT", /Writer/);
    await expectError(
      admin.mutation(api.agents.update, { agentId, ...PIXEL, name: "Archie", allowedTools: ["launch_missiles"] }),
      "INVALID_ARGUMENT",
      /launch_missiles/,
    );
    await expectError(admin.mutation(api.agents.update, { agentId, ...PIXEL, name: "" }), "INVALID_ARGUMENT", /Name/);
    expect((await admin.query(api.agents.list, { departmentId })).find((a) => a._id === agentId)!.name).toBe("Archie");
  });
});

describe("agents.setStatus", () => {
  test("an admin sets an agent's status and the change is recorded once", async () => {
    const { t, departmentId, admin, idOf } = await squad();
    const agentId = idOf("Jarvis");
    await admin.mutation(api.agents.setStatus, { agentId, status: "offline" });
    await admin.mutation(api.agents.setStatus, { agentId, status: "offline" });
    expect((await admin.query(api.agents.list, { departmentId })).find((a) => a._id === agentId)!.status).toBe("offline");
    expect(await agentActivities(t)).toEqual([{ type: "agent_status_changed", data: { name: "Jarvis", from: "idle", to: "offline" } }]);
  });

  test("non-admins, anonymous callers and other departments are refused; unknown agents are NOT_FOUND", async () => {
    const { t, departmentId, admin, grace, other, idOf } = await squad();
    const agentId = idOf("Jarvis");
    await expectError(grace.mutation(api.agents.setStatus, { agentId, status: "offline" }), "FORBIDDEN");
    await expectError(t.mutation(api.agents.setStatus, { agentId, status: "offline" }), "UNAUTHENTICATED");
    await expectError(other.member.mutation(api.agents.setStatus, { agentId, status: "offline" }), "FORBIDDEN");
    const gone = await deletedAgentId(t, departmentId);
    await expectError(admin.mutation(api.agents.setStatus, { agentId: gone, status: "offline" }), "NOT_FOUND");
    // @ts-expect-error: not a status
    await expect(admin.mutation(api.agents.setStatus, { agentId, status: "asleep" })).rejects.toThrow(/Validator/i);
    expect((await admin.query(api.agents.list, { departmentId })).find((a) => a._id === agentId)!.status).toBe("idle");
  });
});

describe("tools.registry.list", () => {
  test("signed-in people get the registry the agent modal shows; anonymous callers are refused", async () => {
    const { t, grace, departmentId } = await squad();
    const tools = await grace.query(api.tools.registry.list, { departmentId });
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_REGISTRY.map((tool) => tool.name));
    expect(tools.every((tool) => tool.description.length > 0)).toBe(true);
    await expectError(t.query(api.tools.registry.list, { departmentId }), "UNAUTHENTICATED");
  });
});

describe("per-agent, per-tool approval policies", () => {
  test("stored on the agent as set in the modal; defaults come from the registry and are not stored", async () => {
    const { t, departmentId, admin, grace } = await squad();
    const agentId = await admin.mutation(api.agents.create, {
      departmentId,
      ...PIXEL,
      name: "Newbie",
      allowedTools: ["delegate_task", "post_message", "update_task_status"],
      toolApprovals: [
        { tool: "delegate_task", policy: "always" },
        { tool: "post_message", policy: "never" },
        { tool: "update_task_status", policy: "high_priority" },
      ],
    });
    // post_message's "never" is its default: not stored, so a later default reaches this agent.
    expect(await grace.query(api.agents.toolApprovals, { agentId })).toEqual([
      { tool: "delegate_task", policy: "always" },
      { tool: "update_task_status", policy: "high_priority" },
    ]);
    const agent = await t.run(async (ctx) => (await ctx.db.get("agents", agentId))!);
    expect(approvalPolicy(agent, "delegate_task")).toBe("always");
    expect(approvalPolicy(agent, "post_message")).toBe("never");
    expect(approvalPolicy({}, "delegate_task")).toBe("high_priority");
    await expectError(t.query(api.agents.toolApprovals, { agentId }), "UNAUTHENTICATED");
  });

  test("an update without policies keeps those for tools still allowed; with policies it replaces them", async () => {
    const { departmentId, admin } = await squad();
    const fields = { ...PIXEL, name: "Newbie", allowedTools: ["delegate_task", "update_task_status"] };
    const agentId = await admin.mutation(api.agents.create, {
      departmentId,
      ...fields,
      toolApprovals: [
        { tool: "delegate_task", policy: "always" },
        { tool: "update_task_status", policy: "always" },
      ],
    });
    await admin.mutation(api.agents.update, { agentId, ...fields, allowedTools: ["delegate_task"] });
    expect(await admin.query(api.agents.toolApprovals, { agentId })).toEqual([{ tool: "delegate_task", policy: "always" }]);
    await admin.mutation(api.agents.update, { agentId, ...fields, toolApprovals: [] });
    expect(await admin.query(api.agents.toolApprovals, { agentId })).toEqual([]);
  });

  test.each([
    ["a tool the agent may not call", [{ tool: "delegate_task", policy: "always" as const }], /set for delegate_task, which this agent may not call/],
    ["an unknown tool", [{ tool: "send_email", policy: "always" as const }], /names send_email, which is not a registered tool/],
    ["a tool twice", [{ tool: "post_message", policy: "always" as const }, { tool: "post_message", policy: "never" as const }], /post_message has more than one approval policy/],
  ])("refuses %s, and creates nothing", async (_label, toolApprovals, message) => {
    const { t, departmentId, admin } = await squad();
    const before = await t.run(async (ctx) => (await ctx.db.query("agents").collect()).length);
    await expectError(admin.mutation(api.agents.create, { departmentId, ...PIXEL, toolApprovals }), "INVALID_ARGUMENT", message);
    expect(await t.run(async (ctx) => (await ctx.db.query("agents").collect()).length)).toBe(before);
  });

  test("needsApproval: never, always, or when the priority is high", () => {
    expect(["low", "medium", "high"].map((p) => needsApproval("never", p as "low"))).toEqual([false, false, false]);
    expect(["low", "medium", "high"].map((p) => needsApproval("always", p as "low"))).toEqual([true, true, true]);
    expect(["low", "medium", "high"].map((p) => needsApproval("high_priority", p as "low"))).toEqual([false, false, true]);
  });

  test("the registry lists each tool's default policy for the modal", async () => {
    const { departmentId, grace } = await squad();
    const tools = await grace.query(api.tools.registry.list, { departmentId });
    expect(tools.find((tool) => tool.name === "delegate_task")?.approval).toBe("high_priority");
    expect(tools.filter((tool) => tool.name !== "delegate_task").every((tool) => tool.approval === "never")).toBe(true);
  });
});

describe("agents.getBySlug (the agent page)", () => {
  test("finds an agent by the slug in its address, with the task its running run works on", async () => {
    const { t, departmentId, admin } = await squad();
    const idle = await admin.query(api.agents.getBySlug, { departmentId, agentSlug: "dev-bot" });
    expect(idle?.agent.name).toBe("Dev Bot");
    expect(idle?.agent.allowedTools.length).toBeGreaterThan(0);
    expect(idle?.currentTask).toBeNull();

    const taskId = await createTask(admin, departmentId, { title: "Ship the signup form" });
    await insertRun(t, AGENTS.devBot, taskId, "completed");
    expect((await admin.query(api.agents.getBySlug, { departmentId, agentSlug: "dev-bot" }))?.currentTask).toBeNull();
    await insertRun(t, AGENTS.devBot, taskId, "running");
    const busy = await admin.query(api.agents.getBySlug, { departmentId, agentSlug: "dev-bot" });
    expect(busy?.currentTask).toMatchObject({ _id: taskId, title: "Ship the signup form" });
  });

  test("the address may name the agent in any case, or by its name", async () => {
    const { departmentId, admin } = await squad();
    for (const agentSlug of ["Dev-Bot", "DEV-BOT", "Dev Bot"]) {
      expect((await admin.query(api.agents.getBySlug, { departmentId, agentSlug }))?.agent.name, agentSlug).toBe("Dev Bot");
    }
  });

  test("an unknown slug, or another department's agent, is null; another department's member is refused", async () => {
    const { departmentId, admin, other } = await squad();
    expect(await admin.query(api.agents.getBySlug, { departmentId, agentSlug: "nobody" })).toBeNull();
    expect(await admin.query(api.agents.getBySlug, { departmentId, agentSlug: "jarvis:product" })).toBeNull();
    await expectError(other.member.query(api.agents.getBySlug, { departmentId, agentSlug: "jarvis" }), "FORBIDDEN");
  });
});
