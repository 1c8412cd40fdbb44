/**
 * A person @mentioned agents in `#maestro`: each mentioned agent that takes
 * part in chat is woken as a direct mention in a thread wakes it, on its own
 * inbox task (reactions/delivery agentInboxTask), and its run answers in
 * `#maestro` (reactions/runEnd). Only people's posts wake agents: an
 * agent's post that @mentions another agent starts no run, so two agents
 * can never keep each other running through the chat (the same loop guard
 * as thread mentions, reactions/triggers).
 */
import type { Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { chatAllowed } from "../lib/chat";
import { departmentAgentsByKeys } from "../records/agents";
import { chatMessageById } from "../records/chat";
import { mentionsIn } from "../records/messages";
import { agentInboxTask } from "./delivery";
import { enqueueRun } from "./runQueue";

/** Longest part of the #maestro message a run's stream quotes. */
const QUOTED_CHARS = 500;

/** Wakes the agents a person's #maestro message `chatId` @mentions; returns how many runs started or were asked to go on. */
export async function wakeChatMentions(ctx: MutationCtx, departmentId: Id<"departments">, chatId: number, by: string): Promise<number> {
  const message = await chatMessageById(ctx, chatId);
  if (message === null || message.departmentId !== departmentId) return 0;
  // The stored text: what the scanner left of it, as every reader sees it.
  const mentioned = (await mentionsIn(ctx, departmentId, message.text)).filter((m) => m.kind === "agent");
  let woken = 0;
  for (const agent of await departmentAgentsByKeys(ctx, departmentId, mentioned.map((m) => m.key))) {
    if (!chatAllowed(agent)) continue;
    const taskId = await agentInboxTask(ctx, agent);
    const note = `${by} @mentioned ${agent.name} in #maestro: ${message.text.slice(0, QUOTED_CHARS)}`;
    const result = await enqueueRun(ctx, agent, taskId, { kind: "mentioned", chatId, note });
    if (result.runId !== null) woken += 1;
  }
  return woken;
}
