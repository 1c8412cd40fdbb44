/**
 * An agent that runs outside Maestro (`agents.runsOutside`) is handed its
 * work instead of being run: whatever would have started a run of it (an
 * assignment, a delegation, an @mention in a thread or a channel, a DM, an
 * answer, a delegation's result) is put in its inbox, where its key reads
 * it (`GET /agents/me/inbox`), and, when an admin set its endpoint URL,
 * POSTed there as a signed envelope (convex/webhookDelivery.ts
 * deliverToAgent: public addresses only, no redirects, retried with
 * backoff). A message addressed to it in a conversation is in its inbox
 * already; any other work arrives as a line from Maestro in its DM with the
 * person it belongs to (who added it, else the department's owner: a DM
 * always has a person in it), about the task. runQueue hands every run it
 * would start for such an agent here, so Maestro never runs it.
 */
import { internal } from "../_generated/api";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { actorName } from "../lib/actors";
import { LIMITS } from "../lib/limits";
import { messageJson, ms } from "../lib/messagingJson";
import type { Actor } from "../validators";
import { agentNamer } from "../records/agents";
import { insertChannelMessage, publicMessage } from "../records/channelMessages";
import { createDm, dmOf, touchChannel } from "../records/channels";
import { emitEvent } from "../records/events";
import { deliverToInboxes } from "../records/inbox";
import { departmentMembers } from "../records/members";
import { newestMessages } from "../records/messages";
import type { RunTrigger } from "../records/runs";
import { delegationCorrelationId } from "./a2a";
import { handToA2a } from "./a2aRemote";

/** What an envelope's `intent` says the agent is asked to do, by what would have started its run. */
const INTENTS: Record<RunTrigger["kind"], string> = {
  assigned: "assigned",
  mentioned: "mention",
  message: "message",
  answer: "answer",
  delegation_result: "delegation_result",
  nudge: "nudge",
};

/** Thread messages looked through for a delegation's instruction. */
const INSTRUCTION_SCAN = 5;

/** The person an outside agent's work lines are DMed beside: who added it while still a member, else the department's owner (or an admin). */
async function ownerOf(ctx: MutationCtx, agent: Doc<"agents">): Promise<Doc<"members"> | null> {
  const members = await departmentMembers(ctx, agent.departmentId);
  return members.find((m) => m.userId === agent.createdBy) ?? members.find((m) => m.role === "owner") ?? members.find((m) => m.role === "admin") ?? null;
}

/** What the work line says: the task, who asked, and what. */
async function workText(ctx: MutationCtx, agent: Doc<"agents">, task: Doc<"tasks">, trigger: RunTrigger, delegator: string | null): Promise<string> {
  const message = trigger.messageId === undefined ? null : await ctx.db.get("messages", trigger.messageId);
  const said = message === null ? "" : `\n\n${actorName(message.author)}: ${message.content}`;
  const about = `“${task.title}” (task ${task._id})`;
  switch (trigger.kind) {
    case "assigned": {
      const by = delegator === null ? "" : ` by ${delegator}`;
      const description = task.description.trim() === "" ? "" : `\n\n${task.description.trim()}`;
      // A delegation's instruction is its thread's first word (reactions/delegation): it goes with the assignment.
      const instruction = (await newestMessages(ctx, task._id, INSTRUCTION_SCAN)).find((m) => m.author.kind !== "system");
      const asked = instruction === undefined ? "" : `\n\n${actorName(instruction.author)}: ${instruction.content}`;
      return `@${agent.name} ${about} is assigned to you${by}. Move it to Review when it is done.${description}${asked}`;
    }
    case "mentioned":
      return `@${agent.name} you were mentioned in ${about}.${said}`;
    case "answer":
      return `@${agent.name} your question on ${about} was answered.${said}`;
    case "delegation_result":
      return `@${agent.name} news of work you delegated, under ${about}: ${trigger.note ?? message?.content ?? ""}`;
    default:
      return `@${agent.name} ${about}: ${trigger.note ?? "there is work for you."}`;
  }
}

