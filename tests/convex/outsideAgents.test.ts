/**
 * Agents that run outside Maestro (issue 40, point 3; reactions/outside.ts):
 * only owners and admins mark one; Maestro then starts no run of it, and
 * what would have started one (an assignment, a delegation, a person's
 * @mention, a DM) is in its key's inbox and POSTed, signed, to its endpoint
 * (checked as webhooks are). The delegator hears of its work as of anyone's.
 * An agent run inside Maestro and also used with a key keeps two read
 * positions: neither its runs nor its key take messages from the other.
 */
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { markInjectionSeen, unreadRows } from "../../convex/records/inbox";
import {
  addToDepartment,
  agent,
  AGENTS,
  callMessagingApi,
  createTask,
  demoSquad,
  expectError,
  type TestConvex,
  withClosedModel,
} from "./setup";

async function runsOf(t: TestConvex, sessionKey: string) {
  return await t.run(async (ctx) => (await ctx.db.query("runs").collect()).filter((r) => r.agentSessionKey === sessionKey));
}

/** Jarvis delegates `title` to Dev Bot under `parentTaskId`, as delegate_task does. */
async function jarvisDelegatesToDevBot(t: TestConvex, departmentId: Id<"departments">, parentTaskId: Id<"tasks">, title: string, instruction: string): Promise<Id<"tasks">> {
  const made = await t.mutation(internal.tools.delegation.createDelegatedTask, {
    departmentId,
    delegatorSessionKey: AGENTS.jarvis,
    title,
    description: "",
    assigneeSessionKeys: [AGENTS.devBot],
    instruction,
    parentTaskId,
  });
  if (!made.ok) throw new Error("the delegation was refused");
  return made.taskId as Id<"tasks">;
}

/** The demo squad with Dev Bot run outside Maestro and holding a key. */
async function outsideDevBot() {
  const squad = await demoSquad({ grace: true });
  const devBot = await agent(squad.t, AGENTS.devBot);
  const { key } = await squad.admin.mutation(api.agentApiKeys.create, { agentId: devBot._id });
  await squad.admin.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true });
  return { ...squad, devBot, key };
}

