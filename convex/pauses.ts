/**
 * Work waiting for a person across a department: every pending approval,
 * question and plan, with who asks for what on which task. The board marks
 * the cards, the bell lists them and the roster marks the agents from this
 * one query; each card is decided in its task's drawer.
 */
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import { departmentQuery } from "./functions";
import { askText, type WaitingCard } from "./lib/waiting";
import { agentNamesById } from "./records/agents";
import { pendingCardsOfDepartment, type CardTable } from "./records/pauseCards";
import { redactRunText } from "./records/runEvents";
import { liveTask } from "./records/tasks";
import { vPauseKind, type PauseKind } from "./validators";

/** Pending cards of each kind read per department (more are rare: each holds a run still). */
export const MAX_WAITING_PER_KIND = 50;

const KINDS: Array<[PauseKind, CardTable]> = [
  ["approval", "approvals"],
  ["question", "questions"],
  ["plan", "plans"],
];

function waitingCard(kind: PauseKind, card: Doc<CardTable>): WaitingCard {
  if (kind === "approval") {
    const { tool, args } = card as Doc<"approvals">;
    return { kind, tool, args };
  }
  if (kind === "question") return { kind, question: (card as Doc<"questions">).question };
  const { summary, steps } = card as Doc<"plans">;
  return { kind, summary, steps: steps.length };
}

/** Everything in the department waiting for a person, oldest first. */
export const listWaiting = departmentQuery({
  args: {},
  returns: v.object({
    items: v.array(
      v.object({
        kind: vPauseKind,
        /** The card's id (an approval, question or plan). */
        cardId: v.string(),
        taskId: v.id("tasks"),
        taskTitle: v.string(),
        agentId: v.id("agents"),
        agentName: v.string(),
        /** Who asks for what, after the agent's name: "asks to run send_email (“press@…”)". */
        ask: v.string(),
        since: v.number(),
        expiresAt: v.optional(v.number()),
      }),
    ),
    /** More cards of some kind wait than were read. */
    more: v.boolean(),
  }),
  handler: async (ctx, { departmentId }) => {
    let more = false;
    const found: Array<{ kind: PauseKind; card: Doc<CardTable> }> = [];
    for (const [kind, table] of KINDS) {
      const cards = await pendingCardsOfDepartment(ctx, table, departmentId, MAX_WAITING_PER_KIND + 1);
      if (cards.length > MAX_WAITING_PER_KIND) more = true;
      for (const card of cards.slice(0, MAX_WAITING_PER_KIND)) found.push({ kind, card });
    }
    const names = await agentNamesById(
      ctx,
      found.map(({ card }) => card.agentId),
      "An agent",
    );
    const titles = new Map<Id<"tasks">, string | null>();
    const items = [];
    for (const { kind, card } of found.sort((a, b) => a.card._creationTime - b.card._creationTime)) {
      if (!titles.has(card.taskId)) titles.set(card.taskId, (await liveTask(ctx, card.taskId))?.title ?? null);
      const taskTitle = titles.get(card.taskId);
      if (taskTitle === null || taskTitle === undefined) continue;
      items.push({
        kind,
        cardId: card._id,
        taskId: card.taskId,
        taskTitle,
        agentId: card.agentId,
        agentName: names.get(card.agentId)!,
        // What the card asks, as readers may see it: scanned like the run that asked it.
        ask: await redactRunText(ctx, departmentId, "waiting card", askText(waitingCard(kind, card)), false),
        since: card._creationTime,
        ...(card.expiresAt === undefined ? {} : { expiresAt: card.expiresAt }),
      });
    }
    return { items, more };
  },
});
