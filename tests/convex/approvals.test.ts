/**
 * Pausing a run for a person and resuming it: approvals (approve, deny,
 * expire, hash mismatch, roles, other departments, stop), question cards
 * (answered on the card or by a reply in the thread) and plan cards
 * (approve, reject). The run action is not executed here (fake timers hold
 * it): each test plays its part with `brain/writes` `pause` and `start` (which takes the resume point),
 * the two mutations the action calls. The action's side is in
 * tests/backend/approvals.test.ts.
 */
import { describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import { DEFAULT_PAUSE_TTL_MS, HASH_MISMATCH, PLAN_EXPIRED, pauseTtlMs, QUESTION_EXPIRED } from "../../convex/lib/pauses";
import { queuedLimitMs } from "../../convex/lib/runLease";
import {
  addToDepartment,
  AGENTS,
  createOtherDepartment,
  createTask,
  demoSquad,
  expectError,
  holdScheduledFunctions,
  insertRun,
  roundInputs,
  type Actor,
  type TestConvex,
} from "./setup";

holdScheduledFunctions();

const DELEGATION = '{"assignees":["Writer"],"description":"","instruction":"Write it.","priority":"high","title":"Hero copy"}';

function state(overrides: Partial<{ index: number; nextIndex: number; round: number }> = {}) {
  return {
    conversation: [],
    round: 0,
    index: 0,
    nextIndex: 1,
    call: { name: "delegate_task", args: DELEGATION },
    reply: `On it.\n[TOOL: delegate_task ARG: ${DELEGATION}]`,
    before: [],
    after: [],
    seen: [`call delegate_task ${DELEGATION}`],
    ...overrides,
  };
}

async function setup() {
  const { t, departmentId, admin } = await demoSquad();
  const taskId = await createTask(admin, departmentId, { title: "Landing page", priority: "high" });
  const runId = await insertRun(t, AGENTS.jarvis, taskId);
  return { t, departmentId, admin, taskId, runId };
}

async function runOf(t: TestConvex, runId: Id<"runs">): Promise<Doc<"runs">> {
  return await t.run(async (ctx) => (await ctx.db.get("runs", runId))!);
}

async function eventsOf(t: TestConvex, runId: Id<"runs">) {
  return await t.run(async (ctx) => (await ctx.db.query("runEvents").withIndex("by_run_and_seq", (q) => q.eq("runId", runId)).collect()).map((e) => e.payload));
}

/** The run asks for approval of the stored delegation; returns the approval's id. */
async function pauseForApproval(t: TestConvex, runId: Id<"runs">): Promise<Id<"approvals">> {
  expect(await t.mutation(internal.brain.writes.pause, { runId, attempt: 1, request: { kind: "approval", tool: "delegate_task", args: DELEGATION }, state: state() })).toBe("ok");
  const run = await runOf(t, runId);
  return run.paused!.id as Id<"approvals">;
}

/** The next attempt of a resumed run, as the action starts it. */
async function nextAttempt(t: TestConvex, runId: Id<"runs">) {
  // One write, as the action makes it: the run starts and its resume point is taken.
  const started = await t.mutation(internal.brain.writes.start, { runId });
  expect(started).not.toBeNull();
  expect(started!.failure).toBeUndefined();
  return started!.resume;
}

async function snapshot(t: TestConvex) {
  return await t.run(async (ctx) => JSON.stringify([await ctx.db.query("approvals").collect(), await ctx.db.query("runs").collect(), await ctx.db.query("runEvents").collect()]));
}

describe("approvals", () => {
  test("a paused call: an approvals row bound to run, call and argument hash; approval_requested; the run waits without a lease", async () => {
    const { t, taskId, runId, admin } = await setup();
    const approvalId = await pauseForApproval(t, runId);
    const run = await runOf(t, runId);
    expect(run).toMatchObject({ status: "waiting", paused: { kind: "approval", id: approvalId, index: 0, nextIndex: 1 } });
    expect(run.leaseExpiresAt).toBeUndefined();
    const [card] = await admin.query(api.approvals.listForTask, { taskId });
    expect(card).toMatchObject({ _id: approvalId, runId, toolCallId: `${runId}:0`, tool: "delegate_task", args: DELEGATION, status: "pending", agentName: "Jarvis" });
    expect(card.expiresAt - card._creationTime).toBeGreaterThan(DEFAULT_PAUSE_TTL_MS - 60_000);
    expect((await eventsOf(t, runId)).at(-1)).toEqual({ type: "approval_requested", approvalId, tool: "delegate_task", args: DELEGATION });
    const row = await t.run(async (ctx) => (await ctx.db.get("approvals", approvalId))!);
    // sha256 of the canonical arguments.
    expect(row.argsHash).toMatch(/^[0-9a-f]{64}$/);
    // The lease sweeper leaves a waiting run alone.
    expect(await t.mutation(internal.sweeps.lapsedRuns, {})).toEqual({ retried: 0, interrupted: 0 });
    expect((await runOf(t, runId)).status).toBe("waiting");
  });

  test("approve: control_submitted, the run is queued again and its next attempt runs exactly the stored call", async () => {
    const { t, taskId, runId, admin } = await setup();
    const approvalId = await pauseForApproval(t, runId);
    await admin.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" });
    expect((await runOf(t, runId)).status).toBe("queued");
    expect((await eventsOf(t, runId)).at(-1)).toEqual({ type: "control_submitted", action: "resume", by: "Ada", note: "approved delegate_task" });
    const [card] = await admin.query(api.approvals.listForTask, { taskId });
    expect(card).toMatchObject({ status: "approved", decidedBy: "Ada" });
    const resume = await nextAttempt(t, runId);
    expect(resume?.resolution).toEqual({ kind: "execute", tool: "delegate_task", args: DELEGATION });
    expect(resume?.pause.seen).toEqual([`call delegate_task ${DELEGATION}`]);
    // Taken once: the pause is cleared, so nothing is resumed twice.
    expect((await runOf(t, runId)).paused).toBeUndefined();
  });

  test("deny: the model reads 'denied by <name>: <reason>' as the tool's result", async () => {
    const { t, taskId, runId, admin } = await setup();
    const approvalId = await pauseForApproval(t, runId);
    await admin.mutation(api.approvals.respond, { taskId, approvalId, decision: "deny", reason: "  not this week " });
    expect((await eventsOf(t, runId)).at(-1)).toMatchObject({ type: "control_submitted", note: "denied delegate_task: not this week" });
    const resume = await nextAttempt(t, runId);
    expect(resume?.resolution).toEqual({ kind: "result", outcome: "denied", text: "delegate_task: denied by Ada: not this week" });
  });

  test("expiry: the sweeper expires an overdue approval, counted as denied, and resumes the run; a late response is refused", async () => {
    const { t, taskId, runId, admin } = await setup();
    const approvalId = await pauseForApproval(t, runId);
    await t.run(async (ctx) => await ctx.db.patch("approvals", approvalId, { expiresAt: Date.now() - 1 }));
    const before = await snapshot(t);
    await expectError(admin.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" }), "CONFLICT", /expired/);
    expect(await snapshot(t)).toBe(before);
    expect(await t.mutation(internal.sweeps.overdueCards, {})).toEqual({ approvals: 1, questions: 0, plans: 0 });
    expect((await runOf(t, runId)).status).toBe("queued");
    const resume = await nextAttempt(t, runId);
    expect(resume?.resolution).toMatchObject({ kind: "result", outcome: "denied", text: expect.stringContaining("denied: expired") });
    await expectError(admin.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" }), "CONFLICT", "This approval was already expired.");
  });

  test("a stored call whose hash no longer matches is refused, not run", async () => {
    const { t, taskId, runId, admin } = await setup();
    const approvalId = await pauseForApproval(t, runId);
    await admin.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" });
    await t.run(async (ctx) => await ctx.db.patch("approvals", approvalId, { args: DELEGATION.replace("Writer", "Dev Bot") }));
    const resume = await nextAttempt(t, runId);
    expect(resume?.resolution).toEqual({ kind: "result", outcome: "refused", text: `delegate_task: ${HASH_MISMATCH}` });
  });

  test("decided once: a second response is refused with who decided, and nothing changes", async () => {
    const { t, taskId, runId, admin } = await setup();
    const approvalId = await pauseForApproval(t, runId);
    await admin.mutation(api.approvals.respond, { taskId, approvalId, decision: "deny" });
    const before = await snapshot(t);
    await expectError(admin.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" }), "CONFLICT", "This approval was already denied by Ada.");
    expect(await snapshot(t)).toBe(before);
  });

  test("roles: members, admins and owners decide; a viewer and another department are FORBIDDEN, nothing changed", async () => {
    const roles = ["member", "admin", "owner"] as const;
    for (const role of roles) {
      const { t, departmentId, taskId, runId } = await setup();
      const person: Actor = await addToDepartment(t, departmentId, `P-${role}`, role);
      const approvalId = await pauseForApproval(t, runId);
      await person.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" });
      expect((await runOf(t, runId)).status).toBe("queued");
    }
    const { t, departmentId, taskId, runId } = await setup();
    const approvalId = await pauseForApproval(t, runId);
    const viewer = await addToDepartment(t, departmentId, "Vera", "viewer");
    const { member: mallory } = await createOtherDepartment(t);
    const before = await snapshot(t);
    await expectError(viewer.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" }), "FORBIDDEN");
    await expectError(mallory.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" }), "FORBIDDEN");
    expect(await snapshot(t)).toBe(before);
    // A viewer still sees the card (read-only in the UI).
    expect(await viewer.query(api.approvals.listForTask, { taskId })).toHaveLength(1);
    await expectError(mallory.query(api.approvals.listForTask, { taskId }), "FORBIDDEN");
  });

  test("an approval id from another task is not found", async () => {
    const { t, departmentId, runId, admin } = await setup();
    const approvalId = await pauseForApproval(t, runId);
    const otherTask = await createTask(admin, departmentId, { title: "Elsewhere" });
    await expectError(admin.mutation(api.approvals.respond, { taskId: otherTask, approvalId, decision: "approve" }), "NOT_FOUND");
  });

  test("Stop on a waiting run: aborted, its approval closed; responding afterwards is refused", async () => {
    const { t, taskId, runId, admin } = await setup();
    const approvalId = await pauseForApproval(t, runId);
    await admin.mutation(api.runs.stop, { taskId, runId });
    expect((await runOf(t, runId)).status).toBe("aborted");
    expect((await eventsOf(t, runId)).at(-1)).toMatchObject({ type: "agent_end", reason: "aborted" });
    const [card] = await admin.query(api.approvals.listForTask, { taskId });
    expect(card).toMatchObject({ status: "expired", reason: "stopped by Ada" });
    await expectError(admin.mutation(api.approvals.respond, { taskId, approvalId, decision: "approve" }), "CONFLICT");
  });

  test("a stale attempt cannot pause the run", async () => {
    const { t, runId } = await setup();
    expect(await t.mutation(internal.brain.writes.pause, { runId, attempt: 7, request: { kind: "approval", tool: "delegate_task", args: DELEGATION }, state: state() })).toBe("aborted");
    expect((await runOf(t, runId)).status).toBe("running");
    expect(await t.run(async (ctx) => await ctx.db.query("approvals").collect())).toEqual([]);
  });

  test("MAESTRO_APPROVAL_TTL_MS sets the expiry", () => {
    expect(pauseTtlMs({ MAESTRO_APPROVAL_TTL_MS: "60000" })).toBe(60_000);
    expect(pauseTtlMs({ MAESTRO_APPROVAL_TTL_MS: "soon" })).toBe(DEFAULT_PAUSE_TTL_MS);
  });
});

describe("question cards", () => {
  async function asked() {
    const context = await setup();
    const { t, runId } = context;
    await t.mutation(internal.brain.writes.pause, { runId, attempt: 1, request: { kind: "question", question: " Formal or playful? " }, state: state({}) });
    return { ...context, questionId: (await runOf(t, runId)).paused!.id as Id<"questions"> };
  }

  test("ask_question: a card, the question in the thread, the task blocked, question_asked, the run waiting", async () => {
    const { t, taskId, runId, admin, questionId } = await asked();
    expect(await admin.query(api.questions.listForTask, { taskId })).toMatchObject([{ _id: questionId, question: "Formal or playful?", status: "pending", agentName: "Jarvis" }]);
    const task = await admin.query(api.tasks.get, { taskId });
    expect(task).toMatchObject({ status: "blocked", pendingQuestion: { questionId } });
    expect((await eventsOf(t, runId)).at(-1)).toEqual({ type: "question_asked", questionId, question: "Formal or playful?" });
    expect((await runOf(t, runId)).status).toBe("waiting");
  });

  test("answered on the card: the answer is posted, the task unblocked, tool_output_submitted, and the run resumes with it", async () => {
    const { t, taskId, runId, admin, questionId } = await asked();
    await admin.mutation(api.questions.respond, { taskId, questionId, answer: "Playful." });
    expect((await admin.query(api.tasks.get, { taskId })).status).not.toBe("blocked");
    expect((await eventsOf(t, runId)).at(-1)).toEqual({ type: "tool_output_submitted", tool: "ask_question", content: "Ada: Playful." });
    expect((await admin.query(api.questions.listForTask, { taskId }))[0]).toMatchObject({ status: "answered", answer: "Playful.", answeredBy: "Ada" });
    const resume = await nextAttempt(t, runId);
    expect(resume?.resolution).toEqual({ kind: "result", outcome: "ok", text: "Ada answered: Playful." });
    await expectError(admin.mutation(api.questions.respond, { taskId, questionId, answer: "Again" }), "CONFLICT", /already answered by Ada/);
  });

  test("a reply in the thread answers it through the same path; no second run is started", async () => {
    const { t, taskId, runId, admin, questionId } = await asked();
    await admin.mutation(api.messages.create, { taskId, content: "Formal, please." });
    expect((await admin.query(api.questions.listForTask, { taskId }))[0]).toMatchObject({ _id: questionId, status: "answered", answer: "Formal, please." });
    expect((await runOf(t, runId)).status).toBe("queued");
    expect(await t.run(async (ctx) => (await ctx.db.query("runs").collect()).length)).toBe(1);
  });

  test("a viewer cannot answer; stopping the run withdraws the question and unblocks the task", async () => {
    const { t, departmentId, taskId, runId, admin, questionId } = await asked();
    const viewer = await addToDepartment(t, departmentId, "Vera", "viewer");
    await expectError(viewer.mutation(api.questions.respond, { taskId, questionId, answer: "x" }), "FORBIDDEN");
    await admin.mutation(api.runs.stop, { taskId, runId });
    expect((await admin.query(api.questions.listForTask, { taskId }))[0].status).toBe("cancelled");
    const task = await admin.query(api.tasks.get, { taskId });
    expect(task.status).not.toBe("blocked");
    expect(task).not.toHaveProperty("pendingQuestion");
    await expectError(admin.mutation(api.questions.respond, { taskId, questionId, answer: "late" }), "CONFLICT", /withdrawn/);
  });
});

describe("plan cards", () => {
  const steps = [
    { title: "Hero copy", assignee: "Writer" },
    { title: "Signup form", assignee: "Dev Bot", description: "Email only", priority: "high" as const },
  ];

  async function proposed() {
    const context = await setup();
    const { t, runId } = context;
    await t.mutation(internal.brain.writes.pause, { runId, attempt: 1, request: { kind: "plan", summary: "Two parts", steps }, state: state({}) });
    return { ...context, planId: (await runOf(t, runId)).paused!.id as Id<"plans"> };
  }

  test("propose: plan_proposed with steps and assignees; approve resumes the run to delegate exactly the steps", async () => {
    const { t, taskId, runId, admin, planId } = await proposed();
    expect((await eventsOf(t, runId)).at(-1)).toEqual({
      type: "plan_proposed",
      planId,
      steps: [
        { title: "Hero copy", assignee: "Writer" },
        { title: "Signup form", assignee: "Dev Bot" },
      ],
    });
    await admin.mutation(api.plans.respond, { taskId, planId, action: "approve" });
    expect((await eventsOf(t, runId)).at(-1)).toMatchObject({ type: "control_submitted", note: "approved the plan (2 steps)" });
    const resume = await nextAttempt(t, runId);
    expect(resume?.resolution).toEqual({ kind: "delegate_plan", decidedBy: "Ada", steps });
  });

  test("reject with feedback: the lead reads the feedback and is asked to revise", async () => {
    const { t, taskId, runId, admin, planId } = await proposed();
    await admin.mutation(api.plans.respond, { taskId, planId, action: "reject", feedback: "Give the form to Writer too" });
    expect((await admin.query(api.plans.listForTask, { taskId }))[0]).toMatchObject({ status: "rejected", decidedBy: "Ada", feedback: "Give the form to Writer too" });
    const resume = await nextAttempt(t, runId);
    expect(resume?.resolution).toMatchObject({ kind: "result", outcome: "denied", text: expect.stringContaining("rejected by Ada: Give the form to Writer too. Revise it") });
    await expectError(admin.mutation(api.plans.respond, { taskId, planId, action: "approve" }), "CONFLICT", /already rejected by Ada/);
  });

  test("viewers and other departments cannot decide a plan", async () => {
    const { t, departmentId, taskId, planId } = await proposed();
    const viewer = await addToDepartment(t, departmentId, "Vera", "viewer");
    const { member: mallory } = await createOtherDepartment(t);
    await expectError(viewer.mutation(api.plans.respond, { taskId, planId, action: "approve" }), "FORBIDDEN");
    await expectError(mallory.mutation(api.plans.respond, { taskId, planId, action: "approve" }), "FORBIDDEN");
  });
});

describe("questions and plans expire like approvals (fake timers)", () => {
  const steps = [{ title: "Hero copy", assignee: "Writer" }];

  async function waitingOn(kind: "question" | "plan", key?: string, context?: Awaited<ReturnType<typeof setup>>) {
    const ctx = context ?? (await setup());
    const request = kind === "question" ? { kind, question: "Formal or playful?", key } : { kind, summary: "One part", steps, key };
    expect(await ctx.t.mutation(internal.brain.writes.pause, { runId: ctx.runId, attempt: 1, request, state: state() })).toBe("ok");
    return { ...ctx, cardId: (await runOf(ctx.t, ctx.runId)).paused!.id };
  }

  test("a question nobody answers: expired by the sweeper after the TTL, the task unblocked, the run resumed with 'nobody answered in time'", async () => {
    const { t, taskId, runId, admin, cardId } = await waitingOn("question");
    const questionId = cardId as Id<"questions">;
    const [card] = await admin.query(api.questions.listForTask, { taskId });
    expect(card.expiresAt! - card._creationTime).toBeCloseTo(DEFAULT_PAUSE_TTL_MS, -1);
    vi.advanceTimersByTime(DEFAULT_PAUSE_TTL_MS - 1_000);
    expect(await t.mutation(internal.sweeps.overdueCards, {})).toEqual({ approvals: 0, questions: 0, plans: 0 });
    expect((await runOf(t, runId)).status).toBe("waiting");
    vi.advanceTimersByTime(2_000);
    // Past its expiry the card takes no answer, even before the sweeper came by.
    const before = await snapshot(t);
    await expectError(admin.mutation(api.questions.respond, { taskId, questionId, answer: "Playful." }), "CONFLICT", /has expired/);
    expect(await snapshot(t)).toBe(before);
    expect(await t.mutation(internal.sweeps.overdueCards, {})).toEqual({ approvals: 0, questions: 1, plans: 0 });
    expect((await admin.query(api.questions.listForTask, { taskId }))[0]).toMatchObject({ _id: questionId, status: "expired" });
    const task = await admin.query(api.tasks.get, { taskId });
    expect(task.status).not.toBe("blocked");
    expect(task).not.toHaveProperty("pendingQuestion");
    expect((await eventsOf(t, runId)).at(-1)).toEqual({ type: "control_submitted", action: "resume", by: "Maestro", note: "the question expired: nobody answered in time" });
    const resume = await nextAttempt(t, runId);
    expect(resume?.resolution).toEqual({ kind: "result", outcome: "ok", text: QUESTION_EXPIRED });
    await expectError(admin.mutation(api.questions.respond, { taskId, questionId, answer: "late" }), "CONFLICT", "This question has expired: nobody answered in time, and the agent went on without an answer.");
    expect(await t.mutation(internal.sweeps.overdueCards, {})).toEqual({ approvals: 0, questions: 0, plans: 0 });
  });

  test("a plan nobody decides on: expired after the TTL, counted as rejected; the lead reads that nothing was delegated", async () => {
    const { t, taskId, runId, admin, cardId } = await waitingOn("plan");
    const planId = cardId as Id<"plans">;
    vi.advanceTimersByTime(DEFAULT_PAUSE_TTL_MS + 1);
    await expectError(admin.mutation(api.plans.respond, { taskId, planId, action: "approve" }), "CONFLICT", /has expired/);
    expect(await t.mutation(internal.sweeps.overdueCards, {})).toEqual({ approvals: 0, questions: 0, plans: 1 });
    expect((await admin.query(api.plans.listForTask, { taskId }))[0]).toMatchObject({ _id: planId, status: "expired" });
    expect((await eventsOf(t, runId)).at(-1)).toMatchObject({ type: "control_submitted", note: "the plan expired: nobody decided in time" });
    const resume = await nextAttempt(t, runId);
    expect(resume?.resolution).toEqual({ kind: "result", outcome: "denied", text: PLAN_EXPIRED });
    await expectError(admin.mutation(api.plans.respond, { taskId, planId, action: "approve" }), "CONFLICT", "This plan has expired: nobody decided in time, so nothing was delegated.");
  });

  test("cards from before expiry existed (no expiresAt) never expire", async () => {
    const { t, cardId } = await waitingOn("question");
    await t.run(async (ctx) => await ctx.db.patch("questions", cardId as Id<"questions">, { expiresAt: undefined }));
    vi.advanceTimersByTime(10 * DEFAULT_PAUSE_TTL_MS);
    expect(await t.mutation(internal.sweeps.overdueCards, {})).toEqual({ approvals: 0, questions: 0, plans: 0 });
  });
});

describe("the same question or plan from the same cause is not asked twice", () => {
  async function questions(t: TestConvex) {
    return await t.run(async (ctx) => await ctx.db.query("questions").collect());
  }
  async function threadSize(t: TestConvex) {
    return await t.run(async (ctx) => (await ctx.db.query("messages").collect()).length);
  }
  /** Ends the run and starts another of Jarvis on the task, as the same trigger would after a failure. */
  async function nextRun(t: TestConvex, runId: Id<"runs">, taskId: Id<"tasks">) {
    await t.run(async (ctx) => await ctx.db.patch("runs", runId, { status: "error", reason: "Model call failed: 500" }));
    const next = await insertRun(t, AGENTS.jarvis, taskId);
    await t.run(async (ctx) => await ctx.db.patch("runs", next, { attempt: 1 }));
    return next;
  }
  const ask = (key: string) => ({ kind: "question" as const, question: "Formal or playful?", key });

  test("answered: a repeat waits on the first card and resumes at once with its answer; no new card, nothing new in the thread", async () => {
    const { t, taskId, runId, admin } = await setup();
    await t.mutation(internal.brain.writes.pause, { runId, attempt: 1, request: ask("ask_question:k1"), state: state() });
    const questionId = (await runOf(t, runId)).paused!.id as Id<"questions">;
    await admin.mutation(api.questions.respond, { taskId, questionId, answer: "Playful." });
    const first = await nextAttempt(t, runId);
    const again = await nextRun(t, runId, taskId);
    const [cards, messages] = [await questions(t), await threadSize(t)];
    expect(await t.mutation(internal.brain.writes.pause, { runId: again, attempt: 1, request: ask("ask_question:k1"), state: state() })).toBe("ok");
    expect(await questions(t)).toEqual(cards);
    expect(await threadSize(t)).toBe(messages);
    expect((await admin.query(api.tasks.get, { taskId })).status).not.toBe("blocked");
    expect((await runOf(t, again)).status).toBe("queued");
    expect((await eventsOf(t, again)).at(-1)).toMatchObject({ type: "control_submitted", note: "this question was already asked for the same request (answered)" });
    expect((await nextAttempt(t, again))?.resolution).toEqual(first?.resolution);
    // Another cause asks anew.
    const other = await nextRun(t, again, taskId);
    await t.mutation(internal.brain.writes.pause, { runId: other, attempt: 1, request: ask("ask_question:k2"), state: state() });
    expect(await questions(t)).toHaveLength(2);
  });

  test("withdrawn (its run was stopped): the same cause may ask again", async () => {
    const { t, taskId, runId, admin } = await setup();
    await t.mutation(internal.brain.writes.pause, { runId, attempt: 1, request: ask("ask_question:k1"), state: state() });
    await admin.mutation(api.runs.stop, { taskId, runId });
    const again = await insertRun(t, AGENTS.jarvis, taskId);
    await t.run(async (ctx) => await ctx.db.patch("runs", again, { attempt: 1 }));
    await t.mutation(internal.brain.writes.pause, { runId: again, attempt: 1, request: ask("ask_question:k1"), state: state() });
    expect((await questions(t)).map((q) => q.status)).toEqual(["cancelled", "pending"]);
    expect((await runOf(t, again)).status).toBe("waiting");
  });

  test("an approved plan: a repeat resumes at once to delegate the same steps (whose own keys find the tasks made)", async () => {
    const { t, taskId, runId, admin } = await setup();
    const propose = { kind: "plan" as const, summary: "One part", steps: [{ title: "Hero copy", assignee: "Writer" }], key: "propose_plan:k1" };
    await t.mutation(internal.brain.writes.pause, { runId, attempt: 1, request: propose, state: state() });
    const planId = (await runOf(t, runId)).paused!.id as Id<"plans">;
    await admin.mutation(api.plans.respond, { taskId, planId, action: "approve" });
    const first = await nextAttempt(t, runId);
    const again = await nextRun(t, runId, taskId);
    await t.mutation(internal.brain.writes.pause, { runId: again, attempt: 1, request: propose, state: state() });
    expect(await t.run(async (ctx) => (await ctx.db.query("plans").collect()).length)).toBe(1);
    expect((await nextAttempt(t, again))?.resolution).toEqual(first?.resolution);
  });
});

describe("what the dispatcher reads for policies and plan mode", () => {
  test("the task's priority, the agent's approval policies and the lead mode (task first, then department)", async () => {
    const { t, departmentId, taskId, runId } = await setup();
    expect(await t.query(internal.brain.context.agentForDispatch, { runId })).toMatchObject({ taskPriority: "high", toolApprovals: [], isSquadLead: true, leadMode: "act" });
    await t.run(async (ctx) => {
      await ctx.db.insert("settings", { departmentId, chat: {}, leadMode: "plan" });
    });
    expect((await t.query(internal.brain.context.agentForDispatch, { runId })).leadMode).toBe("plan");
    await t.run(async (ctx) => await ctx.db.patch("tasks", taskId, { leadMode: "act" }));
    expect((await t.query(internal.brain.context.agentForDispatch, { runId })).leadMode).toBe("act");
    expect((await roundInputs(t, runId)).context.leadMode).toBe("act");
  });

  test("before each call it reads the calling agent only; who else may call a tool is read for a denial's note", async () => {
    const { t, runId } = await setup();
    expect(await t.query(internal.brain.context.agentForDispatch, { runId })).not.toHaveProperty("squad");
    const squad = await t.query(internal.brain.context.dispatchSquad, { runId });
    expect(squad.find((a) => a.name === "Jarvis")?.allowedTools).toContain("delegate_task");
    expect(squad.find((a) => a.name === "Writer")?.allowedTools).not.toContain("delegate_task");
  });
});

describe("runs stuck queued", () => {
  test("the sweeper ends a run queued past MAESTRO_RUN_QUEUED_LIMIT_MS, said in the thread; a fresh queued run stays", async () => {
    const { t, taskId, admin } = await setup();
    const stale = await insertRun(t, AGENTS.writer, taskId, "queued");
    const fresh = await insertRun(t, AGENTS.devBot, taskId, "queued");
    await t.run(async (ctx) => {
      await ctx.db.patch("runs", stale, { lastActiveAt: Date.now() - queuedLimitMs({}) - 1 });
      await ctx.db.patch("runs", fresh, { lastActiveAt: Date.now() });
    });
    expect(await t.mutation(internal.sweeps.queuedRuns, {})).toBe(1);
    expect(await runOf(t, stale)).toMatchObject({ status: "error", reason: "never started: queued for more than 10 min" });
    expect((await runOf(t, fresh)).status).toBe("queued");
    const thread = await admin.query(api.messages.list, { taskId, paginationOpts: { numItems: 10, cursor: null } });
    expect(thread.page[0].content).toBe("Writer could not finish: never started: queued for more than 10 min");
    expect(queuedLimitMs({ MAESTRO_RUN_QUEUED_LIMIT_MS: "1000" })).toBe(1000);
  });
});
