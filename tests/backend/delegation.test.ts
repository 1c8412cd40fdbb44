/**
 * Delegation through runs end to end on the offline backend, with a
 * scripted OpenAI-compatible model that streams: the calls after a paused
 * call run once it is settled (approved, denied, or the run stopped by Stop
 * or /stop), a retry after a failed run finds the task the first run made,
 * delegate_task's result is the spec's JSON with partial name resolution,
 * and an answer that is not a chat completion says what came back.
 */
import type { ConvexHttpClient } from "convex/browser";
import { beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ChatMessage } from "../../convex/brain/model";
import { waitFor, scriptedSquad, squadTasks } from "./helpers";
import { type ScriptedAnswer, lastUser, isJarvis, type ScriptedModel } from "./scriptedModel";

type JarvisScript = (messages: ChatMessage[]) => ScriptedAnswer;

let model: ScriptedModel;
let ada: ConvexHttpClient;
let departmentId: Id<"departments">;
let script: JarvisScript = () => "Nothing to do.";

const isResults = (messages: ChatMessage[]) => lastUser(messages).startsWith("=== TOOL RESULTS ===");
/** The observations the model was fed, one per call. */
const observationsIn = (messages: ChatMessage[]) => lastUser(messages).split("\n").filter((line) => line.startsWith("[OBSERVATION "));

const squad = scriptedSquad((request) => (isJarvis(request.messages) ? script(request.messages) : "Noted."));
beforeAll(() => {
  ({ model, member: ada, departmentId } = squad);
});

const { newestRun, thread, childrenOf, mention } = squadTasks(squad);
async function eventsOf(runId: Id<"runs">) {
  return (await ada.query(api.runEvents.listForRun, { runId })).map((e) => e.payload);
}

function delegate(args: Record<string, unknown>): string {
  return `[TOOL: delegate_task ARG: ${JSON.stringify(args)}]`;
}
const HERO = { title: "Hero copy", description: "The landing page's hero.", assignees: ["Writer"], instruction: "Write the hero copy." };
const FORM = { title: "Signup form", description: "The landing page's form.", assignees: ["Dev Bot"], instruction: "Build the signup form." };

/** Both delegations of the reply were made, in order, each task with its assignee. */
async function expectBothDelegated(taskId: Id<"tasks">, run: { toolCalls: Array<{ name: string; outcome: string }> }) {
  expect(run.toolCalls.map((c) => [c.name, c.outcome])).toEqual([
    ["delegate_task", "ok"],
    ["delegate_task", "ok"],
  ]);
  expect((await childrenOf(taskId)).map((c) => [c.title, c.assigneeSessionKeys])).toEqual([
    ["Hero copy", ["agent:writer:product"]],
    ["Signup form", ["agent:dev-bot:product"]],
  ]);
}

/** One reply with two delegations (the first `first`, the second `second` priority); results are repeated back. */
function splitScript(first: "high" | "medium", second: "high" | "medium"): JarvisScript {
  return (messages) =>
    isResults(messages)
      ? `Results:\n${observationsIn(messages).join("\n")}`
      : `Splitting it.\n${delegate({ ...HERO, priority: first })}\n${delegate({ ...FORM, priority: second })}`;
}

