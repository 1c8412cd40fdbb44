/**
 * What agents cost: the price table (known models, the demo model free,
 * admins' own prices), each model call charged to its run, task, agent, day
 * and month, and the monthly budget that refuses new runs with a thread note.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { budgetNote, DEMO_MODEL_ID, KNOWN_MODEL_PRICES } from "../../convex/lib/pricing";
import { agent, AGENTS, createTask, demoSquad, expectError, insertRun, withClosedModel, type Actor, type TestConvex } from "./setup";

// Runs are created but never executed (no model is called).
withClosedModel();

const TODAY = new Date().toISOString().slice(0, 10);
const TIMING = { contextMs: 1, modelMs: 1, dispatchMs: 0 };

/** `actor` @mentions Jarvis on the task, and the trigger the board schedules runs as the scheduler would run it. */
async function mentionJarvis(t: TestConvex, actor: Actor, taskId: Id<"tasks">, text: string) {
  const messageId = await actor.mutation(api.messages.create, { taskId, content: `@Jarvis ${text}` });
  await t.mutation(internal.triggers.agentMentioned, { taskId, messageId, sessionKey: AGENTS.jarvis });
}

async function chargeCall(t: TestConvex, runId: Id<"runs">, model: string, promptTokens: number, completionTokens: number) {
  await t.mutation(internal.brain.writes.recordModelCall, { runId, model, promptTokens, completionTokens, timing: TIMING });
}

describe("price table", () => {
  test("every member reads the known prices, the demo model free; admins change them, others are refused", async () => {
    const { departmentId, admin, grace, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    const { prices } = await vera.query(api.costs.summary, { departmentId, today: TODAY });
    expect(prices.map((p) => p.model)).toEqual(KNOWN_MODEL_PRICES.map((p) => p.model));
    expect(prices.find((p) => p.model === DEMO_MODEL_ID)).toEqual({ model: DEMO_MODEL_ID, inputPerMillion: 0, outputPerMillion: 0 });
    expect(prices.find((p) => p.model === "gpt-4o-mini")).toEqual({ model: "gpt-4o-mini", inputPerMillion: 0.15, outputPerMillion: 0.6 });

    await admin.mutation(api.costs.setPrice, { departmentId, price: { model: "gpt-4o-mini", inputPerMillion: 0.2, outputPerMillion: 0.8 } });
    await admin.mutation(api.costs.setPrice, { departmentId, price: { model: "local-llama", inputPerMillion: 0.01, outputPerMillion: 0.02 } });
    const after = (await grace.query(api.costs.summary, { departmentId, today: TODAY })).prices;
    expect(after.find((p) => p.model === "gpt-4o-mini")).toMatchObject({ inputPerMillion: 0.2, outputPerMillion: 0.8 });
    expect(after.at(-1)).toEqual({ model: "local-llama", inputPerMillion: 0.01, outputPerMillion: 0.02 });

    // A member, a viewer and another department's admin may not; bad prices change nothing.
    const price = { model: "gpt-4o", inputPerMillion: 0, outputPerMillion: 0 };
    await expectError(grace.mutation(api.costs.setPrice, { departmentId, price }), "FORBIDDEN");
    await expectError(vera.mutation(api.costs.setPrice, { departmentId, price }), "FORBIDDEN");
    await expectError(other.member.mutation(api.costs.setPrice, { departmentId, price }), "FORBIDDEN");
    await expectError(other.member.query(api.costs.summary, { departmentId, today: TODAY }), "FORBIDDEN");
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, 1001]) {
      await expectError(admin.mutation(api.costs.setPrice, { departmentId, price: { ...price, inputPerMillion: bad } }), "INVALID_ARGUMENT");
    }
    await expectError(admin.mutation(api.costs.setPrice, { departmentId, price: { ...price, model: "   " } }), "INVALID_ARGUMENT");
    await expectError(admin.query(api.costs.summary, { departmentId, today: "yesterday" }), "INVALID_ARGUMENT");
    expect((await admin.query(api.costs.summary, { departmentId, today: TODAY })).prices).toEqual(after);
  });
});