describe("agents that run outside Maestro", () => {
  withClosedModel();

  test("only the department's owners and admins mark an agent as run outside; members, viewers and another department's admin are refused", async () => {
    const { t, departmentId, grace, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    const devBot = await agent(t, AGENTS.devBot);
    await expectError(grace.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true }), "FORBIDDEN");
    await expectError(vera.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true }), "FORBIDDEN");
    await expectError(other.member.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true }), "FORBIDDEN");
    expect((await agent(t, AGENTS.devBot)).runsOutside).toBeUndefined();
    // An owner may; so may an admin.
    const adminToo = await addToDepartment(t, departmentId, "Ida", "admin");
    await adminToo.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true });
    expect((await agent(t, AGENTS.devBot)).runsOutside).toBe(true);
    // The squad lead is Maestro's to run.
    const jarvis = await agent(t, AGENTS.jarvis);
    await expectError(adminToo.mutation(api.agents.setRunsOutside, { agentId: jarvis._id, runsOutside: true }), "INVALID_ARGUMENT", /leads the squad/);
  });

  test("an assignment, a delegation, a person's @mention in a thread and a DM start no run: each waits in the key's inbox", async () => {
    const { t, departmentId, admin, grace, key } = await outsideDevBot();
    // The scheduled triggers are held (withClosedModel): each is run here as the scheduler would.
    const assigned = await createTask(admin, departmentId, { title: "Fix the login bug", description: "Users get a 500.", assigneeSessionKeys: [AGENTS.devBot] });
    await t.mutation(internal.triggers.agentAssigned, { taskId: assigned, sessionKey: AGENTS.devBot });
    const parent = await createTask(admin, departmentId, { title: "Launch" });
    const delegated = await jarvisDelegatesToDevBot(t, departmentId, parent, "Ship the API", "Ship the v2 API by Friday.");
    await t.mutation(internal.triggers.agentAssigned, { taskId: delegated, sessionKey: AGENTS.devBot });
    const asked = await grace.mutation(api.messages.create, { taskId: assigned, content: "@Dev Bot any news?" });
    await t.mutation(internal.triggers.agentMentioned, { taskId: assigned, messageId: asked, sessionKey: AGENTS.devBot });
    // A DM wakes its agent in the same transaction (reactions/delivery).
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.devBot] });
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Can you look at the CI?" });

    expect(await runsOf(t, AGENTS.devBot)).toEqual([]);
    const inbox = await callMessagingApi(t, key, "GET", "/agents/me/inbox?limit=50");
    const bodies = inbox.body.messages.map((m) => m.body);
    expect(bodies).toContainEqual(expect.stringContaining("“Fix the login bug”"));
    expect(bodies).toContainEqual(expect.stringMatching(/“Ship the API”.*assigned to you by Jarvis[\s\S]*Ship the v2 API by Friday\./));
    expect(bodies).toContainEqual(expect.stringMatching(/you were mentioned in “Fix the login bug”[\s\S]*Grace: @Dev Bot any news\?/));
    expect(bodies).toContain("Can you look at the CI?");
    // Each work line names its task, so the key can follow it.
    const delegationLine = inbox.body.messages.find((m) => m.body.includes("Ship the API"))!;
    expect(delegationLine).toMatchObject({ from: "Maestro", type: "dm", direct: true, context: { task_id: delegated }, correlation_id: `a2a:${delegated}` });
    // The trigger says why nothing ran.
    const triggers = await t.run(async (ctx) => await ctx.db.query("agentTriggers").collect());
    // (The delegation's instruction is Jarvis's @mention: recorded as it is posted, as any agent's mention, starting nothing.)
    const devBots = triggers.filter((tr) => tr.agentSessionKey === AGENTS.devBot);
    expect(devBots.every((tr) => tr.runId === undefined && /runs outside Maestro|agents' mentions notify but start no run/.test(tr.note ?? ""))).toBe(true);
    expect(devBots.filter((tr) => /runs outside Maestro/.test(tr.note ?? "")).map((tr) => tr.kind).sort()).toEqual(["assigned", "assigned", "mentioned"]);
  });

  test("when the outside agent moves its delegated task to Review, Jarvis hears of it as of anyone's work", async () => {
    const { t, departmentId, admin } = await outsideDevBot();
    const parent = await createTask(admin, departmentId, { title: "Launch" });
    const delegated = await jarvisDelegatesToDevBot(t, departmentId, parent, "Ship the API", "Ship it.");
    await t.mutation(internal.triggers.agentAssigned, { taskId: delegated, sessionKey: AGENTS.devBot });
    const jarvisRunsBefore = (await runsOf(t, AGENTS.jarvis)).length;
    await t.run(async (ctx) => {
      const { moveTask } = await import("../../convex/reactions/taskChange");
      const task = (await ctx.db.get("tasks", delegated))!;
      const devBot = (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", AGENTS.devBot)).unique())!;
      await moveTask(ctx, { kind: "agent", sessionKey: devBot.sessionKey, name: devBot.name }, task, "review");
    });
    const jarvisRuns = await runsOf(t, AGENTS.jarvis);
    expect(jarvisRuns.length).toBe(jarvisRunsBefore + 1);
    expect(jarvisRuns.at(-1)).toMatchObject({ taskId: parent, trigger: { kind: "delegation_result" } });
    expect(await runsOf(t, AGENTS.devBot)).toEqual([]);
  });

  test("back inside Maestro, the agent runs again", async () => {
    const { t, departmentId, admin, devBot } = await outsideDevBot();
    await admin.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: false });
    const taskId = await createTask(admin, departmentId, { title: "Fix it", assigneeSessionKeys: [AGENTS.devBot] });
    await t.mutation(internal.triggers.agentAssigned, { taskId, sessionKey: AGENTS.devBot });
    expect(await runsOf(t, AGENTS.devBot)).toHaveLength(1);
  });

  test("an agent run inside Maestro and used with a key: its runs' reads and its key's reads never take messages from each other", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const writer = await agent(t, AGENTS.writer);
    const { key } = await admin.mutation(api.agentApiKeys.create, { agentId: writer._id });
    const general = await admin.mutation(api.channels.create, { departmentId, name: "copy", visibility: "project" });
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "@Writer the hero copy please" });
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "@Writer and the footer" });
    const [hero, footer] = await t.run(async (ctx) => (await ctx.db.query("channelMessages").collect()).map((m) => m._id));

    // The in-app run sees the first and it counts as read for the agent (brain/writes markInjectionSeen)…
    await t.run(async (ctx) => await markInjectionSeen(ctx, (await ctx.db.get("agents", writer._id))!, [hero], []));
    // …the key still has both.
    const keyInbox = await callMessagingApi(t, key, "GET", "/agents/me/inbox");
    expect(keyInbox.body.messages.map((m) => m.id).sort()).toEqual([hero, footer].sort());
    // The key marks the footer read: the agent's runs still have it unread.
    expect((await callMessagingApi(t, key, "POST", `/messages/${footer}/read`)).body).toEqual({ marked: 1 });
    const runUnread = await t.run(async (ctx) => (await unreadRows(ctx, AGENTS.writer, departmentId, 10)).map((r) => r.messageId));
    expect(runUnread).toEqual([footer]);
    expect((await callMessagingApi(t, key, "GET", "/agents/me/inbox")).body.messages.map((m) => m.id)).toEqual([hero]);
  });
});