describe("a reply's calls after a paused call", () => {
  test("approved: the paused call runs, then the next call of the same reply, in order; the model reads both results", async () => {
    script = splitScript("high", "medium");
    const taskId = await mention("Landing A", "@Jarvis split the landing page");
    const waiting = await newestRun(taskId, "waiting");
    // Nothing after the paused call has run or been refused yet.
    expect(waiting.toolCalls).toEqual([]);
    expect(await childrenOf(taskId)).toEqual([]);
    const [card] = await ada.query(api.approvals.listForTask, { taskId });
    await ada.mutation(api.approvals.respond, { taskId, approvalId: card._id, decision: "approve" });

    const done = await newestRun(taskId, "completed");
    await expectBothDelegated(taskId, done);
    const reply = (await thread(taskId)).at(-1)!.content;
    expect(reply).toContain('"title":"Hero copy"');
    expect(reply).toContain('"title":"Signup form"');
    expect(reply).not.toContain("not run");
    // Each call is announced and answered once, by its index, in order.
    const calls = (await eventsOf(done._id)).flatMap((e) => (e.type === "tool_call" || e.type === "tool_result" ? [`${e.type} ${e.index}`] : []));
    expect(calls).toEqual(["tool_call 0", "tool_result 0", "tool_call 1", "tool_result 1"]);
  });

  test("denied: the paused call is refused and the rest of the reply still runs", async () => {
    script = splitScript("high", "medium");
    const taskId = await mention("Landing B", "@Jarvis split the landing page");
    await newestRun(taskId, "waiting");
    const [card] = await ada.query(api.approvals.listForTask, { taskId });
    await ada.mutation(api.approvals.respond, { taskId, approvalId: card._id, decision: "deny", reason: "not the hero" });
    const done = await newestRun(taskId, "completed");
    expect(done.toolCalls.map((c) => [c.name, c.outcome])).toEqual([
      ["delegate_task", "denied"],
      ["delegate_task", "ok"],
    ]);
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Signup form"]);
  });

  test("a later call that needs approval too pauses the run again; both approved, both run", async () => {
    script = splitScript("high", "high");
    const taskId = await mention("Landing C", "@Jarvis split the landing page");
    await newestRun(taskId, "waiting");
    const [first] = await ada.query(api.approvals.listForTask, { taskId });
    await ada.mutation(api.approvals.respond, { taskId, approvalId: first._id, decision: "approve" });
    await waitFor(async () => (await ada.query(api.approvals.listForTask, { taskId })).some((c) => c.status === "pending"), 20_000, "the second approval card");
    const waiting = await newestRun(taskId, "waiting");
    expect(waiting.toolCalls.map((c) => c.outcome)).toEqual(["ok"]);
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Hero copy"]);
    const second = (await ada.query(api.approvals.listForTask, { taskId })).find((c) => c.status === "pending")!;
    expect(second.args).toContain("Signup form");
    await ada.mutation(api.approvals.respond, { taskId, approvalId: second._id, decision: "approve" });
    const done = await newestRun(taskId, "completed");
    expect(done.toolCalls.map((c) => c.outcome)).toEqual(["ok", "ok"]);
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Hero copy", "Signup form"]);
    const lastResults = model.requests.filter((r) => isJarvis(r.messages) && isResults(r.messages)).at(-1)!;
    expect(observationsIn(lastResults.messages)).toHaveLength(2);
  });

  test("/stop stops a run waiting for an approval, as the Stop button does: none of the reply's calls runs", async () => {
    script = splitScript("high", "medium");
    const taskId = await mention("Landing D", "@Jarvis split the landing page");
    const waiting = await newestRun(taskId, "waiting");
    expect(await ada.query(api.slashCommands.previewSlashCommand, { departmentId, taskId, text: "/stop" })).toMatchObject({ ok: true, text: "Stops Jarvis's waiting run on this task." });
    expect(await ada.mutation(api.slashCommands.resolveSlashCommand, { departmentId, taskId, text: "/stop" })).toEqual({ ok: true, message: "Stopped." });
    const stopped = await newestRun(taskId, "aborted");
    expect(stopped._id).toBe(waiting._id);
    expect(stopped.toolCalls).toEqual([]);
    const [card] = await ada.query(api.approvals.listForTask, { taskId });
    expect(card.status).not.toBe("pending");
    await expect(ada.mutation(api.approvals.respond, { taskId, approvalId: card._id, decision: "approve" })).rejects.toThrow();
    // Give a (wrong) resumed run time to act: nothing is delegated.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await childrenOf(taskId)).toEqual([]);
  });

  test("/stop stops a run waiting on its question", async () => {
    script = (messages) => (isResults(messages) ? "Fine." : '[TOOL: ask_question ARG: {"question": "Which colour?"}]');
    const taskId = await mention("Colours D", "@Jarvis pick a colour");
    await newestRun(taskId, "waiting");
    expect(await ada.mutation(api.slashCommands.resolveSlashCommand, { departmentId, taskId, text: "/stop" })).toEqual({ ok: true, message: "Stopped." });
    await newestRun(taskId, "aborted");
    expect((await ada.query(api.questions.listForTask, { taskId }))[0].status).not.toBe("pending");
  });
});

