/** The #maestro chat's rules that need no database: who may take part, and under which author name. */
import type { Doc } from "../_generated/dataModel";
import { slugify } from "./names";

/** What the UI and the endpoints say when chat is off. */
export const CHAT_DISABLED = "Chat disabled by configuration";
/** What an architect's chat (or chat key) is refused with. */
export const ARCHITECTS_EXCLUDED = "Architects take no part in chat.";

/** An agent's chat name: `@<agent slug>`; never `@human` or `@architect`, which are reserved. */
export function agentChatAuthor(agent: Pick<Doc<"agents">, "name">): string {
  const slug = slugify(agent.name) || "agent";
  return slug === "human" || slug === "architect" ? `@agent-${slug}` : `@${slug}`;
}

/** The #maestro chat's tools are the registry's `chat.*` entries. */
export function isChatTool(name: string): boolean {
  return name.startsWith("chat.");
}

/**
 * Whether an agent takes part in #maestro through its runs: not an
 * architect, and allowed at least one chat tool. Only such an agent's prompt
 * gets the chat addendum and the #maestro feed.
 */
export function chatAllowed(agent: Pick<Doc<"agents">, "kind" | "allowedTools">): boolean {
  return !chatExcluded(agent) && agent.allowedTools.some(isChatTool);
}

/** Architects take no part in chat in Phase 1: no context, no tools, no addendum. */
export function chatExcluded(agent: Pick<Doc<"agents">, "kind">): boolean {
  return agent.kind === "architect";
}
