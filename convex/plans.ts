/**
 * Plan cards: a squad lead's `propose_plan` pauses its run on a card with
 * the steps and their assignees. Approved, the run resumes and delegates the
 * steps exactly as proposed (through delegate_task's own code); rejected, the
 * run resumes with the feedback as the tool's result so the lead revises.
 */
import { v } from "convex/values";
import { agentNames, decisionText, MAX_CARDS_PER_TASK } from "./approvals";
import { taskMutation, taskQuery } from "./functions";
import { actorName, memberActor } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { resumeRun, waitingRunX } from "./pauses";
import schema from "./schema";

const vPlanCard = schema.tables.plans.validator
  .pick("runId", "taskId", "summary", "steps", "status", "decidedBy", "decidedAt", "feedback")
  .extend({ _id: v.id("plans"), _creationTime: v.number(), agentName: v.string() });

/** A task's plan cards, newest first. */
export const listForTask = taskQuery({
  args: {},
  returns: v.array(vPlanCard),
  handler: async (ctx, { taskId }) => {
    const rows = await ctx.db
      .query("plans")
      .withIndex("by_task", (q) => q.eq("taskId", taskId))
      .order("desc")
      .take(MAX_CARDS_PER_TASK);
    const names = await agentNames(ctx, rows);
    return rows.map(({ _id, _creationTime, runId, taskId, summary, steps, status, decidedBy, decidedAt, feedback, agentId }) => ({
      _id,
      _creationTime,
      runId,
      taskId,
      summary,
      steps,
      status,
      ...(decidedBy === undefined ? {} : { decidedBy }),
      ...(decidedAt === undefined ? {} : { decidedAt }),
      ...(feedback === undefined ? {} : { feedback }),
      agentName: names.get(agentId)!,
    }));
  },
});

/** The spec's `plan.respond`: a member approves a pending plan of this task, or rejects it with feedback; the lead's run resumes. */
export const respond = taskMutation({
  args: { planId: v.id("plans"), action: v.union(v.literal("approve"), v.literal("reject")), feedback: v.optional(v.string()) },
  returns: v.null(),
  handler: async (ctx, { planId, action, feedback }) => {
    const plan = await ctx.db.get("plans", planId);
    if (plan === null || plan.taskId !== ctx.task._id) throw new MaestroError("NOT_FOUND", "Plan not found.");
    if (plan.status !== "pending") {
      throw new MaestroError("CONFLICT", plan.status === "cancelled" ? "This plan was withdrawn: its run was stopped." : `This plan was already ${plan.status}${plan.decidedBy ? ` by ${plan.decidedBy}` : ""}.`);
    }
    const run = await waitingRunX(ctx, plan.runId, "plan", planId);
    const by = actorName(memberActor(ctx.member));
    const said = await decisionText(ctx, ctx.task.departmentId, "Feedback", feedback);
    await ctx.db.patch("plans", planId, {
      status: action === "approve" ? "approved" : "rejected",
      decidedBy: by,
      decidedAt: Date.now(),
      ...(said === undefined ? {} : { feedback: said }),
    });
    await resumeRun(ctx, run, {
      type: "control_submitted",
      action: "resume",
      by,
      note: action === "approve" ? `approved the plan (${plan.steps.length} step${plan.steps.length === 1 ? "" : "s"})` : `rejected the plan${said === undefined ? "" : `: ${said}`}`,
    });
    return null;
  },
});