/** A streamed `delegate_task` call at `index`, as a Chat Completions chunk's `tool_calls` entry carries it. */
const call = (index: number, args: Record<string, unknown>) => ({ index, id: `call_${index}`, type: "function", function: { name: "delegate_task", arguments: JSON.stringify(args) } });
/** One Chat Completions stream chunk with this delta. */
const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });

/** For each commit that creates tasks from now on, their titles; `stop` ends the recording. */
function recordTaskCommits() {
  const taskCommits: string[][] = [];
  const { engine } = squad.backend;
  const notify = engine.onCommit;
  engine.onCommit = (changes, ts) => {
    const created = changes.filter((c) => c.table === "tasks" && c.before === null && c.after !== null).map((c) => String((c.after as { title: string }).title));
    if (created.length > 0) taskCommits.push(created);
    notify(changes, ts);
  };
  return { taskCommits, stop: () => (engine.onCommit = notify) };
}

describe("a reply's delegations one after another", () => {
  test("that arrive together are made in one transaction: both tasks reach the board in one commit, each call still announced and answered in order", async () => {
    // Both native calls whole in one chunk (a streamed call starts as soon as it is complete, so calls streamed apart run apart).
    script = (messages) =>
      isResults(messages)
        ? `Results:\n${observationsIn(messages).join("\n")}`
        : { chunks: [choice({ role: "assistant", content: "Splitting it." }), choice({ tool_calls: [call(0, { ...HERO, priority: "medium" }), call(1, { ...FORM, priority: "medium" })] }), choice({}, "tool_calls")] };
    const { taskCommits, stop } = recordTaskCommits();
    try {
      const taskId = await mention("Landing T", "@Jarvis split the landing page");
      const done = await newestRun(taskId, "completed");
      expect(taskCommits.filter((titles) => titles.some((t) => t === HERO.title || t === FORM.title))).toEqual([[HERO.title, FORM.title]]);
      await expectBothDelegated(taskId, done);
      // Each its own instruction in its own thread, and each result fed back to the model.
      for (const child of await childrenOf(taskId)) expect((await thread(child._id))[0].content).toMatch(/^@(Writer|Dev Bot) (Write the hero copy|Build the signup form)\.$/);
      const reply = (await thread(taskId)).at(-1)!.content;
      expect(reply).toContain('"title":"Hero copy"');
      expect(reply).toContain('"title":"Signup form"');
      const calls = (await eventsOf(done._id)).flatMap((e) => (e.type === "tool_call" || e.type === "tool_result" ? [`${e.type} ${e.index}`] : []));
      expect(calls).toEqual(["tool_call 0", "tool_result 0", "tool_call 1", "tool_result 1"]);
    } finally {
      stop();
    }
  });

  test("streamed one after the other, the calls completed while the first is announced join it: both tasks in one commit, each call announced and answered in order", async () => {
    // Each call in a chunk of its own, as a server streams them: the second is complete once the stream ends, while the first is being announced.
    script = (messages) =>
      isResults(messages)
        ? `Results:\n${observationsIn(messages).join("\n")}`
        : {
            chunks: [
              choice({ role: "assistant", content: "Splitting it." }),
              choice({ tool_calls: [call(0, { ...HERO, priority: "medium" })] }),
              choice({ tool_calls: [call(1, { ...FORM, priority: "medium" })] }),
              choice({}, "tool_calls"),
            ],
          };
    const { taskCommits, stop } = recordTaskCommits();
    try {
      const taskId = await mention("Landing S", "@Jarvis split the landing page");
      const done = await newestRun(taskId, "completed");
      expect(taskCommits.filter((titles) => titles.some((t) => t === HERO.title || t === FORM.title))).toEqual([[HERO.title, FORM.title]]);
      await expectBothDelegated(taskId, done);
      const calls = (await eventsOf(done._id)).flatMap((e) => (e.type === "tool_call" || e.type === "tool_result" ? [`${e.type} ${e.index}`] : []));
      expect(calls).toEqual(["tool_call 0", "tool_result 0", "tool_call 1", "tool_result 1"]);
      // The words before the calls are said once, before the first call acts.
      const said = (await thread(taskId)).filter((m) => m.content === "Splitting it.");
      expect(said).toHaveLength(1);
    } finally {
      stop();
    }
  });

  test("a call that needs approval is not made with the ones before it: they are made, then the run waits for it", async () => {
    script = (messages) =>
      isResults(messages)
        ? `Results:\n${observationsIn(messages).join("\n")}`
        : `Splitting it.\n${delegate({ ...HERO, priority: "medium" })}\n${delegate({ ...FORM, priority: "medium" })}\n${delegate({ title: "Pricing table", description: "Prices.", assignees: ["Writer"], instruction: "Draft the prices.", priority: "high" })}`;
    const taskId = await mention("Landing U", "@Jarvis split the landing page");
    const waiting = await newestRun(taskId, "waiting");
    expect(waiting.toolCalls.map((c) => [c.name, c.outcome])).toEqual([
      ["delegate_task", "ok"],
      ["delegate_task", "ok"],
    ]);
    expect((await childrenOf(taskId)).map((c) => c.title).sort()).toEqual(["Hero copy", "Signup form"]);
    const [card] = await ada.query(api.approvals.listForTask, { taskId });
    await ada.mutation(api.approvals.respond, { taskId, approvalId: card._id, decision: "approve" });
    const done = await newestRun(taskId, "completed");
    expect(done.toolCalls.map((c) => c.outcome)).toEqual(["ok", "ok", "ok"]);
    expect((await childrenOf(taskId)).map((c) => c.title).sort()).toEqual(["Hero copy", "Pricing table", "Signup form"]);
  });
});

