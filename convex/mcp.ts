/**
 * The chat for agents outside Maestro: what the `/mcp/*` HTTP endpoints in
 * convex/http.ts run once they have hashed the caller's API key. The
 * MCP tools chat_post / chat_getNew (convex/mcpTools.ts) call those endpoints. Refusals are MaestroErrors:
 * 401 for a key, 403 for an architect's, 404 when chat is off, 400 for a bad
 * body, 413 for a message over the limit, 429 when rate limited.
 */
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { internalMutation, internalQuery, type QueryCtx } from "./_generated/server";
import { agentChatAuthor } from "./lib/chat";
import { chatSettingsFromEnv } from "./lib/config";
import { MaestroError } from "./lib/errors";
import type { ApiScope } from "./lib/apiKeys";
import { wakeChatMentions } from "./reactions/chatMention";
import { keyAgent, scopedKeyAgentX } from "./records/agentApiKeys";
import { advanceCursor, chatDepartment, checkChatText, cursorOf, getNewForAgent, postChatMessage, vChatMessage, type ChatDepartment } from "./records/chat";
import { limitOrThrow } from "./records/rateLimits";
import { chatSettings } from "./records/settings";

/** Whether chat is on, so the MCP server knows whether to register its tools. */
export const chatStatus = internalQuery({
  args: { keyHash: v.optional(v.string()) },
  returns: v.object({ enabled: v.boolean() }),
  handler: async (ctx, { keyHash }) => {
    // With a good key: its department's setting; without one, the deployment's default.
    const agent = keyHash === undefined ? null : await keyAgent(ctx, keyHash);
    return { enabled: agent === null ? chatSettingsFromEnv().enabled : (await chatSettings(ctx, agent.departmentId)).enabled };
  },
});

/** The key's agent, its department and that department's chat settings when it may chat now with a key holding `scope` (read once per call). */
async function chattingAgent(ctx: QueryCtx, keyHash: string, scope: ApiScope): Promise<{ agent: Doc<"agents"> } & ChatDepartment> {
  const agent = await scopedKeyAgentX(ctx, keyHash, scope);
  return { agent, ...(await chatDepartment(ctx, agent.departmentId)) };
}

/** Refuses a key that may not chat now, as a call with it would be refused; reads only (for bodies answered 400). */
export const checkKey = internalQuery({
  args: { keyHash: v.string() },
  returns: v.null(),
  handler: async (ctx, { keyHash }) => {
    await chattingAgent(ctx, keyHash, "chat:read");
    return null;
  },
});

/**
 * `chat.post` for the key's agent, authored `@<agent>`. `text` is null when
 * the request body was not `{"text": string}` (answered 400 once the key is
 * known to be good).
 */
export const post = internalMutation({
  args: { keyHash: v.string(), text: v.union(v.string(), v.null()) },
  returns: v.number(),
  handler: async (ctx, { keyHash, text }) => {
    const { agent, department, settings } = await chattingAgent(ctx, keyHash, "chat:write");
    if (text === null) throw new MaestroError("INVALID_ARGUMENT", 'Send JSON: {"text": "..."}');
    checkChatText(text);
    // A post spends its own bucket only, as a channel post spends only messagePost: one rate-limiter call per post.
    await limitOrThrow(ctx, "agentPost", agent.sessionKey);
    const posted = await postChatMessage(ctx, agent.departmentId, agentChatAuthor(agent), text, undefined, { department, settings });
    // An outside agent asks as a person does: the agents it @mentions wake (never itself; runs inside Maestro post through their tools, which wake nobody).
    await wakeChatMentions(ctx, agent.departmentId, posted, agent.name, agent._id);
    return posted.id;
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
  returns: v.object({ messages: v.array(vChatMessage), newPointer: v.number() }),
  handler: async (ctx, { keyHash }) => {
    const { agent } = await chattingAgent(ctx, keyHash, "chat:read");
    await limitOrThrow(ctx, "agentApiCall", agent.sessionKey);
    const { messages, newPointer } = await getNewForAgent(ctx, agent);
    const cursor = await cursorOf(ctx, agent.sessionKey);
    if (cursor === null || newPointer > cursor.lastId) await advanceCursor(ctx, agent.sessionKey, newPointer, cursor?.remindNext ?? false);
    return { messages, newPointer };
  },
});
