import { v, type Infer } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import { internalMutation, internalQuery, type MutationCtx, type QueryCtx } from "./_generated/server";
import { departmentMutation, departmentQuery } from "./functions";
import { getViewer, hasRole } from "./lib/auth";
import { chatSettings, webuiDepartmentsFromEnv, type ChatSettings } from "./lib/config";
import { MaestroError } from "./lib/errors";
import { slugify } from "./lib/names";
import { MAX_DEPARTMENTS_PER_MEMBER } from "./departments";
import { scanUserText, textTooLongMessage, TRUNCATION_MARK } from "./lib/secrets/userText";
import { oncePerKey } from "./tools/effects";

/** Appended to a message cut at `maxMessageChars`. */
export { TRUNCATION_MARK };
/** What the UI and the endpoints say when chat is off. */
export const CHAT_DISABLED = "Chat disabled by configuration";
/** Most messages the chat pane shows (the newest). */
export const MAX_PANE_MESSAGES = 500;
/** Messages one GET /api/chat page reads (the endpoint pages through them all). */
const API_PAGE_SIZE = 1000;
/** Most messages one getNew reads. */
export const MAX_READ_MESSAGES = 10_000;

export const vChatMessage = v.object({ id: v.number(), ts: v.string(), author: v.string(), text: v.string() });
/** A person behind an `@human` post, for the pane. */
const vPostedBy = v.object({ userId: v.id("users"), name: v.string() });
/** What the WebUI pane shows: the spec's message, plus who posted it when a person did. */
export const vPaneMessage = v.object({ id: v.number(), ts: v.string(), author: v.string(), text: v.string(), postedBy: v.optional(vPostedBy) });

/** An agent's chat name: `@<agent slug>`; never `@human` or `@architect`, which are reserved. */
export function agentChatAuthor(agent: Pick<Doc<"agents">, "name">): string {
  const slug = slugify(agent.name) || "agent";
  return slug === "human" || slug === "architect" ? `@agent-${slug}` : `@${slug}`;
}

/** Architects take no part in chat in Phase 1: no context, no tools, no addendum. */
export function chatExcluded(agent: Pick<Doc<"agents">, "kind">): boolean {
  return agent.kind === "architect";
}

async function enabledSettings(ctx: QueryCtx, departmentId: Id<"departments">): Promise<ChatSettings> {
  const settings = await chatSettings(ctx, departmentId);
  if (!settings.enabled) throw new MaestroError("NOT_FOUND", CHAT_DISABLED);
  return settings;
}

/**
 * Appends a message to the department's current chat session after size
 * enforcement and secret redaction. Returns its id.
 */
export async function postChat(
  ctx: MutationCtx,
  departmentId: Id<"departments">,
  author: string,
  rawText: string,
  postedBy?: Infer<typeof vPostedBy>,
  // The caller's settings when it has read them already in this transaction (read once per call).
  knownSettings?: ChatSettings,
): Promise<number> {
  const settings = knownSettings ?? (await enabledSettings(ctx, departmentId));
  if (!settings.enabled) throw new MaestroError("NOT_FOUND", CHAT_DISABLED);
  const tooLong = textTooLongMessage(rawText, settings.maxMessageChars, "A chat message");
  if (tooLong !== null) throw new MaestroError("INVALID_ARGUMENT", tooLong);
  if (rawText.trim() === "") throw new MaestroError("INVALID_ARGUMENT", "A chat message must not be empty.");
  const department = await ctx.db.get("departments", departmentId);
  if (department === null) throw new MaestroError("NOT_FOUND", "Department not found.");
  const { text, truncated, redacted } = scanUserText(rawText, {
    maxChars: settings.maxMessageChars,
    enabled: settings.scannerEnabled,
    timeoutMs: settings.scannerTimeoutMs,
    source: "chat.post",
  });
  const last = await ctx.db.query("chat").withIndex("by_chat_id").order("desc").first();
  const id = (last?.id ?? 0) + 1;
  await ctx.db.insert("chat", {
    id,
    departmentId,
    sessionId: department.chatSessionId,
    ts: new Date().toISOString(),
    author,
    text,
    truncated,
    redacted,
    ...(postedBy === undefined ? {} : { postedBy }),
  });
  return id;
}

