import { v } from "convex/values";
import { query } from "./_generated/server";
import { getMembershipX } from "./lib/auth";
import { vAgentKind, vAgentStatus } from "./validators";

/** Most agents a department's roster shows. */
export const MAX_AGENTS_PER_DEPARTMENT = 200;

/** The department's roster. */
export const list = query({
  args: { departmentId: v.id("departments") },
  returns: v.array(
    v.object({
      _id: v.id("agents"),
      name: v.string(),
      role: v.string(),
      kind: vAgentKind,
      sessionKey: v.string(),
      status: vAgentStatus,
      isSquadLead: v.boolean(),
    }),
  ),
  handler: async (ctx, { departmentId }) => {
    await getMembershipX(ctx, departmentId);
    const agents = await ctx.db
      .query("agents")
      .withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId))
      .take(MAX_AGENTS_PER_DEPARTMENT);
    return agents.map((agent) => ({
      _id: agent._id,
      name: agent.name,
      role: agent.role,
      kind: agent.kind,
      sessionKey: agent.sessionKey,
      status: agent.status,
      isSquadLead: agent.isSquadLead,
    }));
  },
});