describe("delegation is idempotent by what it asks", () => {
  test("a 500 after a delegation, then a retry message: the same call returns the first task, and nothing new is created", async () => {
    let failed = false;
    script = (messages) => {
      if (isResults(messages)) {
        if (!failed) {
          failed = true;
          return { status: 500, body: JSON.stringify({ error: { message: "upstream overloaded" } }) };
        }
        return `Results:\n${observationsIn(messages).join("\n")}`;
      }
      return `Delegating.\n${delegate({ ...HERO, priority: "medium" })}`;
    };
    const taskId = await mention("Launch R", "@Jarvis delegate the hero copy to Writer");
    const errored = await newestRun(taskId, "error");
    expect(errored.reason).toMatch(/500/);
    expect((await childrenOf(taskId)).map((c) => c.title)).toEqual(["Hero copy"]);
    const first = (await childrenOf(taskId))[0];

    await ada.mutation(api.messages.create, { taskId, content: "@Jarvis that failed, please retry" });
    const done = await newestRun(taskId, "completed", 2);
    const children = await childrenOf(taskId);
    expect(children.map((c) => c._id)).toEqual([first._id]);
    const observation = JSON.parse(done.toolCalls[0].observation) as Record<string, unknown>;
    expect(observation).toMatchObject({ ok: true, taskId: first._id, title: "Hero copy", assigneesResolved: ["Writer"], assigneesRequested: ["Writer"], alreadyExisted: true });
    expect(observation.note).toMatch(/already exists/);
    expect(done.toolCalls[0].outcome).toBe("ok");
  });

  test("different assignees, or the first task done, is new work", async () => {
    script = (messages) => (isResults(messages) ? "Done." : delegate({ ...HERO, title: "  hero COPY. ", assignees: ["Writer"] }));
    const taskId = await mention("Launch S", "@Jarvis delegate the hero copy to Writer");
    await newestRun(taskId, "completed");
    script = (messages) => (isResults(messages) ? "Done." : delegate({ ...HERO, assignees: ["Writer", "Dev Bot"] }));
    await ada.mutation(api.messages.create, { taskId, content: "@Jarvis give it to Writer and Dev Bot" });
    const second = await newestRun(taskId, "completed", 2);
    expect(second.toolCalls.map((c) => c.observation)).toEqual([expect.stringContaining('"ok":true')]);
    expect((await childrenOf(taskId)).map((c) => c.assigneeSessionKeys.length).sort()).toEqual([1, 2]);
    // The same title once normalised, the same assignee spelled otherwise: the same delegation.
    script = (messages) => (isResults(messages) ? "Done." : delegate({ ...HERO, assignees: ["writer"] }));
    await ada.mutation(api.messages.create, { taskId, content: "@Jarvis once more for Writer" });
    const again = await newestRun(taskId, "completed", 3);
    expect(JSON.parse(again.toolCalls[0].observation)).toMatchObject({ alreadyExisted: true });
    expect(await childrenOf(taskId)).toHaveLength(2);
    const single = (await childrenOf(taskId)).find((c) => c.assigneeSessionKeys.length === 1)!;
    await ada.mutation(api.tasks.setStatus, { taskId: single._id, status: "done" });
    await ada.mutation(api.messages.create, { taskId, content: "@Jarvis and once more for Writer" });
    await newestRun(taskId, "completed", 4);
    expect(await childrenOf(taskId)).toHaveLength(3);
  });
});

