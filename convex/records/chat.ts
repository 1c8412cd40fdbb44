/**
 * The #maestro chat: a department's current session of messages (size
 * limited, secret-redacted), each agent's cursor of what it has been shown,
 * and which department an `/api/chat` caller reaches.
 */
import { v, type Infer } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { agentChatAuthor, CHAT_DISABLED, chatAllowed } from "../lib/chat";
import { webuiDepartmentsFromEnv, type ChatSettings } from "../lib/config";
import { MaestroError } from "../lib/errors";
import { hasRole } from "../lib/roles";
import { scanUserText } from "../lib/secrets/userText";
import { membershipsOf } from "./members";
import { chatSettings, chatSettingsOf } from "./settings";
import { getViewer } from "./viewer";

/** Most messages the chat pane shows (the newest). */
export const MAX_PANE_MESSAGES = 500;
/** Messages one GET /api/chat page reads (the endpoint pages through them all). */
export const API_PAGE_SIZE = 1000;
/**
 * Most messages one getNew reads; the cursor moves to the last one, so the
 * next call reads on from there. Convex refuses an array over 8,192 elements
 * and a transaction reading over 16 MiB: 1,000 messages of the longest kind
 * (4,096 characters, notes added, up to 3 bytes each) stay within both.
 */
export const MAX_READ_MESSAGES = 1_000;

export const vChatMessage = v.object({ id: v.number(), ts: v.string(), author: v.string(), text: v.string() });
/** A person behind an `@human` post, for the pane. */
export const vPostedBy = v.object({ userId: v.id("users"), name: v.string() });

/** The department's chat settings when chat is on; NOT_FOUND ("Chat disabled by configuration") when it is off. */
export async function enabledChatSettings(ctx: QueryCtx, departmentId: Id<"departments">): Promise<ChatSettings> {
  return enabledOnly(await chatSettings(ctx, departmentId));
}

/** As `enabledChatSettings`, for a department already read. */
export async function enabledChatSettingsOf(ctx: QueryCtx, department: Doc<"departments">): Promise<ChatSettings> {
  return enabledOnly(await chatSettingsOf(ctx, department));
}

function enabledOnly(settings: ChatSettings): ChatSettings {
  if (!settings.enabled) throw new MaestroError("NOT_FOUND", CHAT_DISABLED);
  return settings;
}

/** A department whose chat is on, with its chat settings: one read of its document (NOT_FOUND when chat is off or it is gone). */
export async function chatDepartment(ctx: QueryCtx, departmentId: Id<"departments">): Promise<ChatDepartment> {
  const department = await ctx.db.get("departments", departmentId);
  if (department === null) throw new MaestroError("NOT_FOUND", "Department not found.");
  return { department, settings: await enabledChatSettingsOf(ctx, department) };
}

export interface ChatDepartment {
  department: Doc<"departments">;
  settings: ChatSettings;
}

/**
 * A chat text checked before anything is scanned: empty is INVALID_ARGUMENT.
 * A long one is never refused: the chat spec cuts it to `maxMessageChars`
 * and appends " … [truncated]" ("Enforce via truncate"), for people and
 * agents alike, on every path (app, HTTP, MCP, brain tool).
 */
export function checkChatText(text: string): void {
  if (text.trim() === "") throw new MaestroError("INVALID_ARGUMENT", "A chat message must not be empty.");
}

/** A message just posted: its chat id and its text as stored (cut and redacted), what every reader sees. */
export interface PostedChat {
  id: number;
  text: string;
}

/**
 * Appends a message to the department's current chat session after size
 * enforcement and secret redaction. Returns its id and its text as stored,
 * so a caller waking the message's @mentions need not read it back.
 */
