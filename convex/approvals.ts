/**
 * Approvals: a tool call whose policy (the agent's, else the registry's
 * default) needs a person waits on an approval card, bound to its run, its
 * call and the hash of its canonical arguments. A member approves (exactly
 * that call then runs) or denies (the model reads "denied by …" as the
 * tool's result); an approval nobody decides expires and counts as denied.
 */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { internalMutation, type MutationCtx, type QueryCtx } from "./_generated/server";
import { taskMutation, taskQuery } from "./functions";
import { actorName, memberActor } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { redactForDepartment } from "./lib/userText";
import { cleanText } from "./lib/validate";
import { EXPIRE_BATCH, resumeIfPausedOn, resumeRun, waitingRunX } from "./pauses";
import schema from "./schema";

/** Cards one task shows, newest first. */
export const MAX_CARDS_PER_TASK = 20;
/** Longest reason a person may give. */
export const MAX_REASON_CHARS = 1000;

/** Who (agent name) a card's agent is, read once per list. */
export async function agentNames(ctx: QueryCtx, rows: ReadonlyArray<{ agentId: Doc<"agents">["_id"] }>) {
  const names = new Map<string, string>();
  for (const { agentId } of rows) if (!names.has(agentId)) names.set(agentId, (await ctx.db.get("agents", agentId))?.name ?? "an agent");
  return names;
}

/** A person's optional words on a decision: cleaned, bounded, secrets redacted. */
export async function decisionText(ctx: MutationCtx, departmentId: Doc<"departments">["_id"], field: string, text: string | undefined) {
  if (text === undefined || text.trim() === "") return undefined;
  return await redactForDepartment(ctx, departmentId, field, cleanText(field, text, MAX_REASON_CHARS));
}

const vApprovalCard = schema.tables.approvals.validator
  .pick("runId", "taskId", "toolCallId", "tool", "args", "status", "expiresAt", "decidedBy", "decidedAt", "reason")
  .extend({ _id: v.id("approvals"), _creationTime: v.number(), agentName: v.string() });

/** A task's approval cards, newest first (live: the thread and the run view show them). */
export const listForTask = taskQuery({
  args: {},
  returns: v.array(vApprovalCard),
  handler: async (ctx, { taskId }) => {
    const rows = await ctx.db
      .query("approvals")
      .withIndex("by_task", (q) => q.eq("taskId", taskId))
      .order("desc")
      .take(MAX_CARDS_PER_TASK);
    const names = await agentNames(ctx, rows);
    return rows.map(({ _id, _creationTime, runId, taskId, toolCallId, tool, args, status, expiresAt, decidedBy, decidedAt, reason, agentId }) => ({
      _id,
      _creationTime,
      runId,
      taskId,
      toolCallId,
      tool,
      args,
      status,
      expiresAt,
      ...(decidedBy === undefined ? {} : { decidedBy }),
      ...(decidedAt === undefined ? {} : { decidedAt }),
      ...(reason === undefined ? {} : { reason }),
      agentName: names.get(agentId)!,
    }));
  },
});

/**
 * The spec's `approval.respond`: a member approves or denies a pending
 * approval of this task; the run resumes. An approval already decided or
 * past its expiry is refused, and nothing changes.
 */
export const respond = taskMutation({
  args: { approvalId: v.id("approvals"), decision: v.union(v.literal("approve"), v.literal("deny")), reason: v.optional(v.string()) },
  returns: v.null(),
  handler: async (ctx, { approvalId, decision, reason }) => {
    const approval = await ctx.db.get("approvals", approvalId);
    if (approval === null || approval.taskId !== ctx.task._id) throw new MaestroError("NOT_FOUND", "Approval not found.");
    if (approval.status !== "pending") {
      throw new MaestroError("CONFLICT", `This approval was already ${approval.status}${approval.decidedBy ? ` by ${approval.decidedBy}` : ""}.`);
    }
    if (approval.expiresAt <= Date.now()) throw new MaestroError("CONFLICT", "This approval has expired: the call counts as denied.");
    const run = await waitingRunX(ctx, approval.runId, "approval", approvalId);
    const by = actorName(memberActor(ctx.member));
    const said = await decisionText(ctx, ctx.task.departmentId, "A reason", reason);
    await ctx.db.patch("approvals", approvalId, {
      status: decision === "approve" ? "approved" : "denied",
      decidedBy: by,
      decidedAt: Date.now(),
      ...(said === undefined ? {} : { reason: said }),
    });
    await resumeRun(ctx, run, {
      type: "control_submitted",
      action: "resume",
      by,
      note: `${decision === "approve" ? "approved" : "denied"} ${approval.tool}${said === undefined ? "" : `: ${said}`}`,
    });
    return null;
  },
});

/** The sweeper's part (convex/crons.ts): pending approvals past their expiry count as denied, and their runs resume. */
export const expireOverdue = internalMutation({
  args: {},
  returns: v.number(),
  handler: async (ctx) => {
    const now = Date.now();
    const overdue = await ctx.db
      .query("approvals")
      .withIndex("by_status_and_expiresAt", (q) => q.eq("status", "pending").lt("expiresAt", now))
      .take(EXPIRE_BATCH);
    for (const approval of overdue) {
      await ctx.db.patch("approvals", approval._id, { status: "expired", reason: "expired", decidedAt: now });
      await resumeIfPausedOn(ctx, approval.runId, approval._id, { type: "control_submitted", action: "resume", by: "Maestro", note: `the approval of ${approval.tool} expired` });
    }
    return overdue.length;
  },
});