describe("delegate_task's result is the spec's contract", () => {
  test("one unknown name among known ones: the task goes to the names that resolve; the rest are listed in the result and in the thread", async () => {
    script = (messages) => (isResults(messages) ? "Done." : delegate({ ...FORM, assignees: ["Dev Bot", "Casper", "writer"] }));
    const taskId = await mention("Launch T", "@Jarvis split the form");
    const done = await newestRun(taskId, "completed");
    const [child] = await childrenOf(taskId);
    expect(child.assigneeSessionKeys.sort()).toEqual(["agent:dev-bot:product", "agent:writer:product"]);
    expect(done.toolCalls[0].outcome).toBe("ok");
    expect(JSON.parse(done.toolCalls[0].observation)).toEqual({
      ok: true,
      taskId: child._id,
      title: "Signup form",
      assigneesResolved: ["Dev Bot", "Writer"],
      assigneesRequested: ["Dev Bot", "Casper", "writer"],
      assigneesUnresolved: ["Casper"],
      note: expect.stringContaining('"Casper"'),
    });
    const note = (await thread(taskId)).find((m) => m.author.kind === "system" && m.content.includes("Casper"));
    expect(note?.content).toContain("Jarvis delegated “Signup form” to Dev Bot, Writer only");
  });

  test("no name resolves: a clear error, in the result and in the thread, and nothing is created", async () => {
    script = (messages) => (isResults(messages) ? "Done." : delegate({ ...FORM, assignees: ["Casper"] }));
    const taskId = await mention("Launch U", "@Jarvis give the form to Casper");
    const done = await newestRun(taskId, "completed");
    expect(done.toolCalls[0]).toMatchObject({ outcome: "error", observation: expect.stringContaining('Unknown assignee: "Casper"') });
    expect(await childrenOf(taskId)).toEqual([]);
  });

  test("a missing description is refused with a clear error, and nothing is created", async () => {
    const { description: _description, ...noDescription } = FORM;
    script = (messages) => (isResults(messages) ? "Done." : delegate(noDescription));
    const taskId = await mention("Launch V", "@Jarvis delegate the form to Dev Bot");
    const done = await newestRun(taskId, "completed");
    expect(done.toolCalls[0]).toMatchObject({ outcome: "invalid", observation: expect.stringContaining("description is required") });
    expect(await childrenOf(taskId)).toEqual([]);
  });
});

test("an answer that is not a chat completion ends the run saying what came back", async () => {
  script = () => ({ status: 200, body: JSON.stringify({ result: "queued", id: 7 }) });
  const taskId = await mention("Launch W", "@Jarvis hello");
  const errored = await newestRun(taskId, "error");
  expect(errored.reason).not.toMatch(/no text/);
  expect(errored.reason).toContain('answered 200 with content type application/json and “{"result":"queued","id":7}”');
});
