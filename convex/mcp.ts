/**
 * The chat for agents outside Maestro: what the `/mcp/*` HTTP endpoints in
 * convex/http.ts run once they have hashed the caller's API key. The stdio
 * MCP server in tools/mcp/ calls those endpoints.
 */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { internalMutation, internalQuery, type QueryCtx } from "./_generated/server";
import { agentForKeyHash, type KeyRefusal } from "./agentApiKeys";
import { advanceCursor, agentChatAuthor, CHAT_DISABLED, getNewForAgent, postChat, vApiError, vChatMessage } from "./chat";
import { chatSettings, chatSettingsFromEnv, type ChatSettings } from "./lib/config";
import { textTooLongMessage } from "./lib/secrets/userText";
import { limitAgent } from "./rateLimits";

/** Whether chat is on, so the MCP server knows whether to register its tools. */
export const chatStatus = internalQuery({
  args: { keyHash: v.optional(v.string()) },
  returns: v.object({ enabled: v.boolean() }),
  handler: async (ctx, { keyHash }) => {
    // With a valid key: its department's setting; without one, the deployment's default.
    const resolved = keyHash === undefined ? null : await agentForKeyHash(ctx, keyHash);
    if (resolved?.kind !== "ok") return { enabled: chatSettingsFromEnv().enabled };
    return { enabled: (await chatSettings(ctx, resolved.agent.departmentId)).enabled };
  },
});

/**
 * The key's agent and its department's chat settings when it may chat now;
 * else why not (401 key, 403 architect, 404 chat off). The settings are read
 * here once and passed down, not re-read per step.
 */
async function chattingAgent(
  ctx: QueryCtx,
  keyHash: string,
): Promise<{ kind: "ok"; agent: Doc<"agents">; settings: ChatSettings } | KeyRefusal> {
  const resolved = await agentForKeyHash(ctx, keyHash);
  if (resolved.kind === "error") return resolved;
  const settings = await chatSettings(ctx, resolved.agent.departmentId);
  if (!settings.enabled) return { kind: "error", status: 404, message: CHAT_DISABLED };
  return { ...resolved, settings };
}

/** The refusal a call with this key would get, or null; reads only (for bodies answered 400). */
export const refusal = internalQuery({
  args: { keyHash: v.string() },
  returns: v.union(vApiError, v.null()),
  handler: async (ctx, { keyHash }) => {
    const resolved = await chattingAgent(ctx, keyHash);
    return resolved.kind === "error" ? resolved : null;
  },
});

/**
 * `chat.post` for the key's agent, authored `@<agent>`. `text` is null when
 * the request body was not `{"text": string}` (answered 400 once the key is
 * known to be good).
 */
export const post = internalMutation({
  args: { keyHash: v.string(), text: v.union(v.string(), v.null()) },
  returns: v.union(vApiError, v.object({ kind: v.literal("ok"), id: v.number() })),
  handler: async (ctx, { keyHash, text }) => {
    const resolved = await chattingAgent(ctx, keyHash);
    if (resolved.kind === "error") return resolved;
    if (text === null) return { kind: "error" as const, status: 400, message: 'Send JSON: {"text": "..."}' };
    if (text.trim() === "") return { kind: "error" as const, status: 400, message: "A chat message must not be empty." };
    const { agent, settings } = resolved;
    const tooLong = textTooLongMessage(text, settings.maxMessageChars, "A chat message");
    if (tooLong !== null) return { kind: "error" as const, status: 413, message: tooLong };
    // A post spends its own bucket only, as a channel post spends only messagePost: one rate-limiter call per post.
    const limited = await limitAgent(ctx, "agentPost", agent.sessionKey);
    if (limited !== null) return limited;
    return { kind: "ok" as const, id: await postChat(ctx, agent.departmentId, agentChatAuthor(agent), text, undefined, settings) };
  },
});

/**
 * `chat.getNew` for the key's agent. An outside agent has no model-call
 * middleware to move its cursor afterwards, so the cursor moves to
 * `newPointer` here, in the same transaction: the next call returns only
 * newer messages. A pending chat-only reminder for the agent's runs inside
 * Maestro is kept as it was.
 */
export const getNew = internalMutation({
  args: { keyHash: v.string() },
  returns: v.union(vApiError, v.object({ kind: v.literal("ok"), messages: v.array(vChatMessage), newPointer: v.number() })),
  handler: async (ctx, { keyHash }) => {
    const resolved = await chattingAgent(ctx, keyHash);
    if (resolved.kind === "error") return resolved;
    const { agent } = resolved;
    const limited = await limitAgent(ctx, "agentApiCall", agent.sessionKey);
    if (limited !== null) return limited;
    const { messages, newPointer } = await getNewForAgent(ctx, agent);
    const cursor = await ctx.db
      .query("chatCursors")
      .withIndex("by_agentId", (q) => q.eq("agentId", agent.sessionKey))
      .unique();
    if (cursor === null || newPointer > cursor.lastId) {
      await advanceCursor(ctx, agent.sessionKey, newPointer, cursor?.remindNext ?? false);
    }
    return { kind: "ok" as const, messages, newPointer };
  },
});