async function cursorOf(ctx: QueryCtx, agentId: string) {
  return await ctx.db
    .query("chatCursors")
    .withIndex("by_agentId", (q) => q.eq("agentId", agentId))
    .unique();
}

/** The agent's unseen messages of its department's current session, and where its cursor would move. */
export async function getNewForAgent(ctx: QueryCtx, agent: Doc<"agents">) {
  await enabledSettings(ctx, agent.departmentId);
  const department = (await ctx.db.get("departments", agent.departmentId))!;
  const cursor = (await cursorOf(ctx, agent.sessionKey))?.lastId ?? 0;
  const rows = await ctx.db
    .query("chat")
    .withIndex("by_session_and_chat_id", (q) => q.eq("sessionId", department.chatSessionId).gt("id", cursor))
    .take(MAX_READ_MESSAGES);
  const messages = rows.map(({ id, ts, author, text }) => ({ id, ts, author, text }));
  return { messages, newPointer: messages.length > 0 ? messages[messages.length - 1].id : cursor };
}

/** Moves an agent's cursor forward (never back) and records whether its turn was chat-only. */
export async function advanceCursor(ctx: MutationCtx, agentId: string, newPointer: number, chatOnlyTurn: boolean) {
  const cursor = await cursorOf(ctx, agentId);
  if (cursor === null) {
    await ctx.db.insert("chatCursors", { agentId, lastId: newPointer, remindNext: chatOnlyTurn });
  } else {
    await ctx.db.patch("chatCursors", cursor._id, { lastId: Math.max(cursor.lastId, newPointer), remindNext: chatOnlyTurn });
  }
}

// ---- for the WebUI ----

/** Whether chat is on, for the pane ("Chat disabled by configuration"). */
export const status = departmentQuery({
  args: {},
  returns: v.object({ enabled: v.boolean(), maxMessageChars: v.number() }),
  handler: async (ctx, { departmentId }) => {
    const settings = await chatSettings(ctx, departmentId);
    return { enabled: settings.enabled, maxMessageChars: settings.maxMessageChars };
  },
});

/** The newest messages of the department's current session, oldest first, with who posted each person's message. */
export const list = departmentQuery({
  args: {},
  returns: v.array(vPaneMessage),
  handler: async (ctx, { departmentId }) => {
    await enabledSettings(ctx, departmentId);
    const { department } = ctx;
    const rows = await ctx.db
      .query("chat")
      .withIndex("by_session_and_chat_id", (q) => q.eq("sessionId", department.chatSessionId))
      .order("desc")
      .take(MAX_PANE_MESSAGES);
    return rows.reverse().map(({ id, ts, author, text, postedBy }) => ({ id, ts, author, text, ...(postedBy === undefined ? {} : { postedBy }) }));
  },
});

/** Posts as `@human` from the WebUI, remembering which person posted. */
export const postAsHuman = departmentMutation({
  args: { text: v.string() },
  returns: v.object({ id: v.number(), success: v.boolean() }),
  handler: async (ctx, { departmentId, text }) => {
    const postedBy = { userId: ctx.member.userId, name: ctx.member.name };
    return { id: await postChat(ctx, departmentId, "@human", text, postedBy), success: true };
  },
});

/** Admins: start a fresh chat session; older messages stop being visible to agents and the UI. */
export const newSession = departmentMutation({
  role: "admin",
  args: {},
  returns: v.string(),
  handler: async (ctx, { departmentId }) => {
    const sessionId = crypto.randomUUID();
    await ctx.db.patch("departments", departmentId, { chatSessionId: sessionId });
    return sessionId;
  },
});

