/**
 * Approval cards: a tool call whose policy (the agent's, else the registry's
 * default) needs a person waits on one, bound to its run, its call and the
 * hash of its canonical arguments. A member approves (exactly that call then
 * runs) or denies (the model reads "denied by …"); nobody deciding in time
 * counts as denied (convex/sweeps.ts).
 */
import { v } from "convex/values";
import { taskMutation, taskQuery } from "./functions";
import { respondToApproval } from "./reactions/pauses";
import { cardsOfTask } from "./records/pauseCards";
import { redactRunText } from "./records/runEvents";
import schema from "./schema";

const vApprovalCard = schema.tables.approvals.validator
  .omit("departmentId", "agentId", "argsHash")
  .extend({ _id: v.id("approvals"), _creationTime: v.number(), agentName: v.string() });

/** A task's approval cards, newest first (live: the thread and the run view show them). */
export const listForTask = taskQuery({
  args: {},
  returns: v.array(vApprovalCard),
  handler: async (ctx, { taskId }) =>
    await Promise.all(
      // The stored arguments are what an approval runs, exactly; what readers see of them is scanned.
      (await cardsOfTask(ctx, "approvals", taskId)).map(async ({ departmentId, agentId: _a, argsHash: _h, ...card }) => ({ ...card, args: await redactRunText(ctx, departmentId, "approval arguments", card.args, false) })),
    ),
});

/** The spec's `approval.respond`: a member approves or denies a pending approval of this task; the run resumes. */
export const respond = taskMutation({
  args: { approvalId: v.id("approvals"), decision: v.union(v.literal("approve"), v.literal("deny")), reason: v.optional(v.string()) },
  returns: v.null(),
  handler: async (ctx, { approvalId, decision, reason }) => {
    await respondToApproval(ctx, ctx.member, ctx.task, approvalId, decision === "approve", reason);
    return null;
  },
});
