/**
 * An A2A agent (an outside agent reached through its A2A endpoint, issue 45)
 * is handed work: runQueue hands every run it would start for an outside
 * agent to reactions/outside, which hands an A2A agent's here. An
 * assignment (a delegation too) opens a remote task: a row in
 * `a2aRemoteTasks`, and `message/send` scheduled (convex/a2aRemoteCalls.ts).
 * While the remote task waits on the squad (input-required), the next word
 * addressed to the agent on the card — the answer to its question, or an
 * @mention — is sent as its next message. How the remote task's states come
 * back onto the card is reactions/a2aRemoteFollow.ts (above runQueue; this
 * module sits below it).
 */
import { internal } from "../_generated/api";
import type { Doc } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { A2A_REMOTE_LIMITS } from "../lib/a2aRemote";
import { insertRemoteTask, latestRemoteTask, patchRemoteTask } from "../records/a2aRemoteTasks";
import type { RunTrigger } from "../records/runs";
import { delegationCorrelationId } from "./a2a";

/** Hands an A2A agent what would have started its run on `task`; the note its trigger is consumed with. */
export async function handToA2a(ctx: MutationCtx, agent: Doc<"agents">, task: Doc<"tasks">, trigger: RunTrigger): Promise<string> {
  const latest = await latestRemoteTask(ctx, task._id, agent._id);
  const open = latest !== null && latest.endedAt === undefined ? latest : null;
  const now = Date.now();
  if (open !== null && open.phase === "input_required" && trigger.messageId !== undefined) {
    await patchRemoteTask(ctx, open._id, { phase: "sending", replyMessageId: trigger.messageId, failures: 0, deadlineAt: now + A2A_REMOTE_LIMITS.deadlineMs });
    await ctx.scheduler.runAfter(0, internal.a2aRemoteCalls.send, { remoteId: open._id });
    return `${agent.name} works over A2A: the answer is sent to it`;
  }
  if (open !== null) return `${agent.name} works over A2A and is on it already`;
  if (trigger.kind !== "assigned") return `${agent.name} works over A2A: only an assignment or an answer to its question reaches it`;
  const remoteId = await insertRemoteTask(ctx, {
    departmentId: task.departmentId,
    taskId: task._id,
    agentId: agent._id,
    // The card's correlation id (the delegation's, or the task's own): the A2A task and context ids are tied to it.
    correlationId: delegationCorrelationId(task._id),
    phase: "sending",
    sends: 0,
    polls: 0,
    failures: 0,
    deadlineAt: now + A2A_REMOTE_LIMITS.deadlineMs,
  });
  await ctx.scheduler.runAfter(0, internal.a2aRemoteCalls.send, { remoteId });
  return `${agent.name} works over A2A: the task is sent to its endpoint`;
}
