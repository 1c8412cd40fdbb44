/**
 * Work waiting for a person, in words: who asks for what. An approval says
 * what the call would do, in its tool's words (lib/toolCallWords), a question is quoted, a plan gives
 * its summary and its number of steps. Pure, so the bell, the board and the
 * roster read the same sentence the server built.
 */
import type { PauseKind } from "../validators";
import { callAsk } from "./toolCallWords";

/** Longest "what" in a waiting item (the card itself holds everything). */
export const WAITING_TEXT_CHARS = 140;

function cut(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > WAITING_TEXT_CHARS ? `${flat.slice(0, WAITING_TEXT_CHARS - 1)}…` : flat;
}

export type WaitingCard =
  | { kind: "approval"; tool: string; args: string }
  | { kind: "question"; question: string }
  | { kind: "plan"; summary: string; steps: number };

/** What the agent asks for, after its name: "asks to delegate “Launch tagline” to Writer", "asks to run send_email (“press@…”)", "asks: …", "proposes a plan: … (3 steps)". */
export function askText(card: WaitingCard): string {
  switch (card.kind) {
    case "approval": {
      return cut(`asks to ${callAsk(card.tool, card.args)}`);
    }
    case "question":
      return cut(`asks: ${card.question}`);
    case "plan":
      return cut(`proposes a plan: ${card.summary} (${card.steps} step${card.steps === 1 ? "" : "s"})`);
  }
}

/** What a waiting card needs from a person, as a short label (board cards, the roster). */
export const WAITING_LABEL: Record<PauseKind, string> = {
  approval: "Waits for approval",
  question: "Waits for an answer",
  plan: "Waits for plan review",
};