describe("charging model calls", () => {
  test("a call costs its tokens at the department's price, added to its run, task, agent, day and month", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId, { title: "Priced" });
    const runId = await insertRun(t, AGENTS.jarvis, taskId);
    // 1M prompt tokens at $0.15 and 500k completion tokens at $0.60: $0.45.
    await chargeCall(t, runId, "gpt-4o-mini", 1_000_000, 500_000);
    // The demo model and a model with no price cost nothing.
    await chargeCall(t, runId, DEMO_MODEL_ID, 50_000, 50_000);
    await chargeCall(t, runId, "unpriced-model", 50_000, 50_000);

    const run = await admin.query(api.runs.get, { runId });
    expect(run.costMicros).toBe(450_000);

    // A labelled model (MAESTRO_MODEL_LABEL) reports its label: priced as the model behind it (here the default).
    process.env.MAESTRO_MODEL_LABEL = "house model";
    process.env.MAESTRO_DEFAULT_MODEL = "gpt-4o-mini";
    try {
      const labelled = await insertRun(t, AGENTS.writer, taskId);
      await chargeCall(t, labelled, "house model", 1_000_000, 0);
      expect((await admin.query(api.runs.get, { runId: labelled })).costMicros).toBe(150_000);
    } finally {
      delete process.env.MAESTRO_MODEL_LABEL;
      delete process.env.MAESTRO_DEFAULT_MODEL;
    }
    expect(await admin.query(api.costs.ofTask, { taskId })).toBe(600_000);
    const jarvis = await agent(t, AGENTS.jarvis);
    expect((await admin.query(api.runs.agentOverview, { agentId: jarvis._id })).totals.costMicros).toBe(450_000);
    const summary = await admin.query(api.costs.summary, { departmentId, today: TODAY });
    expect(summary.monthSpentMicros).toBe(600_000);
    expect(summary.days).toEqual([{ day: TODAY, micros: 600_000 }]);
  });
});

describe("monthly budget", () => {
  test("once the month's spend reaches the budget a mention starts no run, and the thread says why", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    await expectError(grace.mutation(api.costs.setBudget, { departmentId, monthlyBudgetUsd: 1 }), "FORBIDDEN");
    await expectError(admin.mutation(api.costs.setBudget, { departmentId, monthlyBudgetUsd: -5 }), "INVALID_ARGUMENT");
    await admin.mutation(api.costs.setBudget, { departmentId, monthlyBudgetUsd: 0.4 });

    const spentOn = await createTask(admin, departmentId, { title: "Spent" });
    await chargeCall(t, await insertRun(t, AGENTS.devBot, spentOn, "completed"), "gpt-4o-mini", 1_000_000, 500_000);

    const taskId = await createTask(admin, departmentId, { title: "Over budget" });
    await mentionJarvis(t, admin, taskId, "please plan this");
    const runs = await t.run(async (ctx) => await ctx.db.query("runs").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect());
    expect(runs).toEqual([]);
    const note = budgetNote("Jarvis", 400_000, 450_000);
    expect(note).toContain("monthly budget of $0.400 is spent");
    const thread = await t.run(async (ctx) => await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect());
    expect(thread.map((m) => [m.author.kind, m.content])).toEqual([
      ["member", "@Jarvis please plan this"],
      ["system", note],
    ]);
    // Each mention refused gets its answer.
    await mentionJarvis(t, admin, taskId, "again");
    const again = await t.run(async (ctx) => await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect());
    expect(again.map((m) => m.author.kind)).toEqual(["member", "system", "member", "system"]);
    const triggers = await t.run(async (ctx) => await ctx.db.query("agentTriggers").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect());
    expect(triggers.map((trigger) => trigger.note)).toEqual([note, note]);

    // Raising the budget lets the next mention start a run.
    await admin.mutation(api.costs.setBudget, { departmentId, monthlyBudgetUsd: null });
    await mentionJarvis(t, admin, taskId, "now, please");
    const started = await t.run(async (ctx) => await ctx.db.query("runs").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect());
    expect(started).toHaveLength(1);
  });
});
