/**
 * The #maestro chat's endpoints: the WebUI pane and its settings, the
 * brain's `chat.post` / `chat.getNew` tools, and what `/api/chat` runs once
 * convex/http.ts has checked the caller. The session, cursors and limits are
 * records/chat.ts.
 */
import { v } from "convex/values";
import type { Id } from "./_generated/dataModel";
import { internalMutation, internalQuery, type QueryCtx } from "./_generated/server";
import { departmentMutation, departmentQuery } from "./functions";
import { agentChatAuthor, ARCHITECTS_EXCLUDED, chatExcluded } from "./lib/chat";
import { memberKey } from "./lib/actors";
import { MaestroError } from "./lib/errors";
import { clientSendKey } from "./lib/idempotency";
import { wakeChatMentions } from "./reactions/chatMention";
import { oncePerKey } from "./records/toolEffects";
import {
  departmentForApi,
  enabledChatSettingsOf,
  getNewForAgent,
  paneMessages,
  postChatMessage,
  sessionPage as pageOfSession,
  startChatSession,
  vChatMessage,
  vPostedBy,
} from "./records/chat";
import { chatSettingsOf, saveChatSettings } from "./records/settings";

/** What the WebUI pane shows: the spec's message, plus who posted it when a person did. */
const vPaneMessage = v.object({ id: v.number(), ts: v.string(), author: v.string(), text: v.string(), postedBy: v.optional(vPostedBy) });
const vVia = v.union(v.literal("session"), v.literal("password"));

// ---- for the WebUI ----

/** Whether chat is on, for the pane ("Chat disabled by configuration"). */
export const status = departmentQuery({
  args: {},
  returns: v.object({ enabled: v.boolean(), maxMessageChars: v.number() }),
  handler: async (ctx) => {
    const settings = await chatSettingsOf(ctx, ctx.department);
    return { enabled: settings.enabled, maxMessageChars: settings.maxMessageChars };
  },
});

/** The newest messages of the department's current session, oldest first, with who posted each person's message. */
export const list = departmentQuery({
  args: {},
  returns: v.array(vPaneMessage),
  handler: async (ctx) => {
    await enabledChatSettingsOf(ctx, ctx.department);
    return (await paneMessages(ctx, ctx.department.chatSessionId)).map(({ id, ts, author, text, postedBy }) => ({ id, ts, author, text, ...(postedBy === undefined ? {} : { postedBy }) }));
  },
});

/** Posts as `@human` from the WebUI, remembering which person posted. */
export const postAsHuman = departmentMutation({
  /** `clientMessageId`: the composer's own id for this message; a retried send with it posts once. */
  args: { text: v.string(), clientMessageId: v.optional(v.string()) },
  returns: v.object({ id: v.number(), success: v.boolean() }),
  handler: async (ctx, { departmentId, text, clientMessageId }) => ({
    id: await oncePerKey(ctx, { key: clientSendKey(memberKey(ctx.member.userId), clientMessageId), tool: "chat_post" }, async () => {
      const posted = await postChatMessage(ctx, departmentId, "@human", text, { userId: ctx.member.userId, name: ctx.member.name });
      // A person's @mention of an agent wakes it (reactions/chatMention); a retried send wakes nobody twice.
      await wakeChatMentions(ctx, departmentId, posted, ctx.member.name);
      return posted.id;
    }),
    success: true,
  }),
});

/** Admins: start a fresh chat session; older messages stop being visible to agents and the UI. */
export const newSession = departmentMutation({
  role: "admin",
  args: {},
  returns: v.string(),
  handler: async (ctx, { departmentId }) => await startChatSession(ctx, departmentId),
});

/** The department's effective chat settings, for the settings screen. */
export const settings = departmentQuery({
  args: {},
  returns: v.object({ enabled: v.boolean(), maxMessageChars: v.number(), scannerEnabled: v.boolean(), scannerTimeoutMs: v.number() }),
  handler: async (ctx) => await chatSettingsOf(ctx, ctx.department),
});

/** The department's owners and admins: override its chat settings at runtime (no other department changes). */
export const updateSettings = departmentMutation({
  role: "admin",
  args: {
    enabled: v.optional(v.boolean()),
    maxMessageChars: v.optional(v.number()),
    scannerEnabled: v.optional(v.boolean()),
    scannerTimeoutMs: v.optional(v.number()),
  },
  returns: v.null(),
  handler: async (ctx, { departmentId, ...changes }) => {
    for (const key of ["maxMessageChars", "scannerTimeoutMs"] as const) {
      const value = changes[key];
      if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > 1_000_000)) {
        throw new MaestroError("INVALID_ARGUMENT", `${key} must be a whole number between 1 and 1000000.`);
      }
    }
    await saveChatSettings(ctx, departmentId, changes);
    return null;
  },
});

// ---- for the brain (agents inside Maestro) ----

async function runAgent(ctx: QueryCtx, runId: Id<"runs">) {
  const run = await ctx.db.get("runs", runId);
  if (run === null) throw new Error(`Run ${runId} not found`);
  const agent = (await ctx.db.get("agents", run.agentId))!;
  if (chatExcluded(agent)) throw new MaestroError("FORBIDDEN", ARCHITECTS_EXCLUDED);
  return agent;
}

/** `chat.post` for the run's agent; the author comes from the agent, never the model. */
export const postForRun = internalMutation({
  args: { runId: v.id("runs"), text: v.string(), key: v.optional(v.string()) },
  returns: v.object({ id: v.number(), success: v.boolean() }),
  handler: async (ctx, { runId, text, key }) => {
    const agent = await runAgent(ctx, runId);
    // The same call from the same cause posts once (records/toolEffects).
    return await oncePerKey(ctx, { key, tool: "chat.post", runId }, async () => ({ id: (await postChatMessage(ctx, agent.departmentId, agentChatAuthor(agent), text)).id, success: true }));
  },
});

/** `chat.getNew` for the run's agent (the cursor moves after the model call, with the reply's end). */
export const getNewForRun = internalQuery({
  args: { runId: v.id("runs") },
  returns: v.object({ messages: v.array(vChatMessage), newPointer: v.number() }),
  handler: async (ctx, { runId }) => await getNewForAgent(ctx, await runAgent(ctx, runId)),
});

// ---- for /api/chat (convex/http.ts checks the caller first) ----

/** The current session of the department the caller reaches (records/chat departmentForApi). */
export const sessionForApi = internalQuery({
  args: { slug: v.optional(v.string()), via: vVia },
  returns: v.string(),
  handler: async (ctx, { slug, via }) => (await departmentForApi(ctx, slug, via, false)).department.chatSessionId,
});

/** One page of a session, by id. */
export const sessionPage = internalQuery({
  args: { sessionId: v.string(), afterId: v.number() },
  returns: v.array(vChatMessage),
  handler: async (ctx, { sessionId, afterId }) => await pageOfSession(ctx, sessionId, afterId),
});

/** Posts as `@human` in the department the caller reaches. */
export const postFromApi = internalMutation({
  args: { slug: v.optional(v.string()), via: vVia, text: v.string() },
  returns: v.number(),
  handler: async (ctx, { slug, via, text }) => {
    const known = await departmentForApi(ctx, slug, via, true);
    const posted = await postChatMessage(ctx, known.department._id, "@human", text, undefined, known);
    await wakeChatMentions(ctx, known.department._id, posted, "@human");
    return posted.id;
  },
});