export async function postChatMessage(
  ctx: MutationCtx,
  departmentId: Id<"departments">,
  author: string,
  rawText: string,
  postedBy?: Infer<typeof vPostedBy>,
  known?: ChatDepartment,
): Promise<PostedChat> {
  const { department, settings } = known ?? (await chatDepartment(ctx, departmentId));
  enabledOnly(settings);
  checkChatText(rawText);
  const { text, truncated, redacted } = scanUserText(rawText, {
    maxChars: settings.maxMessageChars,
    cutAnyLength: true,
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
  return { id, text };
}

/** One #maestro message by its chat id, if it exists. */
export async function chatMessageById(ctx: QueryCtx, id: number): Promise<Doc<"chat"> | null> {
  return await ctx.db
    .query("chat")
    .withIndex("by_chat_id", (q) => q.eq("id", id))
    .unique();
}

/** Whether `author` posted in session `sessionId` after time `since` (a `_creationTime`), among its newest `limit` messages. */
export async function postedInChatSince(ctx: QueryCtx, sessionId: string, author: string, since: number, limit: number): Promise<boolean> {
  const rows = await ctx.db
    .query("chat")
    .withIndex("by_session_and_chat_id", (q) => q.eq("sessionId", sessionId))
    .order("desc")
    .take(limit);
  return rows.some((row) => row.author === author && row._creationTime > since);
}

/** Starts a fresh session: older messages stop being visible to agents and the UI. */
export async function startChatSession(ctx: MutationCtx, departmentId: Id<"departments">): Promise<string> {
  const sessionId = crypto.randomUUID();
  await ctx.db.patch("departments", departmentId, { chatSessionId: sessionId });
  return sessionId;
}

/** The newest messages of a session, oldest first. */
export async function paneMessages(ctx: QueryCtx, sessionId: string): Promise<Array<Doc<"chat">>> {
  const rows = await ctx.db
    .query("chat")
    .withIndex("by_session_and_chat_id", (q) => q.eq("sessionId", sessionId))
    .order("desc")
    .take(MAX_PANE_MESSAGES);
  return rows.reverse();
}

/** One page of a session after `afterId`, as the spec's messages. */
export async function sessionPage(ctx: QueryCtx, sessionId: string, afterId: number, limit = API_PAGE_SIZE) {
  const rows = await ctx.db
    .query("chat")
    .withIndex("by_session_and_chat_id", (q) => q.eq("sessionId", sessionId).gt("id", afterId))
    .take(limit);
  return rows.map(({ id, ts, author, text }) => ({ id, ts, author, text }));
}

export async function cursorOf(ctx: QueryCtx, agentSessionKey: string): Promise<Doc<"chatCursors"> | null> {
  return await ctx.db
    .query("chatCursors")
    .withIndex("by_agentId", (q) => q.eq("agentId", agentSessionKey))
    .unique();
}

/** The agent's unseen messages of its department's current session, and where its cursor would move. */
export async function getNewForAgent(ctx: QueryCtx, agent: Doc<"agents">) {
  const { department } = await chatDepartment(ctx, agent.departmentId);
  const cursor = (await cursorOf(ctx, agent.sessionKey))?.lastId ?? 0;
  const messages = await sessionPage(ctx, department.chatSessionId, cursor, MAX_READ_MESSAGES);
  return { messages, newPointer: messages.length > 0 ? messages[messages.length - 1].id : cursor };
}

/** Moves an agent's cursor forward (never back) and records whether its turn was chat-only. */
export async function advanceCursor(ctx: MutationCtx, agentSessionKey: string, newPointer: number, chatOnlyTurn: boolean): Promise<void> {
  const cursor = await cursorOf(ctx, agentSessionKey);
  if (cursor === null) {
    await ctx.db.insert("chatCursors", { agentId: agentSessionKey, lastId: newPointer, remindNext: chatOnlyTurn });
  } else {
    await ctx.db.patch("chatCursors", cursor._id, { lastId: Math.max(cursor.lastId, newPointer), remindNext: chatOnlyTurn });
  }
}

/** What a run is shown of #maestro: null when chat is off, or its agent may not call the chat tools. */
export const vRunChatContext = v.union(v.null(), v.object({ author: v.string(), remind: v.boolean(), messages: v.array(vChatMessage), newPointer: v.number() }));

export async function chatContextOfAgent(ctx: QueryCtx, agent: Doc<"agents">): Promise<Infer<typeof vRunChatContext>> {
  if (!chatAllowed(agent) || !(await chatSettings(ctx, agent.departmentId)).enabled) return null;
  const cursor = await cursorOf(ctx, agent.sessionKey);
  return { author: agentChatAuthor(agent), remind: cursor?.remindNext ?? false, ...(await getNewForAgent(ctx, agent)) };
}

/**
 * Which department an `/api/chat` call may use. A signed-in caller (Bearer)
 * reaches only departments they belong to (the first one when no slug is
 * given), and posts as a member or above; the WebUI password (HTTP Basic,
 * checked by the route) reaches the departments `webui.departments` lists,
 * every one when it lists none. Unknown and foreign departments answer
 * alike, so slugs reveal nothing. Chat must be on there.
 */
export async function departmentForApi(ctx: QueryCtx, slug: string | undefined, via: "session" | "password", write: boolean): Promise<ChatDepartment> {
  const department = via === "password" ? await passwordDepartment(ctx, slug) : await sessionDepartment(ctx, slug, write);
  if (department === null) throw new MaestroError("NOT_FOUND", `No department ${slug ?? ""} that you can reach.`.replace("  ", " "));
  return { department, settings: await enabledChatSettingsOf(ctx, department) };
}

async function passwordDepartment(ctx: QueryCtx, slug: string | undefined): Promise<Doc<"departments"> | null> {
  const allowed = webuiDepartmentsFromEnv();
  const department =
    slug !== undefined
      ? await ctx.db.query("departments").withIndex("by_slug", (q) => q.eq("slug", slug)).unique()
      : ((await ctx.db.query("departments").withIndex("by_slug").take(50)).find((d) => d.evalOf === undefined) ?? null);
  // An eval's throwaway department (convex/evals.ts) is no one's: the WebUI password never reaches it.
  return department === null || department.evalOf !== undefined || (allowed !== null && !allowed.includes(department.slug)) ? null : department;
}

async function sessionDepartment(ctx: QueryCtx, slug: string | undefined, write: boolean): Promise<Doc<"departments"> | null> {
  const viewer = await getViewer(ctx);
  if (viewer === null) throw new MaestroError("UNAUTHENTICATED", "Your session has ended; sign in again.");
  for (const membership of await membershipsOf(ctx, viewer.user._id)) {
    const department = await ctx.db.get("departments", membership.departmentId);
    if (department === null || (slug !== undefined && department.slug !== slug)) continue;
    if (write && !hasRole(membership.role, "member")) throw new MaestroError("FORBIDDEN", "Viewers can read the chat but not post.");
    return department;
  }
  return null;
}
