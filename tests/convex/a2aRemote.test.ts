/**
 * A2A agents as squad members (issue 45, part 2): an admin adds one by its
 * agent card URL; Jarvis delegates to it; Maestro sends the task with the
 * SDK's client and follows it onto the card. The remote agent is the SDK's
 * own server (tests/fixtures/a2aRemoteAgent.ts) on a loopback port, so the
 * deployment's MAESTRO_WEBHOOK_ALLOW_PRIVATE=1 is set where it is reached.
 */
import { TaskState } from "@a2a-js/sdk";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { checkCard, deliverableText, pollDelayMs, taskMessageText } from "../../convex/lib/a2aRemote";
import { artifact, startRemoteAgent, status, taskEvent, type RemoteAgent } from "../fixtures/a2aRemoteAgent";
import { AGENTS, createTask, demoSquad, expectError, type TestConvex, withClosedModel } from "./setup";

let remote: RemoteAgent;

beforeEach(async () => {
  remote = await startRemoteAgent(({ context, bus }) => {
    bus.publish(taskEvent(context, TaskState.TASK_STATE_WORKING));
  });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await remote.close();
});

/** Adds the remote agent to the demo squad as its admin; its agent row. */
async function addRemote(squad: Awaited<ReturnType<typeof demoSquad>>) {
  vi.stubEnv("MAESTRO_WEBHOOK_ALLOW_PRIVATE", "1");
  const added = await squad.admin.action(api.a2aRemoteCalls.add, { departmentId: squad.departmentId, cardUrl: remote.cardUrl });
  const agent = await squad.t.run(async (ctx) => (await ctx.db.get("agents", added.agentId))!);
  return { added, agent };
}

/** Jarvis delegates `title` to `sessionKey` under a new parent card, as delegate_task does; the delegated card. */
async function jarvisDelegates(t: TestConvex, departmentId: Id<"departments">, admin: Awaited<ReturnType<typeof demoSquad>>["admin"], sessionKey: string): Promise<Id<"tasks">> {
  const parentTaskId = await createTask(admin, departmentId, { title: "Plan the launch" });
  const made = await t.mutation(internal.tools.delegation.createDelegatedTask, {
    departmentId,
    delegatorSessionKey: AGENTS.jarvis,
    title: "Research the market",
    description: "Who sells what, and for how much.",
    assigneeSessionKeys: [sessionKey],
    instruction: "Find the three biggest competitors.",
    parentTaskId,
  });
  if (!made.ok) throw new Error("the delegation was refused");
  return made.taskId as Id<"tasks">;
}

/** Runs what is scheduled, a round at a time, until `done` (a woken Jarvis keeps scheduling against the closed model, so not "all"). */
async function runUntil(t: TestConvex, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 60 && !(await done()); i++) {
    vi.runOnlyPendingTimers();
    await t.finishInProgressScheduledFunctions();
  }
}

async function taskOf(t: TestConvex, taskId: Id<"tasks">) {
  return await t.run(async (ctx) => (await ctx.db.get("tasks", taskId))!);
}

async function threadOf(t: TestConvex, taskId: Id<"tasks">) {
  return await t.run(async (ctx) => await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect());
}

async function remoteRows(t: TestConvex) {
  return await t.run(async (ctx) => await ctx.db.query("a2aRemoteTasks").collect());
}