/** The department's effective chat settings, for the settings screen. */
export const settings = departmentQuery({
  args: {},
  returns: v.object({ enabled: v.boolean(), maxMessageChars: v.number(), scannerEnabled: v.boolean(), scannerTimeoutMs: v.number() }),
  handler: async (ctx, { departmentId }) => await chatSettings(ctx, departmentId),
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
    const saved = await ctx.db
      .query("settings")
      .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
      .unique();
    if (saved === null) await ctx.db.insert("settings", { departmentId, chat: changes });
    else await ctx.db.patch("settings", saved._id, { chat: { ...saved.chat, ...changes } });
    return null;
  },
});

// ---- for the brain (agents inside Maestro) ----

async function runAgent(ctx: QueryCtx, runId: Id<"runs">) {
  const run = await ctx.db.get("runs", runId);
  if (run === null) throw new Error(`Run ${runId} not found`);
  const agent = (await ctx.db.get("agents", run.agentId))!;
  if (chatExcluded(agent)) throw new MaestroError("FORBIDDEN", "Architects take no part in chat.");
  return agent;
}

/** `chat.post` for the run's agent; the author comes from the agent, never the model. */
export const postForRun = internalMutation({
  args: { runId: v.id("runs"), text: v.string(), key: v.optional(v.string()) },
  returns: v.object({ id: v.number(), success: v.boolean() }),
  handler: async (ctx, { runId, text, key }) => {
    const agent = await runAgent(ctx, runId);
    // The same call from the same cause posts once (tools/effects).
    return await oncePerKey(ctx, { key, tool: "chat.post", runId }, async () => ({ id: await postChat(ctx, agent.departmentId, agentChatAuthor(agent), text), success: true }));
  },
});

/** `chat.getNew` for the run's agent (the cursor moves after the model call, by the middleware). */
export const getNewForRun = internalQuery({
  args: { runId: v.id("runs") },
  returns: v.object({ messages: v.array(vChatMessage), newPointer: v.number() }),
  handler: async (ctx, { runId }) => await getNewForAgent(ctx, await runAgent(ctx, runId)),
});

/** What the chat middleware injects before a model call: null when chat is off or the agent is an architect. */
/** What a run is shown of #maestro: null when chat is off for its agent. */
export const vRunChatContext = v.union(
  v.null(),
  v.object({ author: v.string(), remind: v.boolean(), messages: v.array(vChatMessage), newPointer: v.number() }),
);

export async function chatContextOfRun(ctx: QueryCtx, runId: Id<"runs">): Promise<Infer<typeof vRunChatContext>> {
  const run = await ctx.db.get("runs", runId);
  if (run === null) return null;
  const agent = (await ctx.db.get("agents", run.agentId))!;
  if (chatExcluded(agent) || !(await chatSettings(ctx, agent.departmentId)).enabled) return null;
  const cursor = await cursorOf(ctx, agent.sessionKey);
  return { author: agentChatAuthor(agent), remind: cursor?.remindNext ?? false, ...(await getNewForAgent(ctx, agent)) };
}

export const contextForRun = internalQuery({
  args: { runId: v.id("runs") },
  returns: vRunChatContext,
  handler: async (ctx, { runId }) => await chatContextOfRun(ctx, runId),
});

/** After the model call: the cursor moves to what was shown, and a chat-only turn is remembered. */
export const advanceForRun = internalMutation({
  args: { runId: v.id("runs"), newPointer: v.number(), chatOnlyTurn: v.boolean() },
  returns: v.null(),
  handler: async (ctx, { runId, newPointer, chatOnlyTurn }) => {
    const run = await ctx.db.get("runs", runId);
    if (run === null) return null;
    await advanceCursor(ctx, run.agentSessionKey, newPointer, chatOnlyTurn);
    return null;
  },
});

// ---- for the HTTP endpoints (convex/http.ts checks the caller first) ----

/** An HTTP endpoint's refusal, decided inside a function: status and message. */
export const vApiError = v.object({ kind: v.literal("error"), status: v.number(), message: v.string() });

