/**
 * A person, or an agent that runs outside Maestro posting with its key,
 * @mentioned agents in `#maestro`: each mentioned agent that takes part in
 * chat is woken as a direct mention in a thread wakes it, on its own inbox
 * task (reactions/delivery agentInboxTask), and its run answers in
 * `#maestro` (reactions/runEnd). A post from a run inside Maestro wakes
 * nobody, so two of Maestro's agents can never keep each other running
 * through the chat (the same loop guard as thread mentions,
 * reactions/triggers); an outside agent is never run by Maestro, so its
 * post cannot start such a loop.
 */
import type { Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import { chatAllowed } from "../lib/chat";
import { departmentAgentsByKeys } from "../records/agents";
import type { PostedChat } from "../records/chat";
import { mentionsIn } from "../records/messages";
import { agentInboxTask } from "./delivery";
import { enqueueRun } from "./runQueue";

/** Longest part of the #maestro message a run's stream quotes. */
const QUOTED_CHARS = 500;

/**
 * Wakes the agents a #maestro message just posted in `departmentId` @mentions
 * (never its author, `except`); returns how many runs started or were asked
 * to go on. `message` is what `postChatMessage` returned in this transaction:
 * its text as stored, what the scanner left of it, as every reader sees it
 * (reading the row back cost an agent's post ~7% of its CPU offline).
 */
export async function wakeChatMentions(ctx: MutationCtx, departmentId: Id<"departments">, message: PostedChat, by: string, except?: Id<"agents">): Promise<number> {
  const chatId = message.id;
  const mentioned = (await mentionsIn(ctx, departmentId, message.text)).filter((m) => m.kind === "agent");
  let woken = 0;
  for (const agent of await departmentAgentsByKeys(ctx, departmentId, mentioned.map((m) => m.key))) {
    if (!chatAllowed(agent) || agent._id === except) continue;
    const taskId = await agentInboxTask(ctx, agent);
    const note = `${by} @mentioned ${agent.name} in #maestro: ${message.text.slice(0, QUOTED_CHARS)}`;
    const result = await enqueueRun(ctx, agent, taskId, { kind: "mentioned", chatId, note });
    if (result.runId !== null) woken += 1;
  }
  return woken;
}
