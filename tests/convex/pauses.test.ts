/**
 * pauses.listWaiting: every approval, question and plan still waiting for a
 * person in a department, with who asks for what, for the board, the bell
 * and the roster; decided, stopped and other departments' cards are not in it.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { askText } from "../../convex/lib/waiting";
import { AGENTS, createOtherAgent, createOtherTask, createTask, demoSquad, expectError, holdScheduledFunctions, insertRun, type TestConvex } from "./setup";

holdScheduledFunctions();

const CALL = '{"to":"press@example.com","subject":"Launch"}';

function state() {
  return { conversation: [], round: 0, index: 0, nextIndex: 1, call: { name: "send_email", args: CALL }, reply: "", before: [], after: [], seen: [] };
}

type Request = { kind: "approval"; tool: string; args: string } | { kind: "question"; question: string } | { kind: "plan"; summary: string; steps: Array<{ title: string; assignee: string }> };

async function pause(t: TestConvex, sessionKey: string, taskId: Id<"tasks">, request: Request): Promise<Id<"runs">> {
  const runId = await insertRun(t, sessionKey, taskId);
  expect(await t.mutation(internal.brain.writes.pause, { runId, attempt: 1, request, state: state() })).toBe("ok");
  return runId;
}

describe("pauses.listWaiting", () => {
  test("lists approvals, questions and plans waiting in the department, oldest first, with who asks for what on which task", async () => {
    const { t, departmentId, admin } = await demoSquad({ vera: true });
    const press = await createTask(admin, departmentId, { title: "Press release" });
    const launch = await createTask(admin, departmentId, { title: "Launch" });
    await pause(t, AGENTS.writer, press, { kind: "approval", tool: "send_email", args: CALL });
    await pause(t, AGENTS.devBot, launch, { kind: "question", question: "Staging or production?" });
    await pause(t, AGENTS.jarvis, launch, { kind: "plan", summary: "Split the launch", steps: [{ title: "Copy", assignee: "Writer" }, { title: "Deploy", assignee: "Dev Bot" }] });
    const { items, more } = await admin.query(api.pauses.listWaiting, { departmentId });
    expect(more).toBe(false);
    expect(items.map(({ kind, taskTitle, agentName, ask }) => ({ kind, taskTitle, agentName, ask }))).toEqual([
      { kind: "approval", taskTitle: "Press release", agentName: "Writer", ask: "asks to run send_email (“press@example.com”)" },
      { kind: "question", taskTitle: "Launch", agentName: "Dev Bot", ask: "asks: Staging or production?" },
      { kind: "plan", taskTitle: "Launch", agentName: "Jarvis", ask: "proposes a plan: Split the launch (2 steps)" },
    ]);
    expect(items.every((item) => typeof item.expiresAt === "number")).toBe(true);
  });

  test("a decided card, a stopped run's card and a deleted task's card leave the list", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId, { title: "Press release" });
    await pause(t, AGENTS.writer, taskId, { kind: "approval", tool: "send_email", args: CALL });
    const approvalId = (await admin.query(api.pauses.listWaiting, { departmentId })).items[0].cardId as Id<"approvals">;
    await admin.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" });
    expect((await admin.query(api.pauses.listWaiting, { departmentId })).items).toEqual([]);
    const second = await pause(t, AGENTS.devBot, taskId, { kind: "question", question: "Which date?" });
    expect((await admin.query(api.pauses.listWaiting, { departmentId })).items).toHaveLength(1);
    await admin.mutation(api.runs.stop, { taskId, runId: second });
    expect((await admin.query(api.pauses.listWaiting, { departmentId })).items).toEqual([]);
    const other = await createTask(admin, departmentId, { title: "Doomed" });
    await pause(t, AGENTS.jarvis, other, { kind: "question", question: "Still needed?" });
    await admin.mutation(api.tasks.remove, { taskId: other });
    expect((await admin.query(api.pauses.listWaiting, { departmentId })).items).toEqual([]);
  });

  test("viewers read it; another department's members and anonymous callers are refused, and its cards never show", async () => {
    const { t, departmentId, admin, vera, other } = await demoSquad({ vera: true, other: true });
    const taskId = await createTask(admin, departmentId, { title: "Ours" });
    await pause(t, AGENTS.writer, taskId, { kind: "question", question: "Ours?" });
    expect((await vera.query(api.pauses.listWaiting, { departmentId })).items).toHaveLength(1);
    await expectError(other.member.query(api.pauses.listWaiting, { departmentId }), "FORBIDDEN");
    await expectError(t.query(api.pauses.listWaiting, { departmentId }), "UNAUTHENTICATED");
    const theirTask = await createOtherTask(t, other.departmentId);
    await pause(t, await createOtherAgent(t, other.departmentId), theirTask, { kind: "question", question: "Theirs?" });
    expect((await other.member.query(api.pauses.listWaiting, { departmentId: other.departmentId })).items.map((i) => i.ask)).toEqual(["asks: Theirs?"]);
    expect((await admin.query(api.pauses.listWaiting, { departmentId })).items.map((i) => i.ask)).toEqual(["asks: Ours?"]);
  });
});

describe("askText", () => {
  test("an approval without a string argument names only the tool; long text is cut", () => {
    expect(askText({ kind: "approval", tool: "delegate_task", args: "{}" })).toBe("asks to run delegate_task");
    expect(askText({ kind: "approval", tool: "x", args: "not json" })).toBe("asks to run x");
    const long = askText({ kind: "question", question: "why ".repeat(100) });
    expect(long.length).toBe(140);
    expect(long.endsWith("…")).toBe(true);
    expect(askText({ kind: "plan", summary: "One", steps: 1 })).toBe("proposes a plan: One (1 step)");
  });
});
