/**
 * Plan cards: a squad lead's `propose_plan` pauses its run on one, with the
 * steps and their assignees. Approved, the steps are delegated exactly as
 * proposed (through delegate_task's own code); rejected, the lead reads the
 * feedback and revises; nobody deciding in time counts as rejected.
 */
import { v } from "convex/values";
import { taskMutation, taskQuery } from "./functions";
import { respondToPlan } from "./reactions/pauses";
import { cardsOfTask } from "./records/pauseCards";
import schema from "./schema";

const vPlanCard = schema.tables.plans.validator
  .omit("departmentId", "agentId", "key")
  .extend({ _id: v.id("plans"), _creationTime: v.number(), agentName: v.string() });

/** A task's plan cards, newest first. */
export const listForTask = taskQuery({
  args: {},
  returns: v.array(vPlanCard),
  handler: async (ctx, { taskId }) => (await cardsOfTask(ctx, "plans", taskId)).map(({ departmentId: _d, agentId: _a, key: _k, ...card }) => card),
});

/** The spec's `plan.respond`: a member approves a pending plan of this task, or rejects it with feedback; the lead's run resumes. */
export const respond = taskMutation({
  args: { planId: v.id("plans"), action: v.union(v.literal("approve"), v.literal("reject")), feedback: v.optional(v.string()) },
  returns: v.null(),
  handler: async (ctx, { planId, action, feedback }) => {
    await respondToPlan(ctx, ctx.member, ctx.task, planId, action === "approve", feedback);
    return null;
  },
});
