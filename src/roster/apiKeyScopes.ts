/**
 * What the key dialog offers: each API scope with what it lets a key do, the
 * ones ticked by default, and why a choice cannot be made. The scope list
 * itself is the server's (convex/lib/apiKeys.ts), so the two never drift.
 */
import { API_SCOPES, type ApiScope } from "../../convex/lib/apiKeys";

export { API_SCOPES, type ApiScope };

/** One line per scope, in the server's order. */
export const SCOPE_ABOUT: Record<ApiScope, string> = {
  "projects:read": "Read its project",
  "projects:write": "Create new projects",
  "channels:read": "List and read channels",
  "channels:manage": "Create channels, change members and topics",
  "messages:read": "Read channels, threads, DMs and its inbox",
  "messages:write": "Post messages, start threads, send DMs",
  "chat:read": "Read the #maestro chat",
  "chat:write": "Post in the #maestro chat",
  "tasks:read": "Read tasks, their subtasks and threads, and the tasks assigned to it",
  "tasks:write": "Put tasks on the board, post in their threads, move the tasks it holds",
  "tools:run": "Submit the output of external tool calls",
  "a2a:tasks": "Hand work to the squad over A2A (another orchestrator), follow and cancel it",
};

/**
 * Ticked when the dialog opens: what the MCP server needs to read and talk
 * (messaging and the #maestro chat); making projects, managing channels and
 * answering external tool calls are opt-in.
 */
export const DEFAULT_SCOPES: readonly ApiScope[] = ["projects:read", "channels:read", "messages:read", "messages:write", "chat:read", "chat:write"];

/** `scopes` with `scope` on or off, in the server's order. */
export function toggleScope(scopes: readonly ApiScope[], scope: ApiScope, on: boolean): ApiScope[] {
  return API_SCOPES.filter((s) => (s === scope ? on : scopes.includes(s)));
}

/** Why `scopes` cannot make a key, or null when they can. */
export function scopeChoiceError(scopes: readonly ApiScope[]): string | null {
  return scopes.length === 0 ? "Choose at least one scope." : null;
}

/** A key's scopes in a few words: "All scopes" when it holds every one. */
export function scopeSummary(scopes: readonly ApiScope[]): string {
  return API_SCOPES.every((s) => scopes.includes(s)) ? "All scopes" : scopes.join(", ");
}
