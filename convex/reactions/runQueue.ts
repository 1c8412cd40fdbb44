/**
 * A run is asked for, or asked to go on: an agent gets a new run on a task
 * (or the trigger is folded into the one it has there), and a run that
 * paused for a person is queued again. Either way the run's stream first
 * records what was asked (submit before runtime), then the brain's action is
 * scheduled.
 */
import { internal } from "../_generated/api";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { actorName } from "../lib/actors";
import { modelConfigProblem } from "../lib/modelConfig";
import { budgetNote } from "../lib/pricing";
import { boundedText, type SubmitEvent } from "../lib/runEvents";
import { a2aServerTaskOf } from "../records/a2aServer";
import { setAgentStatus } from "../records/agents";
import { monthSpend } from "../records/costs";
import { insertMessage, newestMessages } from "../records/messages";
import { appendRunEvent } from "../records/runEvents";
import { activeRunOfAgentOnTask, foldTrigger, insertRun, markQueued, type RunTrigger } from "../records/runs";
import { liveTask } from "../records/tasks";
import { delegationCorrelationId } from "./a2a";
import { handOutside } from "./outside";

export type { RunTrigger } from "../records/runs";

/** A run started (or the trigger folded into one), or why none could start. */
export type Enqueued = { runId: Id<"runs">; folded: boolean } | { runId: null; note: string };

/**
 * Starts a run of `agent` on `taskId`, or folds the trigger into the run
 * already queued (whose "why" then names it too), running or waiting there
 * (which then runs once more when done), so an agent never thinks twice in
 * parallel about one task.
 */
export async function enqueueRun(ctx: MutationCtx, agent: Doc<"agents">, taskId: Id<"tasks">, trigger: RunTrigger): Promise<Enqueued> {
  if (agent.status === "offline") return { runId: null, note: `${agent.name} is offline` };
  const task = await liveTask(ctx, taskId);
  // Archiving or deleting a task stopped its runs; nothing starts new ones there.
  if (task === null) return { runId: null, note: "the task was deleted" };
  if (task.archivedAt !== undefined) return { runId: null, note: "the task is archived" };
  // An agent run outside Maestro is never run here: it is handed the work (its inbox, its endpoint).
  if (agent.runsOutside === true) return { runId: null, note: await handOutside(ctx, agent, task, trigger) };
  const modelProblem = modelConfigProblem();
  if (modelProblem !== null) return { runId: null, note: modelProblem };
  const existing = await activeRunOfAgentOnTask(ctx, agent.sessionKey, taskId);
  if (existing !== null) {
    await foldTrigger(ctx, existing, trigger, { answer: true });
    await submitTrigger(ctx, existing._id, trigger);
    return { runId: existing._id, folded: true };
  }
  const overBudget = await budgetRefusal(ctx, agent, taskId);
  if (overBudget !== null) return { runId: null, note: overBudget };
  // Work a delegation made carries its envelope's id, so a trace runs from the delegation into its runs;
  // so does a card another orchestrator opened over A2A (reactions/a2aServer), its client's delegation.
  const delegated = task.delegatedBy !== undefined || (await a2aServerTaskOf(ctx, task._id)) !== null;
  const runId = await insertRun(ctx, agent, taskId, trigger, delegated ? delegationCorrelationId(task._id) : undefined);
  // Submit before runtime: the stream says what was asked before the model hears of it.
  await submitTrigger(ctx, runId, trigger);
  await setAgentStatus(ctx, agent, "active");
  await ctx.scheduler.runAfter(0, internal.brain.run.execute, { runId });
  return { runId, folded: false };
}

/**
 * A new run would spend past the department's monthly budget: it does not
 * start, and the task's thread says why (once in a row, not at every
 * trigger). Returns the note, or null when the run may start.
 */
async function budgetRefusal(ctx: MutationCtx, agent: Doc<"agents">, taskId: Id<"tasks">): Promise<string | null> {
  const department = await ctx.db.get("departments", agent.departmentId);
  const budget = department?.monthlyBudgetMicros;
  if (budget === undefined) return null;
  const spent = await monthSpend(ctx, agent.departmentId, Date.now());
  if (spent < budget) return null;
  const note = budgetNote(agent.name, budget, spent);
  const task = await ctx.db.get("tasks", taskId);
  const [newest] = await newestMessages(ctx, taskId, 1);
  if (task !== null && !(newest?.author.kind === "system" && newest.content === note)) await insertMessage(ctx, { kind: "system" }, task, note);
  return note;
}

/**
 * A message reached a run already under way without asking it to run again
 * (a blocking message to a busy agent): its next model call opens with it.
 */
export async function foldIntoRun(ctx: MutationCtx, run: Doc<"runs">, trigger: RunTrigger): Promise<void> {
  await foldTrigger(ctx, run, trigger, { answer: false });
  await submitTrigger(ctx, run._id, trigger);
}

/** The submit event a trigger writes to a run's stream (de-duplicated by its message). */
export async function submitTrigger(ctx: MutationCtx, runId: Id<"runs">, trigger: RunTrigger): Promise<void> {
  const message = trigger.messageId === undefined ? null : await ctx.db.get("messages", trigger.messageId);
  const channelMessage = trigger.channelMessageId === undefined ? null : await ctx.db.get("channelMessages", trigger.channelMessageId);
  let event: SubmitEvent;
  if (trigger.kind === "delegation_result") {
    event = { type: "tool_output_submitted", tool: "delegate_task", content: boundedText(trigger.note ?? message?.content ?? "") };
  } else if (message !== null) {
    event = { type: "user_message_submitted", messageId: message._id, author: actorName(message.author), content: boundedText(message.content) };
  } else if (channelMessage !== null) {
    event = {
      type: "user_message_submitted",
      channelMessageId: channelMessage._id,
      author: actorName(channelMessage.from),
      content: boundedText(channelMessage.body),
      blocking: channelMessage.blocking,
    };
  } else {
    // A nudge, and a #maestro mention, say in their note what woke the run.
    event = { type: "control_submitted", action: "start", by: "Maestro", note: trigger.note ? boundedText(trigger.note) : trigger.kind };
  }
  const clientMessageId = trigger.messageId ?? trigger.channelMessageId;
  await appendRunEvent(ctx, runId, event, clientMessageId === undefined ? {} : { clientMessageId });
}

/** A person responded to a paused run (or its wait ended): the submit event first (`clientMessageId` keys it), then the run is queued to go on from its pause. */
export async function resumeRun(ctx: MutationCtx, run: Doc<"runs">, event: SubmitEvent, clientMessageId?: string): Promise<void> {
  await appendRunEvent(ctx, run._id, event, clientMessageId === undefined ? {} : { clientMessageId });
  await markQueued(ctx, run._id);
  const agent = await ctx.db.get("agents", run.agentId);
  if (agent !== null && agent.status === "idle") await setAgentStatus(ctx, agent, "active");
  await ctx.scheduler.runAfter(0, internal.brain.run.execute, { runId: run._id });
}

/**
 * Resumes the run with `event` if it still waits on card `cardId`; a run
 * that was stopped or has moved on is left alone (the card's own change stands).
 */
export async function resumeIfPausedOn(ctx: MutationCtx, runId: Id<"runs">, cardId: string, event: SubmitEvent): Promise<void> {
  const run = await ctx.db.get("runs", runId);
  if (run?.status === "waiting" && run.paused?.id === cardId) await resumeRun(ctx, run, event);
}