/** Posts the work line in the agent's DM with its owner (made on first use) and puts it in the agent's inbox; its id, or null with no one to DM. */
async function postWorkLine(ctx: MutationCtx, agent: Doc<"agents">, task: Doc<"tasks">, text: string, correlationId: string | undefined): Promise<Id<"channelMessages"> | null> {
  const owner = await ownerOf(ctx, agent);
  if (owner === null) return null;
  const from: Actor = { kind: "system" };
  const ownerKey = `member:${owner.userId}`;
  const dm =
    (await dmOf(ctx, agent.departmentId, [agent.sessionKey, ownerKey])) ??
    (await createDm(ctx, agent.departmentId, from, [
      { key: agent.sessionKey, name: agent.name },
      { key: ownerKey, name: owner.name },
    ]));
  const body = text.length > LIMITS.messageChars ? `${text.slice(0, LIMITS.messageChars - 1)}…` : text;
  const messageId = await insertChannelMessage(ctx, {
    departmentId: agent.departmentId,
    channelId: dm._id,
    type: "dm",
    from,
    to: [agent.sessionKey],
    body,
    mentions: [{ kind: "agent", key: agent.sessionKey, name: agent.name }],
    artifacts: [{ kind: "task", taskId: task._id }],
    importance: "normal",
    blocking: false,
    correlationId,
    context: { taskId: task._id },
    replyCount: 0,
  });
  const base = { departmentId: agent.departmentId, actor: from, channelId: dm._id, messageId, correlationId };
  if (dm.lastMessageAt === undefined) await emitEvent(ctx, { ...base, type: "messaging.created", data: { type: "dm" } });
  await touchChannel(ctx, dm._id, Date.now());
  // The agent's inbox only: its owner sees the DM in the app, but is not notified of each line.
  await deliverToInboxes(ctx, { departmentId: agent.departmentId, channelId: dm._id, messageId, importance: "normal", blocking: false }, [{ key: agent.sessionKey, direct: true }]);
  await emitEvent(ctx, { ...base, type: "messaging.posted", data: { type: "dm", importance: "normal", blocking: false, chars: body.length, recipients: 1 } });
  return messageId;
}

/**
 * The envelope an outside agent's endpoint receives: what it is asked to do
 * (`intent`), the task, and the message in its inbox that says so (the
 * HTTP API's Message JSON), with the delegation's correlation id.
 */
function envelopeOf(agent: Doc<"agents">, task: Doc<"tasks">, trigger: RunTrigger, message: Doc<"channelMessages">, correlationId: string | undefined, delegator: string | null) {
  const projectId = agent.departmentId;
  return {
    type: "maestro.work",
    intent: delegator !== null && trigger.kind === "assigned" ? "delegate" : INTENTS[trigger.kind],
    correlation_id: correlationId ?? `work:${message._id}`,
    agent: { id: agent._id, name: agent.name },
    project_id: projectId,
    task: {
      id: task._id,
      title: task.title,
      status: task.status,
      ...(task.parentTaskId === undefined ? {} : { parent_task_id: task.parentTaskId }),
      ...(delegator === null ? {} : { delegated_by: delegator }),
    },
    message: messageJson(publicMessage(message), projectId),
    sent_at: ms(Date.now()),
  };
}

/**
 * Hands `agent` (one that runs outside Maestro) the work that would have
 * started its run on `task`: in its inbox, and at its endpoint when it has
 * one. Returns the note its trigger is consumed with.
 */
export async function handOutside(ctx: MutationCtx, agent: Doc<"agents">, task: Doc<"tasks">, trigger: RunTrigger): Promise<string> {
  // An A2A agent is reached through its A2A endpoint instead of an inbox (reactions/a2aRemote).
  if (agent.a2aRemote !== undefined) return await handToA2a(ctx, agent, task, trigger);
  const correlationId = task.delegatedBy === undefined ? undefined : delegationCorrelationId(task._id);
  // Who delegated it, by name (an agent's session key reads as its name; a person's name stays as it is).
  const delegator = task.delegatedBy === undefined ? null : await agentNamer(ctx)(task.delegatedBy);
  const messageId = trigger.channelMessageId ?? (await postWorkLine(ctx, agent, task, await workText(ctx, agent, task, trigger, delegator), correlationId));
  const message = messageId === null ? null : await ctx.db.get("channelMessages", messageId);
  if (message === null) return `${agent.name} runs outside Maestro, and nobody owns it to hand it the work`;
  if (agent.endpointUrl !== undefined) {
    const envelope = envelopeOf(agent, task, trigger, message, correlationId, delegator);
    await ctx.scheduler.runAfter(0, internal.webhookDelivery.deliverToAgent, { agentId: agent._id, deliveryId: `${message._id}:${trigger.kind}`, body: JSON.stringify(envelope), attempt: 1 });
  }
  return `${agent.name} runs outside Maestro: the work is in its inbox${agent.endpointUrl === undefined ? "" : " and sent to its endpoint"}`;
}
