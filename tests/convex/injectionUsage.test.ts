import { expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { createTask, demoSquad, expectError } from "./setup";

test("runs.injectionUsage: the latest runs with agent names, newest first, a missing count as 0; viewers read, others are refused", async () => {
  const { t, departmentId, admin, vera, other } = await demoSquad({ vera: true, other: true });
  const taskId = await createTask(admin, departmentId, { title: "Work" });
  const agents = await t.run(async (ctx) => await ctx.db.query("agents").withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId)).take(2));
  await t.run(async (ctx) => {
    for (const [i, tokens] of [300, undefined, 120].entries()) {
      const agent = agents[i % 2];
      await ctx.db.insert("runs", {
        departmentId, agentId: agent._id, agentSessionKey: agent.sessionKey, taskId, trigger: { kind: "assigned" }, status: "completed",
        iterations: 1, toolCalls: [], promptTokens: 0, completionTokens: 0, foldedTriggers: 0, rerunRequested: false, delegations: 0, guards: [], timings: [],
        ...(tokens === undefined ? {} : { injectionTokens: tokens }),
      });
    }
  });
  const usage = await vera.query(api.runs.injectionUsage, { departmentId, limit: 2 });
  expect(usage.map((r) => [r.agentName, r.injectionTokens])).toEqual([
    [agents[0].name, 120],
    [agents[1].name, 0],
  ]);
  expect((await admin.query(api.runs.injectionUsage, { departmentId, limit: 100 })).map((r) => r.injectionTokens)).toEqual([120, 0, 300]);
  await expectError(admin.query(api.runs.injectionUsage, { departmentId, limit: 0 }), "INVALID_ARGUMENT");
  await expectError(admin.query(api.runs.injectionUsage, { departmentId, limit: 101 }), "INVALID_ARGUMENT");
  await expectError(other.member.query(api.runs.injectionUsage, { departmentId, limit: 10 }), "FORBIDDEN");
});