describe("A2A agents as squad members", () => {
  withClosedModel();

  test("an admin adds an A2A agent by its card URL: its name, description and skills come from the card and show on the roster", async () => {
    const squad = await demoSquad({ grace: true });
    const { added } = await addRemote(squad);
    expect(added).toMatchObject({ name: "Research Scout", description: "Finds and summarises sources on a topic.", skills: [{ id: "research", name: "Research", description: "Reads sources and writes a brief." }] });
    const listed = (await squad.grace.query(api.agents.list, { departmentId: squad.departmentId })).find((a) => a.name === "Research Scout")!;
    expect(listed).toMatchObject({
      runsOutside: true,
      role: "Finds and summarises sources on a topic.",
      a2aRemote: { cardUrl: remote.cardUrl, endpointUrl: `${remote.url}/a2a`, skills: [{ name: "Research" }] },
    });
    // The preview shows the same before anything is added.
    const preview = await squad.admin.action(api.a2aRemoteCalls.preview, { departmentId: squad.departmentId, cardUrl: remote.url });
    expect(preview).toMatchObject({ name: "Research Scout", skills: [{ name: "Research" }] });
  });

  test("delegated to by Jarvis: working → input-required (a question in the thread a person answers, sent back) → completed, its artifact posted and the card in Review, one correlation id", async () => {
    const squad = await demoSquad();
    const { t, departmentId, admin } = squad;
    remote.script = ({ context, bus, taskId, contextId, text }) => {
      bus.publish(taskEvent(context, TaskState.TASK_STATE_WORKING));
      if (!text.includes("The EU")) {
        bus.publish(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, "Which market: the EU or the US?"));
        return;
      }
      bus.publish(artifact(taskId, contextId, "brief.md", `Competitors in ${text.includes("EU") ? "the EU" : "?"}: Acme, Globex, Initech.`));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
    };
    const { agent } = await addRemote(squad);
    const taskId = await jarvisDelegates(t, departmentId, admin, agent.sessionKey);
    await t.finishAllScheduledFunctions(vi.runAllTimers);

    // The task went out with message/send: title, description, instruction, and the context pack.
    expect(remote.calls[0].method).toBe("SendMessage");
    expect(remote.texts[0]).toContain("Task: Research the market");
    expect(remote.texts[0]).toContain("Who sells what, and for how much.");
    expect(remote.texts[0]).toContain("Find the three biggest competitors.");
    expect(remote.texts[0]).toContain("=== PROJECT GRAPH");
    // input-required: the question in the thread, to Jarvis who delegated it, and the card Blocked.
    expect((await taskOf(t, taskId)).status).toBe("blocked");
    const question = (await threadOf(t, taskId)).find((m) => m.content.startsWith("❓"))!;
    expect(question).toMatchObject({ author: { kind: "agent", name: "Research Scout" }, content: "❓ @Jarvis Which market: the EU or the US?" });

    // A person answers in the thread: sent back as the next message, to the same remote task.
    await admin.mutation(api.messages.create, { taskId, content: "The EU, please." });
    await runUntil(t, async () => (await taskOf(t, taskId)).status === "review");
    expect(remote.texts[1]).toContain("The EU, please.");
    const rows = await remoteRows(t);
    expect(rows).toHaveLength(1);
    const sends = remote.calls.filter((c) => c.method === "SendMessage");
    expect((sends[1].params.message as { taskId: string }).taskId).toBe(rows[0].remoteTaskId);

    // completed: the artifact is the deliverable in the thread, and the card is in Review.
    const task = await taskOf(t, taskId);
    expect(task.status).toBe("review");
    const thread = await threadOf(t, taskId);
    const deliverable = thread.find((m) => m.content.startsWith("📦"))!;
    expect(deliverable.content).toContain("**brief.md**");
    expect(deliverable.content).toContain("Competitors in the EU: Acme, Globex, Initech.");
    expect(rows[0]).toMatchObject({ phase: "completed", correlationId: `a2a:${taskId}` });

    // The remote task's steps are in the event log under the card's correlation id, with its ids.
    const trace = await t.run(async (ctx) => await ctx.db.query("events").withIndex("by_department_and_correlationId", (q) => q.eq("departmentId", departmentId).eq("correlationId", `a2a:${taskId}`)).collect());
    const steps = trace.filter((e) => e.type === "a2a.status_update" && e.data.a2a_state !== undefined).map((e) => e.data.a2a_state);
    expect(steps).toEqual(expect.arrayContaining(["working", "input_required", "completed"]));
    expect(trace.find((e) => e.data.a2a_state === "completed")!.data).toMatchObject({ a2a_task_id: rows[0].remoteTaskId, a2a_context_id: rows[0].contextId });
    // The context the remote agent works in is named by the correlation id.
    expect(rows[0].contextId).toBe(`a2a:${taskId}`);
  });

  test("a remote failure: a thread note with its reason and the card Blocked", async () => {
    const squad = await demoSquad();
    remote.script = ({ context, bus, taskId, contextId }) => {
      bus.publish(taskEvent(context, TaskState.TASK_STATE_WORKING));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, "The source site is down."));
    };
    const { agent } = await addRemote(squad);
    const taskId = await jarvisDelegates(squad.t, squad.departmentId, squad.admin, agent.sessionKey);
    await squad.t.finishAllScheduledFunctions(vi.runAllTimers);
    expect((await taskOf(squad.t, taskId)).status).toBe("blocked");
    const notes = (await threadOf(squad.t, taskId)).filter((m) => m.author.kind === "system").map((m) => m.content);
    expect(notes).toContain("⚠️ Research Scout (A2A) failed: The source site is down.");
    expect((await remoteRows(squad.t))[0]).toMatchObject({ phase: "failed" });
  });

  test("a rejection is a note and the card Blocked too; what the agent writes is secret-scanned before it is stored", async () => {
    const squad = await demoSquad();
    const token = `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`;
    remote.script = ({ context, bus, taskId, contextId }) => {
      bus.publish(taskEvent(context, TaskState.TASK_STATE_WORKING));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_REJECTED, `Not my kind of work. My token is ${token}`));
    };
    const { agent } = await addRemote(squad);
    const taskId = await jarvisDelegates(squad.t, squad.departmentId, squad.admin, agent.sessionKey);
    await squad.t.finishAllScheduledFunctions(vi.runAllTimers);
    expect((await taskOf(squad.t, taskId)).status).toBe("blocked");
    const note = (await threadOf(squad.t, taskId)).find((m) => m.content.includes("rejected the task"))!;
    expect(note.content).toContain("Not my kind of work.");
    expect(note.content).not.toContain(token);
  });

  test("Stop cancels the remote task: tasks/cancel is sent, Maestro stops polling, the thread says who stopped it", async () => {
    const squad = await demoSquad({ vera: true, other: true });
    const { t, admin } = squad;
    const { agent } = await addRemote(squad);
    const taskId = await jarvisDelegates(t, squad.departmentId, admin, agent.sessionKey);
    await runUntil(t, async () => (await remoteRows(t))[0]?.phase === "following");
    const [row] = await remoteRows(t);
    expect(row.phase).toBe("following");
    expect((await taskOf(t, taskId)).status).toBe("in_progress");
    await expectError(squad.vera.mutation(api.a2aRemote.stop, { taskId }), "FORBIDDEN");
    await expectError(squad.other.member.mutation(api.a2aRemote.stop, { taskId }), "FORBIDDEN");
    await expectError(squad.other.member.query(api.a2aRemote.openForTask, { taskId }), "FORBIDDEN");
    expect(await squad.vera.query(api.a2aRemote.openForTask, { taskId })).toMatchObject([{ phase: "following", remoteState: "working" }]);
    expect(await admin.mutation(api.a2aRemote.stop, { taskId })).toBe(1);
    await t.finishAllScheduledFunctions(vi.runAllTimers);
    expect(remote.calls.filter((c) => c.method === "CancelTask").map((c) => c.params.id)).toEqual([row.remoteTaskId]);
    const polls = remote.calls.filter((c) => c.method === "GetTask").length;
    await t.finishAllScheduledFunctions(vi.runAllTimers);
    expect(remote.calls.filter((c) => c.method === "GetTask").length).toBe(polls);
    expect((await remoteRows(t))[0]).toMatchObject({ phase: "canceled" });
    expect((await threadOf(t, taskId)).some((m) => m.content.startsWith("⏹") && m.content.includes("Research Scout"))).toBe(true);
  });
});

