/**
 * Approval, question and plan round trips end to end on the offline
 * backend: the run action pauses on the card, a person responds through the
 * public mutations, and the resumed run goes on from the paused call with a
 * scripted OpenAI-compatible model.
 */
import type { ConvexHttpClient } from "convex/browser";
import { beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { ChatMessage } from "../../convex/brain/model";
import { scriptedSquad, squadTasks, waitFor } from "./helpers";
import { lastUser, isJarvis } from "./scriptedModel";

type Script = (messages: ChatMessage[]) => string;

let ada: ConvexHttpClient;
let script: Script = () => "Nothing to do.";

const squad = scriptedSquad((request) => (isJarvis(request.messages) ? script(request.messages) : "Noted."));
beforeAll(() => {
  ({ member: ada } = squad);
});

/** The task's newest run once it has `status` (waiting for a person, or ended). */
const { runsOf, newestRun: atRest, thread, childrenOf, mention } = squadTasks(squad);

const URGENT = '[TOOL: delegate_task ARG: {"title": "Hero copy", "description": "The landing page hero.", "assignees": ["Writer"], "instruction": "Write the hero copy.", "priority": "high"}]';

/** Delegates at high priority (Jarvis's default policy asks a person), then repeats what the results said. */
const urgentScript: Script = (messages) => {
  const last = lastUser(messages);
  if (last.startsWith("=== TOOL RESULTS ===")) return `Result: ${last.split("\n")[1]}`;
  return `On it.\n${URGENT}`;
};

describe("approvals", () => {
  test("a high-priority delegation waits on an approval card; approved, exactly that call runs once and the run completes", async () => {
    script = urgentScript;
    const taskId = await mention("Launch", "@Jarvis delegate the hero copy to Writer, urgent");
    const waiting = await atRest(taskId, "waiting");
    expect(waiting.toolCalls).toEqual([]);
    const [card] = await ada.query(api.approvals.listForTask, { taskId });
    expect(card).toMatchObject({ tool: "delegate_task", status: "pending", agentName: "Jarvis", args: expect.stringContaining('"priority":"high"') });
    expect(await childrenOf(taskId)).toEqual([]);

    await ada.mutation(api.approvals.respond, { taskId, approvalId: card._id, decision: "approve" });
    const done = await atRest(taskId, "completed");
    expect(done.toolCalls.map((c) => [c.name, c.outcome])).toEqual([["delegate_task", "ok"]]);
    const children = await childrenOf(taskId);
    expect(children.map((c) => c.title)).toEqual(["Hero copy"]);
    expect((await thread(taskId)).at(-1)).toMatchObject({ author: { kind: "agent", name: "Jarvis" }, content: expect.stringContaining('"ok":true') });

    // The stream tells the whole story in order, replayable.
    const events = (await ada.query(api.runEvents.listForRun, { runId: done._id })).map((e) => e.payload.type);
    const order = ["tool_call", "approval_requested", "control_submitted", "agent_start", "tool_result", "message_start", "agent_end"];
    const positions = order.map((type) => events.lastIndexOf(type as (typeof events)[number]));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    await expect(ada.mutation(api.approvals.respond, { taskId, approvalId: card._id, decision: "approve" })).rejects.toThrow(/already approved by Ada/);
    expect(await childrenOf(taskId)).toHaveLength(1);
  });

  test("denied: nothing is created and the model reads who denied it and why", async () => {
    script = urgentScript;
    const taskId = await mention("Launch 2", "@Jarvis delegate the hero copy to Writer, urgent");
    await atRest(taskId, "waiting");
    const [card] = await ada.query(api.approvals.listForTask, { taskId });
    await ada.mutation(api.approvals.respond, { taskId, approvalId: card._id, decision: "deny", reason: "not this week" });
    const done = await atRest(taskId, "completed");
    expect(done.toolCalls).toMatchObject([{ name: "delegate_task", outcome: "denied", observation: "delegate_task: denied by Ada: not this week" }]);
    expect(await childrenOf(taskId)).toEqual([]);
    expect((await thread(taskId)).at(-1)?.content).toBe("Result: [OBSERVATION delegate_task] delegate_task: denied by Ada: not this week");
  });
});

describe("plans", () => {
  const PLAN = {
    summary: "Split the launch",
    steps: [
      { title: "Launch copy", assignee: "writer" },
      { title: "Launch form", assignee: "Dev Bot", description: "Email only." },
    ],
  };

  test("approved: the steps are delegated exactly as proposed, once, even when the lead repeats them", async () => {
    script = (messages) => {
      const last = lastUser(messages);
      // After approval the lead (wrongly) delegates one step again: the cause-derived key finds the same task.
      if (last.includes("plan was approved")) return '[TOOL: delegate_task ARG: {"title": "Launch copy", "description": "Launch copy", "assignees": ["Writer"], "instruction": "Please take “Launch copy” and post your progress here."}]';
      if (last.startsWith("=== TOOL RESULTS ===")) return `Result: ${last.split("\n")[1]}`;
      return `Proposing.\n[TOOL: propose_plan ARG: ${JSON.stringify(PLAN)}]`;
    };
    const taskId = await mention("Launch 3", "@Jarvis plan the launch");
    await atRest(taskId, "waiting");
    const [card] = await ada.query(api.plans.listForTask, { taskId });
    expect(card).toMatchObject({ status: "pending", summary: "Split the launch", steps: [{ title: "Launch copy", assignee: "Writer" }, { title: "Launch form", assignee: "Dev Bot" }] });
    expect(await childrenOf(taskId)).toEqual([]);

    await ada.mutation(api.plans.respond, { taskId, planId: card._id, action: "approve" });
    const done = await atRest(taskId, "completed");
    const children = await childrenOf(taskId);
    expect(children.map((c) => [c.title, c.assigneeSessionKeys]).sort()).toEqual([
      ["Launch copy", ["agent:writer:product"]],
      ["Launch form", ["agent:dev-bot:product"]],
    ]);
    expect(children.every((c) => c.delegatedBy === "agent:jarvis:product")).toBe(true);
    expect(done.toolCalls.map((c) => [c.name, c.outcome])).toEqual([
      ["delegate_task", "ok"],
      ["delegate_task", "ok"],
      ["propose_plan", "ok"],
      ["delegate_task", "ok"],
    ]);
    expect(JSON.parse(done.toolCalls[3].observation)).toMatchObject({ ok: true, title: "Launch copy", alreadyExisted: true });
  });

  test("rejected with feedback: the lead reads it and proposes a revised plan, which a person then approves", async () => {
    script = (messages) => {
      const last = lastUser(messages);
      if (last.includes("rejected by Ada: Give both to Writer")) {
        return `Revised.\n[TOOL: propose_plan ARG: ${JSON.stringify({ summary: "Writer does both", steps: [{ title: "Launch copy v2", assignee: "Writer" }, { title: "Launch form v2", assignee: "Writer" }] })}]`;
      }
      if (last.startsWith("=== TOOL RESULTS ===")) return "Delegated as planned.";
      return `[TOOL: propose_plan ARG: ${JSON.stringify({ summary: "First", steps: [{ title: "Launch copy v1", assignee: "Writer" }, { title: "Launch form v1", assignee: "Dev Bot" }] })}]`;
    };
    const taskId = await mention("Launch 4", "@Jarvis plan the launch");
    await atRest(taskId, "waiting");
    const [first] = await ada.query(api.plans.listForTask, { taskId });
    await ada.mutation(api.plans.respond, { taskId, planId: first._id, action: "reject", feedback: "Give both to Writer" });
    await waitFor(async () => (await ada.query(api.plans.listForTask, { taskId })).length === 2 && (await runsOf(taskId))[0].status === "waiting", 20_000, "a revised plan");
    const [revised] = await ada.query(api.plans.listForTask, { taskId });
    expect(revised.steps.map((s) => s.assignee)).toEqual(["Writer", "Writer"]);
    expect(await childrenOf(taskId)).toEqual([]);
    await ada.mutation(api.plans.respond, { taskId, planId: revised._id, action: "approve" });
    await atRest(taskId, "completed");
    expect((await childrenOf(taskId)).map((c) => c.title).sort()).toEqual(["Launch copy v2", "Launch form v2"]);
    expect((await thread(taskId)).at(-1)?.content).toBe("Delegated as planned.");
  });

  test("an unknown assignee is a clear tool error and nothing is proposed", async () => {
    script = (messages) =>
      lastUser(messages).startsWith("=== TOOL RESULTS ===")
        ? `Result: ${lastUser(messages).split("\n")[1]}`
        : `[TOOL: propose_plan ARG: ${JSON.stringify({ summary: "x", steps: [{ title: "Ghost work", assignee: "Casper" }] })}]`;
    const taskId = await mention("Launch 5", "@Jarvis plan it");
    const done = await atRest(taskId, "completed");
    expect(done.toolCalls[0]).toMatchObject({ name: "propose_plan", outcome: "error", observation: expect.stringContaining('no agent called "Casper" in the squad') });
    expect(await ada.query(api.plans.listForTask, { taskId })).toEqual([]);
  });
});

describe("questions", () => {
  test("answered on the card: the answer is posted in the thread and the run goes on with it", async () => {
    script = (messages) => {
      const last = lastUser(messages);
      if (last.includes("Ada answered: Green.")) return "Green it is.";
      if (last.startsWith("=== TOOL RESULTS ===")) return "Still waiting.";
      return '[TOOL: ask_question ARG: {"question": "Which colour?"}]';
    };
    const taskId = await mention("Colours", "@Jarvis pick a colour");
    await atRest(taskId, "waiting");
    const [card] = await ada.query(api.questions.listForTask, { taskId });
    await ada.mutation(api.questions.respond, { taskId, questionId: card._id, answer: "Green." });
    await atRest(taskId, "completed");
    const messages = (await thread(taskId)).map((m) => m.content);
    expect(messages.slice(-3)).toEqual(["❓ Which colour?", "Green.", "Green it is."]);
    expect((await ada.query(api.tasks.get, { taskId })).status).toBe("inbox");
  });
});