/**
 * Which department an `/api/chat` call may use, and whether it may post.
 * A signed-in caller (Bearer) reaches only departments they belong to (the
 * first one when no slug is given) and posts as a member or above; the WebUI
 * password (HTTP Basic, checked by the route) reaches the departments
 * `webui.departments` lists, every one when it lists none. Unknown and
 * foreign departments answer alike, so slugs reveal nothing.
 */
async function departmentForApi(
  ctx: QueryCtx,
  slug: string | undefined,
  via: "session" | "password",
  write: boolean,
): Promise<{ kind: "ok"; department: Doc<"departments"> } | { kind: "error"; status: number; message: string }> {
  const noSuch = { kind: "error" as const, status: 404, message: `No department ${slug ?? ""} that you can reach.`.replace("  ", " ") };
  if (via === "password") {
    const allowed = webuiDepartmentsFromEnv();
    const department =
      slug !== undefined
        ? await ctx.db.query("departments").withIndex("by_slug", (q) => q.eq("slug", slug)).unique()
        : await ctx.db.query("departments").withIndex("by_slug").first();
    if (department === null || (allowed !== null && !allowed.includes(department.slug))) return noSuch;
    return { kind: "ok", department };
  }
  const viewer = await getViewer(ctx);
  if (viewer === null) return { kind: "error", status: 401, message: "Your session has ended; sign in again." };
  const memberships = await ctx.db
    .query("members")
    .withIndex("by_user", (q) => q.eq("userId", viewer.user._id))
    .take(MAX_DEPARTMENTS_PER_MEMBER);
  for (const membership of memberships) {
    const department = await ctx.db.get("departments", membership.departmentId);
    if (department === null || (slug !== undefined && department.slug !== slug)) continue;
    if (write && !hasRole(membership.role, "member")) return { kind: "error", status: 403, message: "Viewers can read the chat but not post." };
    return { kind: "ok", department };
  }
  return noSuch;
}

export const sessionForApi = internalQuery({
  args: { slug: v.optional(v.string()), via: v.union(v.literal("session"), v.literal("password")) },
  returns: v.union(vApiError, v.object({ kind: v.literal("ok"), sessionId: v.string() })),
  handler: async (ctx, { slug, via }) => {
    const found = await departmentForApi(ctx, slug, via, false);
    if (found.kind === "error") return found;
    if (!(await chatSettings(ctx, found.department._id)).enabled) return { kind: "error" as const, status: 404, message: CHAT_DISABLED };
    return { kind: "ok" as const, sessionId: found.department.chatSessionId };
  },
});

/** One page of a session, by id. */
export const sessionPage = internalQuery({
  args: { sessionId: v.string(), afterId: v.number() },
  returns: v.array(vChatMessage),
  handler: async (ctx, { sessionId, afterId }) => {
    const rows = await ctx.db
      .query("chat")
      .withIndex("by_session_and_chat_id", (q) => q.eq("sessionId", sessionId).gt("id", afterId))
      .take(API_PAGE_SIZE);
    return rows.map(({ id, ts, author, text }) => ({ id, ts, author, text }));
  },
});

export const postFromApi = internalMutation({
  args: { slug: v.optional(v.string()), via: v.union(v.literal("session"), v.literal("password")), text: v.string() },
  returns: v.union(vApiError, v.object({ kind: v.literal("ok"), id: v.number() })),
  handler: async (ctx, { slug, via, text }) => {
    const found = await departmentForApi(ctx, slug, via, true);
    if (found.kind === "error") return found;
    const settings = await chatSettings(ctx, found.department._id);
    if (!settings.enabled) return { kind: "error" as const, status: 404, message: CHAT_DISABLED };
    if (text.trim() === "") return { kind: "error" as const, status: 400, message: "A chat message must not be empty." };
    const tooLong = textTooLongMessage(text, settings.maxMessageChars, "A chat message");
    if (tooLong !== null) return { kind: "error" as const, status: 413, message: tooLong };
    return { kind: "ok" as const, id: await postChat(ctx, found.department._id, "@human", text) };
  },
});