describe("archiving or deleting the card", () => {
  withClosedModel();

  test.each(["archive", "delete"] as const)("to %s the card cancels its remote task as Stop does", async (how) => {
    const squad = await demoSquad();
    const { t, admin } = squad;
    const { agent } = await addRemote(squad);
    const taskId = await jarvisDelegates(t, squad.departmentId, admin, agent.sessionKey);
    await runUntil(t, async () => (await remoteRows(t))[0]?.phase === "following");
    const [row] = await remoteRows(t);
    if (how === "archive") await admin.mutation(api.tasks.archive, { taskId, archived: true });
    else await admin.mutation(api.tasks.remove, { taskId });
    await t.finishAllScheduledFunctions(vi.runAllTimers);
    expect(remote.calls.filter((c) => c.method === "CancelTask").map((c) => c.params.id)).toEqual([row.remoteTaskId]);
    expect((await remoteRows(t))[0]).toMatchObject({ phase: "canceled" });
    const polls = remote.calls.filter((c) => c.method === "GetTask").length;
    await t.finishAllScheduledFunctions(vi.runAllTimers);
    expect(remote.calls.filter((c) => c.method === "GetTask").length).toBe(polls);
  });
});

describe("Stop and a message already out", () => {
  withClosedModel();

  test("Stop before the first message is out sends nothing; an answer that was already on its way has its remote task canceled", async () => {
    const squad = await demoSquad();
    const { t, admin } = squad;
    const { agent } = await addRemote(squad);
    const taskId = await jarvisDelegates(t, squad.departmentId, admin, agent.sessionKey);
    await runUntil(t, async () => (await remoteRows(t)).length > 0);
    const [row] = await remoteRows(t);
    expect(row.phase).toBe("sending");
    expect(await admin.mutation(api.a2aRemote.stop, { taskId })).toBe(1);
    await t.action(internal.a2aRemoteCalls.send, { remoteId: row._id });
    expect(remote.calls).toEqual([]);
    // A send that read its plan before Stop comes back with the task the agent made: it is canceled there.
    await t.mutation(internal.a2aRemote.answered, { remoteId: row._id, step: "send", view: { remoteTaskId: "remote-1", contextId: "ctx-1", state: "working", statusText: "", artifacts: [] } });
    await t.finishAllScheduledFunctions(vi.runAllTimers);
    expect(remote.calls.map((c) => [c.method, c.params.id])).toEqual([["CancelTask", "remote-1"]]);
    expect((await taskOf(t, taskId)).status).not.toBe("in_progress");
  });
});

