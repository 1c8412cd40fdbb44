/**
 * A2A linkage (messaging spec, "A2A Integration"; reactions/a2a.ts): one
 * correlation id from a delegation to its done, each envelope an `a2a.*`
 * event with intent, from, to, task, batch and project, and the updates in
 * the parent task's thread.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { AGENTS, createTask, demoSquad, insertRun } from "./setup";

describe("A2A envelopes", () => {
  test("a delegation chain — delegated, started, blocked, review, done — carries one correlation id, and each update reaches the parent's thread", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const rootId = await createTask(admin, departmentId, { title: "Launch page" });
    const delegated = await t.mutation(internal.tools.delegation.createDelegatedTask, {
      departmentId,
      delegatorSessionKey: AGENTS.jarvis,
      title: "Hero copy",
      description: "",
      assigneeSessionKeys: [AGENTS.writer],
      instruction: "Write the hero copy.",
      parentTaskId: rootId,
    });
    if (!delegated.ok) throw new Error("the delegation was refused");
    const childId = delegated.taskId;
    const runId = await insertRun(t, AGENTS.writer, childId);
    for (const status of ["in_progress", "blocked", "review", "done"] as const) {
      await t.mutation(internal.tools.thread.updateTaskStatus, { runId, status });
    }

    const events = await t.run(async (ctx) => (await ctx.db.query("events").withIndex("by_department", (q) => q.eq("departmentId", departmentId)).collect()).filter((e) => e.type.startsWith("a2a.")));
    expect(new Set(events.map((e) => e.correlationId))).toEqual(new Set([`a2a:${childId}`]));
    expect(events.map((e) => [e.type, e.data.intent, e.data.from, e.data.to, e.data.status ?? null])).toEqual([
      ["a2a.delegate", "delegate", "Jarvis", "Writer", null],
      ["a2a.status_update", "status_update", "Writer", "Jarvis", "in_progress"],
      ["a2a.status_update", "status_update", "Writer", "Jarvis", "blocked"],
      ["a2a.status_update", "status_update", "Writer", "Jarvis", "review"],
      ["a2a.status_update", "status_update", "Writer", "Jarvis", "done"],
    ]);
    for (const event of events) {
      expect(event.data).toMatchObject({ correlation_id: `a2a:${childId}`, task_id: childId, batch_id: rootId, project_id: departmentId });
    }

    const parentThread = await admin.query(api.messages.list, { taskId: rootId, paginationOpts: { numItems: 50, cursor: null } });
    const lines = parentThread.page.map((m) => m.content).reverse();
    expect(lines).toEqual([
      "Jarvis delegated “Hero copy” to Writer.",
      "Delegated task “Hero copy” (assigned to Writer) has started.",
      "Delegated task “Hero copy” (assigned to Writer) is blocked.",
      "Delegated task “Hero copy” (assigned to Writer) is ready for review.",
      "Delegated task “Hero copy” (assigned to Writer) is done.",
    ]);
  });

  test("a task nobody delegated moves without envelopes; a person moving delegated work is the update's sender", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const plain = await createTask(admin, departmentId, { title: "Plain" });
    await admin.mutation(api.tasks.setStatus, { taskId: plain, status: "in_progress" });
    const rootId = await createTask(admin, departmentId, { title: "Root" });
    const delegated = await t.mutation(internal.tools.delegation.createDelegatedTask, {
      departmentId,
      delegatorSessionKey: AGENTS.jarvis,
      title: "Sub",
      description: "",
      assigneeSessionKeys: [AGENTS.devBot],
      instruction: "Do it.",
      parentTaskId: rootId,
    });
    if (!delegated.ok) throw new Error("the delegation was refused");
    await admin.mutation(api.tasks.setStatus, { taskId: delegated.taskId as Id<"tasks">, status: "done" });
    const events = await t.run(async (ctx) => (await ctx.db.query("events").collect()).filter((e) => e.type.startsWith("a2a.")));
    expect(events.map((e) => [e.type, e.data.from, e.data.task_id])).toEqual([
      ["a2a.delegate", "Jarvis", delegated.taskId],
      ["a2a.status_update", "Ada", delegated.taskId],
    ]);
  });
});
