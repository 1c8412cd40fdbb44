/**
 * Work waiting for a person, in words: who asks for what. An approval names
 * the tool and its most telling argument, a question is quoted, a plan gives
 * its summary and its number of steps. Pure, so the bell, the board and the
 * roster read the same sentence the server built.
 */
import type { PauseKind } from "../validators";

/** Longest "what" in a waiting item (the card itself holds everything). */
export const WAITING_TEXT_CHARS = 140;

function cut(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > WAITING_TEXT_CHARS ? `${flat.slice(0, WAITING_TEXT_CHARS - 1)}…` : flat;
}

/** The first short string argument of a tool call ("to", "title", …), for a glance at what it would do. */
function gist(args: string): string | null {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed === null || typeof parsed !== "object") return null;
    for (const value of Object.values(parsed as Record<string, unknown>)) {
      if (typeof value === "string" && value.trim() !== "") return value;
    }
  } catch {
    // Arguments that are not JSON are shown on the card as they are.
  }
  return null;
}

export type WaitingCard =
  | { kind: "approval"; tool: string; args: string }
  | { kind: "question"; question: string }
  | { kind: "plan"; summary: string; steps: number };

/** What the agent asks for, after its name: "asks to run send_email (“press@…”)", "asks: …", "proposes a plan: … (3 steps)". */
export function askText(card: WaitingCard): string {
  switch (card.kind) {
    case "approval": {
      const about = gist(card.args);
      return cut(`asks to run ${card.tool}${about === null ? "" : ` (“${about}”)`}`);
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