describe("A2A agents: the attacker's view", () => {
  withClosedModel();

  test("only the department's owners and admins add one: a member, a viewer and another department's admin are refused, before anything is fetched", async () => {
    const squad = await demoSquad({ grace: true, vera: true, other: true });
    vi.stubEnv("MAESTRO_WEBHOOK_ALLOW_PRIVATE", "1");
    const args = { departmentId: squad.departmentId, cardUrl: remote.cardUrl };
    await expectError(squad.grace.action(api.a2aRemoteCalls.add, args), "FORBIDDEN");
    await expectError(squad.vera.action(api.a2aRemoteCalls.add, args), "FORBIDDEN");
    await expectError(squad.other.member.action(api.a2aRemoteCalls.add, args), "FORBIDDEN");
    await expectError(squad.grace.action(api.a2aRemoteCalls.preview, args), "FORBIDDEN");
    expect(remote.calls).toEqual([]);
    expect((await squad.admin.query(api.agents.list, { departmentId: squad.departmentId })).some((a) => a.a2aRemote !== undefined)).toBe(false);
  });

  test("card URLs that point inward are refused unless the deployment allows them: loopback, private, link-local, names for this machine", async () => {
    const squad = await demoSquad();
    for (const cardUrl of [remote.cardUrl, "http://localhost:8080/card.json", "http://10.0.0.7/.well-known/agent-card.json", "http://169.254.169.254/latest", "http://[::1]/card", "http://metadata.google.internal/"]) {
      await expectError(squad.admin.action(api.a2aRemoteCalls.add, { departmentId: squad.departmentId, cardUrl }), "INVALID_ARGUMENT", /loopback or private/);
    }
    expect(remote.calls).toEqual([]);
  });

  test("a card whose endpoint is private is refused, whichever interface would be used", () => {
    const card = (url: string) => ({ name: "Scout", supportedInterfaces: [{ url: "https://agents.example.com/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }, { url, protocolBinding: "HTTP+JSON" }] });
    for (const url of ["http://127.0.0.1:9/a2a", "http://192.168.1.10/a2a", "http://localhost/a2a", "ftp://agents.example.com/"]) {
      expect(() => checkCard(card(url), false), url).toThrow(/endpoint/);
    }
    expect(checkCard(card("https://other.example.com/rest"), false).endpointUrl).toBe("https://agents.example.com/a2a");
    expect(() => checkCard({ name: "Scout", supportedInterfaces: [{ url: "https://agents.example.com/rest", protocolBinding: "HTTP+JSON" }] }, false)).toThrow(/JSON-RPC/);
  });

  test("a card that redirects, or points its endpoint inward, or is oversized, is refused", async () => {
    const squad = await demoSquad();
    vi.stubEnv("MAESTRO_WEBHOOK_ALLOW_PRIVATE", "1");
    const add = (cardUrl: string) => squad.admin.action(api.a2aRemoteCalls.add, { departmentId: squad.departmentId, cardUrl });
    // Oversized: a description of 100 kB.
    remote.cardOverride = { name: "Big", description: "x".repeat(100_000), supportedInterfaces: [{ url: `${remote.url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }], skills: [] };
    await expectError(add(remote.cardUrl), "INVALID_ARGUMENT", /could not be read/);
    // A redirect is not followed (the fixture answers 404 on anything else, the redirect's target included).
    remote.cardOverride = undefined;
    await expectError(add(`${remote.url}/elsewhere.json`), "INVALID_ARGUMENT", /could not be read/);
    // Card fetched under the switch, then the switch is off: its endpoint (loopback) is refused at the check.
    vi.unstubAllEnvs();
    expect(() => checkCard({ name: "Scout", supportedInterfaces: [{ url: `${remote.url}/a2a`, protocolBinding: "JSONRPC" }] }, false)).toThrow(/loopback or private/);
  });

  test("a remote agent that never answers: each call times out, and after a few the card is Blocked with a clear note, never a stuck run", async () => {
    const squad = await demoSquad();
    vi.stubEnv("MAESTRO_A2A_CALL_TIMEOUT_MS", "200");
    const { agent } = await addRemote(squad);
    remote.hang = true;
    const taskId = await jarvisDelegates(squad.t, squad.departmentId, squad.admin, agent.sessionKey);
    await squad.t.finishAllScheduledFunctions(vi.runAllTimers);
    expect((await taskOf(squad.t, taskId)).status).toBe("blocked");
    const note = (await threadOf(squad.t, taskId)).find((m) => m.content.includes("could not be reached"))!;
    expect(note.content).toContain("no answer within 0.2 s");
    expect((await remoteRows(squad.t))[0]).toMatchObject({ phase: "failed", failures: 5 });
    expect(await squad.t.run(async (ctx) => (await ctx.db.query("runs").collect()).filter((r) => r.agentSessionKey === agent.sessionKey))).toEqual([]);
  }, 60_000);

  test("a remote task that stays working past the deadline: polled with backoff, then canceled, a note, and the card Blocked", async () => {
    const squad = await demoSquad();
    const { agent } = await addRemote(squad);
    const taskId = await jarvisDelegates(squad.t, squad.departmentId, squad.admin, agent.sessionKey);
    await squad.t.finishAllScheduledFunctions(vi.runAllTimers);
    expect((await taskOf(squad.t, taskId)).status).toBe("blocked");
    expect((await threadOf(squad.t, taskId)).some((m) => m.content.includes("did not finish within 30 minutes"))).toBe(true);
    const polls = remote.calls.filter((c) => c.method === "GetTask").length;
    // Backoff: 2 s, 4 s, … up to a minute between polls, so about 35 in 30 minutes rather than 900.
    expect(polls).toBeGreaterThan(20);
    expect(polls).toBeLessThan(45);
    expect(remote.calls.filter((c) => c.method === "CancelTask").map((c) => c.params.id)).toEqual([(await remoteRows(squad.t))[0].remoteTaskId]);
  }, 60_000);

  test("oversized artifacts are cut to the thread's size, said so", () => {
    const text = deliverableText("Scout", { statusText: "", artifacts: [{ name: "huge", text: "y".repeat(50_000) }] });
    expect(text.length).toBeLessThanOrEqual(9_000);
    expect(text).toContain("(cut: the rest was too long to post)");
    expect(pollDelayMs(0)).toBe(2_000);
    expect(pollDelayMs(10)).toBe(60_000);
    expect(taskMessageText({ title: "T", description: "", instruction: null, thread: [], contextPack: "" })).toBe("Task: T\n\nWhen you are done, answer with your deliverable as artifacts.");
  });
});