type Call = { url: string; headers: Record<string, string | string[] | undefined>; body: string };

describe("an outside agent's endpoint", () => {
  let server: Server;
  let port: number;
  let calls: Call[] = [];
  let answers: Array<{ status: number; location?: string }> = [];

  beforeEach(async () => {
    calls = [];
    answers = [];
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        calls.push({ url: request.url ?? "", headers: request.headers, body });
        const answer = answers.shift() ?? { status: 200 };
        response.writeHead(answer.status, answer.location === undefined ? {} : { Location: answer.location });
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    vi.useRealTimers();
    await new Promise((resolve) => server.close(resolve));
  });

  test("URLs that point inward are refused; a public one gets a secret shown once, never listed; members cannot set one", async () => {
    const { t, admin, grace, departmentId } = await demoSquad({ grace: true });
    const devBot = await agent(t, AGENTS.devBot);
    for (const url of ["http://127.0.0.1:3211/agents/x/inbox", "http://localhost/", "http://169.254.169.254/latest", "http://10.0.0.5/", "http://[::1]/", "ftp://example.com/"]) {
      await expectError(admin.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true, endpointUrl: url }), "INVALID_ARGUMENT");
    }
    expect((await agent(t, AGENTS.devBot)).endpointUrl).toBeUndefined();
    await expectError(grace.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true, endpointUrl: "https://agents.example.com/devbot" }), "FORBIDDEN");
    const { secret } = await admin.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true, endpointUrl: "https://agents.example.com/devbot" });
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    // The same URL again keeps its secret (and shows nothing); the roster never shows it.
    expect((await admin.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true, endpointUrl: "https://agents.example.com/devbot" })).secret).toBeNull();
    const listed = (await grace.query(api.agents.list, { departmentId })).find((a) => a._id === devBot._id)!;
    expect(listed).toMatchObject({ runsOutside: true, endpointUrl: "https://agents.example.com/devbot" });
    expect(JSON.stringify(listed)).not.toContain(secret!);
    // An endpoint only for an outside agent.
    await expectError(admin.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: false, endpointUrl: "https://agents.example.com/devbot" }), "INVALID_ARGUMENT");
  });

  test("a delegation is POSTed to the endpoint, signed with the agent's secret, as a delegation envelope; a redirect is not followed", async () => {
    const { t, departmentId, admin } = await demoSquad();
    vi.stubEnv("MAESTRO_WEBHOOK_ALLOW_PRIVATE", "1");
    const devBot = await agent(t, AGENTS.devBot);
    const { secret } = await admin.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true, endpointUrl: `http://127.0.0.1:${port}/work` });
    answers = [{ status: 302, location: `http://127.0.0.1:${port}/elsewhere` }];
    const parent = await createTask(admin, departmentId, { title: "Launch" });
    const delegated = await jarvisDelegatesToDevBot(t, departmentId, parent, "Ship the API", "Ship the v2 API.");
    await t.finishAllScheduledFunctions(vi.runAllTimers);

    expect(calls.map((c) => c.url)).toEqual(["/work"]);
    const [call] = calls;
    expect(call.headers["x-maestro-signature"]).toBe(`sha256=${createHmac("sha256", secret!).update(call.body).digest("hex")}`);
    expect(call.headers["x-maestro-event"]).toBe("maestro.work");
    const envelope = JSON.parse(call.body) as Record<string, unknown>;
    expect(envelope).toMatchObject({
      type: "maestro.work",
      intent: "delegate",
      correlation_id: `a2a:${delegated}`,
      agent: { id: devBot._id, name: "Dev Bot" },
      project_id: departmentId,
      task: { id: delegated, title: "Ship the API", parent_task_id: parent, delegated_by: "Jarvis" },
      message: { from: "Maestro", context: { task_id: delegated } },
    });
    expect((envelope.message as { body: string }).body).toContain("Ship the v2 API.");
    expect(await runsOf(t, AGENTS.devBot)).toEqual([]);
  });

  test("a name that resolves to this machine is never called, even with the URL saved", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const devBot = await agent(t, AGENTS.devBot);
    // Saved under a rule that allowed it, then the deployment stops allowing private addresses: delivery checks again.
    vi.stubEnv("MAESTRO_WEBHOOK_ALLOW_PRIVATE", "1");
    await admin.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true, endpointUrl: `http://127.0.0.1:${port}/work` });
    vi.unstubAllEnvs();
    await createTask(admin, departmentId, { title: "Fix it", assigneeSessionKeys: [AGENTS.devBot] });
    await t.finishAllScheduledFunctions(vi.runAllTimers);
    expect(calls).toEqual([]);
  });
});
