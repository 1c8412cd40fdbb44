/** A run's events page through any number (runEvents.pageForRun), in order, and its newest tool calls read alone (toolCallsForRun), for its department only. */
import type { FunctionReturnType } from "convex/server";
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Doc } from "../../convex/_generated/dataModel";
import { MAX_TOOL_CALLS_SHOWN } from "../../convex/runEvents";
import { AGENTS, createOtherDepartment, createTask, demoSquad, expectError, insertRun } from "./setup";

const EVENTS = 5000;

describe("runEvents.pageForRun", () => {
  test(`a run of ${EVENTS} events is read through, page by page, every event once and in order`, async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId);
    const runId = await insertRun(t, AGENTS.writer, taskId);
    for (let start = 1; start <= EVENTS; start += 1000) {
      await t.run(async (ctx) => {
        for (let seq = start; seq < start + 1000; seq++) {
          await ctx.db.insert("runEvents", { runId, seq, kind: "harness", timestamp: seq, payload: { type: "agent_start", agentName: "Writer", model: "m", attempt: 1 } });
        }
      });
    }
    // The bounded read the run view uses stops well short of the whole run.
    expect((await admin.query(api.runEvents.listForRun, { runId })).length).toBeLessThan(EVENTS);

    const seqs: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    for (;;) {
      const page: FunctionReturnType<typeof api.runEvents.pageForRun> = await admin.query(api.runEvents.pageForRun, { runId, paginationOpts: { numItems: 1000, cursor } });
      seqs.push(...page.page.map((e) => e.seq));
      pages += 1;
      if (page.isDone) break;
      cursor = page.continueCursor;
    }
    expect(seqs).toHaveLength(EVENTS);
    expect(seqs.every((seq, i) => seq === i + 1)).toBe(true);
    expect(pages).toBeGreaterThanOrEqual(EVENTS / 1000);

    const other = await createOtherDepartment(t);
    await expectError(other.member.query(api.runEvents.pageForRun, { runId, paginationOpts: { numItems: 10, cursor: null } }), "FORBIDDEN");
    await expectError(admin.query(api.runEvents.pageForRun, { runId, paginationOpts: { numItems: 1001, cursor: null } }), "INVALID_ARGUMENT", /Page size/);
  });
});

describe("runEvents.toolCallsForRun", () => {
  test("a run's newest tool calls and their results, in order, among its streamed text; more when there are more; its department only", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId);
    const runId = await insertRun(t, AGENTS.writer, taskId);
    const calls = MAX_TOOL_CALLS_SHOWN + 5;
    await t.run(async (ctx) => {
      let seq = 0;
      const add = (payload: Doc<"runEvents">["payload"]) => ctx.db.insert("runEvents", { runId, seq: ++seq, kind: "harness", timestamp: seq, payload });
      for (let index = 0; index < calls; index++) {
        for (let n = 0; n < 20; n++) await add({ type: "message_update", delta: `text ${index}.${n} ` });
        await add({ type: "tool_call", index, name: "post_message", args: `{"content":"${index}"}` });
        // The newest call is still running: no result yet.
        if (index < calls - 1) await add({ type: "tool_result", index, name: "post_message", outcome: "ok", observation: `posted ${index}` });
      }
    });
    const { events, more } = await admin.query(api.runEvents.toolCallsForRun, { runId });
    expect(more).toBe(true);
    expect(events.every((e) => e.payload.type === "tool_call" || e.payload.type === "tool_result")).toBe(true);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
    const shown = events.filter((e) => e.payload.type === "tool_call").map((e) => (e.payload as { index: number }).index);
    expect(shown).toEqual(Array.from({ length: MAX_TOOL_CALLS_SHOWN }, (_, i) => calls - MAX_TOOL_CALLS_SHOWN + i));
    expect(events.filter((e) => e.payload.type === "tool_result")).toHaveLength(MAX_TOOL_CALLS_SHOWN - 1);

    const other = await createOtherDepartment(t);
    await expectError(other.member.query(api.runEvents.toolCallsForRun, { runId }), "FORBIDDEN");
  });
});
