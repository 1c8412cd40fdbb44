/** A run's events page through any number (runEvents.pageForRun), in order, for its department only. */
import type { FunctionReturnType } from "convex/server";
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
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
