/**
 * Plan cards: a squad lead's `propose_plan` pauses its run on a card with
 * the steps and their assignees. Approved, the run resumes and delegates the
 * steps exactly as proposed (through delegate_task's own code); rejected, the
 * run resumes with the feedback as the tool's result so the lead revises.
 */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { internalMutation } from "./_generated/server";
import { agentNames, decisionText, MAX_CARDS_PER_TASK } from "./approvals";
import { taskMutation, taskQuery } from "./functions";
import { actorName, memberActor } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { EXPIRE_BATCH, resumeIfPausedOn, resumeRun, waitingRunX } from "./pauses";
import schema from "./schema";

const vPlanCard = schema.tables.plans.validator
  .pick("runId", "taskId", "summary", "steps", "status", "decidedBy", "decidedAt", "feedback", "expiresAt")
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
    return rows.map(({ _id, _creationTime, runId, taskId, summary, steps, status, decidedBy, decidedAt, feedback, expiresAt, agentId }) => ({
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
      ...(expiresAt === undefined ? {} : { expiresAt }),
      agentName: names.get(agentId)!,
    }));
  },
});

/** Why a plan that is no longer pending takes no decision. */
function closedText(plan: Pick<Doc<"plans">, "status" | "decidedBy">): string {
  switch (plan.status) {
    case "cancelled":
      return "This plan was withdrawn: its run was stopped.";
    case "expired":
      return "This plan has expired: nobody decided in time, so nothing was delegated.";
    default:
      return `This plan was already ${plan.status}${plan.decidedBy ? ` by ${plan.decidedBy}` : ""}.`;
  }
}

/** The spec's `plan.respond`: a member approves a pending plan of this task, or rejects it with feedback; the lead's run resumes. */
export const respond = taskMutation({
  args: { planId: v.id("plans"), action: v.union(v.literal("approve"), v.literal("reject")), feedback: v.optional(v.string()) },
  returns: v.null(),
  handler: async (ctx, { planId, action, feedback }) => {
    const plan = await ctx.db.get("plans", planId);
    if (plan === null || plan.taskId !== ctx.task._id) throw new MaestroError("NOT_FOUND", "Plan not found.");
    if (plan.status !== "pending") throw new MaestroError("CONFLICT", closedText(plan));
    if (plan.expiresAt !== undefined && plan.expiresAt <= Date.now()) throw new MaestroError("CONFLICT", closedText({ ...plan, status: "expired" }));
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

/**
 * The sweeper's part (convex/crons.ts): a plan nobody decided on before its
 * expiry counts as rejected; the lead's run resumes and reads that nothing
 * was delegated.
 */
export const expireOverdue = internalMutation({
  args: {},
  returns: v.number(),
  handler: async (ctx) => {
    const now = Date.now();
    const overdue = await ctx.db
      .query("plans")
      // From 0: plans from before expiry existed have none and never expire.
      .withIndex("by_status_and_expiresAt", (q) => q.eq("status", "pending").gte("expiresAt", 0).lt("expiresAt", now))
      .take(EXPIRE_BATCH);
    for (const plan of overdue) {
      await ctx.db.patch("plans", plan._id, { status: "expired", decidedAt: now });
      await resumeIfPausedOn(ctx, plan.runId, plan._id, { type: "control_submitted", action: "resume", by: "Maestro", note: "the plan expired: nobody decided in time" });
    }
    return overdue.length;
  },
});
