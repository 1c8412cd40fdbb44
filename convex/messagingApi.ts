/**
 * Messaging over HTTP for agents outside Maestro (messaging spec, "HTTP API";
 * convex/http.ts lists the routes),
 * authenticated by the agent's API key (`Authorization: Bearer mk_…`, created
 * by an admin in the agent modal). Every call acts as that agent, in its
 * department only, through the same operations as the brain's messaging
 * tools (convex/tools/messaging.ts), so the ACLs, the size limit, the secret
 * scanner and the post rate limit are the same. One route is not messaging:
 * an external tool's output for a waiting run, through the same logic as the
 * app's `runs.toolOutput`.
 *
 * Each route needs one of the key's scopes (lib/apiKeys API_SCOPES), shown
 * in brackets; answers are the spec's JSON (lib/messagingJson), described
 * with curl examples in docs/api.md:
 *
 *   POST /projects                    {name, description?}  a new department owned by the key's maker  [projects:write]
 *   GET  /projects/{id}               the key's department (id, slug or `me`)            [projects:read]
 *   GET  /projects/{id}/channels      its channels this agent may read                   [channels:read]
 *   GET  /projects/{id}/agents        its agents, each an Agent with its endpoint_url and owner  [projects:read]
 *   POST /channels                    {name, topic?, visibility?: "project"|"private"}   [channels:manage]
 *   GET  /channels/{id}               a Channel (or a DM) by id or name                  [channels:read]
 *   POST /channels/{id}/members       {add?: [names], remove?: [names]}                  [channels:manage]
 *   POST /channels/{id}/topic         {topic}                                            [channels:manage]
 *   GET  /channels/{id}/messages      ?limit=&since=&cursor=  top-level messages, oldest first, a page at a time:
 *                                     {messages, next_cursor, more}                      [messages:read]
 *   POST /messages                    {channel | reply_to, body, mentions?, artifacts?, importance?, blocking?, correlation_id?, client_message_id?}  [messages:write]
 *   POST /messages/{id}/read          marks one message read for this agent              [messages:read]
 *   POST /threads                     {root_message_id} or {channel, body, ...}: a Thread  [messages:write]
 *   GET  /threads/{id}                a Thread                                           [messages:read]
 *   GET  /threads/{id}/messages       its first message and its replies                  [messages:read]
 *   POST /dms                         {to: [names], body, importance?, blocking?, correlation_id?, client_message_id?}  [messages:write]
 *   GET  /dms/{id}/messages           ?limit=&since=&cursor=  a DM's messages, paged alike  [messages:read]
 *   GET  /agents/{id}                 an Agent of the key's department (id, name or `me`)  [projects:read]
 *   GET  /agents/{id}/inbox           ?limit=  unread for this agent (its own id, name or `me` only)  [messages:read]
 *   POST /tasks                       {title, description?, priority?, tags?, assignees?: [agent names, lib/agentNames rule]}: a Task on the
 *                                     key's department's board (convex/tasks.ts createForKey)  [tasks:write]
 *   POST /runs/{id}/tool-output       {tool, tool_call_id, output | error}: an external tool's result for the call a run of
 *                                     the key's department waits on (convex/runs.ts toolOutput)  [tools:run]
 *   GET  /tool-calls/waiting          ?limit=&cursor=  the department's external calls waiting for an executor, soonest to
 *                                     expire first: {tool_calls, next_cursor} (convex/runs.ts waitingToolCalls)  [tools:run]
 *
 * Errors (lib/errors HTTP_STATUS): 401 key, 403 not allowed or a scope the
 * key lacks, 404 unknown (any other path: convex/http.ts's catch-all), 400
 * bad body or malformed path, 413 a message over the limit, 409 conflict,
 * 429 rate limited (with Retry-After); always `{"error": "..."}`. Times are
 * whole milliseconds (lib/messagingJson ms).
 */
import { ConvexError } from "convex/values";
import { internal } from "./_generated/api";
import type { ActionCtx } from "./_generated/server";
import type { ApiScope } from "./lib/apiKeys";
import { agentKeyHash, BEARER_CHALLENGE, json, jsonObjectBody, RequestRefusal, type HttpRoute } from "./lib/httpJson";
import { channelJson, conversationJson, cursorStart, messageCursor, messageJson, ms, threadJson, type CursorStart, type StoredMessage } from "./lib/messagingJson";
import { CHANNEL_LIMITS } from "./lib/channels";
import { LIMITS, MAX_WAITING_CALLS_PAGE } from "./lib/limits";
import { IMPORTANCES, CHANNEL_VISIBILITIES, PRIORITIES } from "./validators";

type Body = Record<string, unknown>;

/** A call's arguments as the object they spell (Maestro keeps them as canonical JSON); text that is not JSON stays text. */
function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Waiting external calls `GET /tool-calls/waiting` lists without a `limit`. */
const DEFAULT_WAITING_CALLS = 20;

const badRequest = (message: string) => new RequestRefusal("INVALID_ARGUMENT", message);

function optionalString(body: Body, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw badRequest(`"${field}" must be a string.`);
  return value;
}

function requiredString(body: Body, field: string): string {
  const value = optionalString(body, field);
  if (value === undefined || value.trim() === "") throw badRequest(`"${field}" is required.`);
  return value;
}

function oneOf<T extends string>(body: Body, field: string, allowed: readonly T[]): T | undefined {
  const value = optionalString(body, field);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw badRequest(`"${field}" must be one of ${allowed.map((a) => `"${a}"`).join(", ")}.`);
  return value as T;
}

/** A message body: required, and within the message limit (413, as documented, before anything is stored or scanned). */
function messageBody(body: Body): string {
  const text = requiredString(body, "body");
  const length = text.trim().length;
  if (length > LIMITS.messageChars) throw new RequestRefusal("TOO_LARGE", `A message is ${length} characters; the limit is ${LIMITS.messageChars}.`);
  return text;
}

/** The path's segments, percent-decoded; a malformed encoding is the caller's error (400), not a crash. */
function pathSegments(pathname: string): string[] {
  try {
    return pathname.split("/").filter((p) => p !== "").map(decodeURIComponent);
  } catch {
    throw badRequest("The path is not valid percent-encoding.");
  }
}

/**
 * `artifacts`: what the message attaches, as the brain's post_message takes
 * them: `{"task_id": …}` (a task of the department) or `{"file_id": …}` (a
 * file already posted where this agent reads). An artifact as a Message
 * answers it (with its `kind`, and a file's name, type and size) is taken
 * back as it is. Whether each may be attached is the post's own check.
 */
function artifactRefs(body: Body): Array<{ taskId: string } | { fileId: string }> | undefined {
  const value = body.artifacts;
  if (value === undefined || value === null) return undefined;
  const shape = `"artifacts" must be a list of at most ${CHANNEL_LIMITS.artifactsPerMessage} objects, each {"task_id": "…"} or {"file_id": "…"}.`;
  if (!Array.isArray(value) || value.length > CHANNEL_LIMITS.artifactsPerMessage) throw badRequest(shape);
  return value.map((item: unknown) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) throw badRequest(shape);
    const { kind, task_id: taskId, file_id: fileId } = item as Record<string, unknown>;
    if (typeof taskId === "string" && fileId === undefined && (kind === undefined || kind === "task")) return { taskId };
    if (typeof fileId === "string" && taskId === undefined && (kind === undefined || kind === "file")) return { fileId };
    throw badRequest(shape);
  });
}

/** The post fields every message takes. */
function postFields(body: Body) {
  const blocking = body.blocking;
  if (blocking !== undefined && typeof blocking !== "boolean") throw badRequest('"blocking" must be true or false.');
  return {
    body: messageBody(body),
    importance: oneOf(body, "importance", IMPORTANCES),
    blocking,
    correlationId: optionalString(body, "correlation_id"),
    clientMessageId: optionalString(body, "client_message_id"),
    // Named as in @mentions (or by key), besides those @named in the body; a name nobody answers to is a 400.
    mentions: names(body, "mentions"),
    artifacts: artifactRefs(body),
  };
}

function names(body: Body, field: string, what = "names"): string[] | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > 20 || !value.every((t) => typeof t === "string")) throw badRequest(`"${field}" must be a list of at most 20 ${what}.`);
  return value as string[];
}

function whole(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw badRequest(`"${name}" must be a number of 0 or more.`);
  return value;
}

interface Call {
  keyHash: string;
  /** Where this request came (scheme, host, port): agents' `endpoint_url` is on it. */
  origin: string;
  /** The key's department: every answer's `project_id`. */
  projectId: string;
  body: Body;
  path: string[];
  params: URLSearchParams;
}

/**
 * One endpoint: the key and its scope for this path are checked first (401,
 * then 403, before anything else), the body and path are parsed, then `run`
 * does the work as the key's agent.
 */
function endpoint(
  route: ({ path: string } | { pathPrefix: string }) & { method: "GET" | "POST"; scope: ApiScope | ((path: string[]) => ApiScope) },
  run: (ctx: ActionCtx, call: Call) => Promise<unknown>,
): HttpRoute {
  const { scope, ...where } = route;
  const handler = async (ctx: ActionCtx, request: Request) => {
    const keyHash = agentKeyHash(request);
    const url = new URL(request.url);
    let path: string[];
    try {
      path = pathSegments(url.pathname);
    } catch (error) {
      // Say whether the key itself is good before blaming the path: a bad key's refusal wins.
      await ctx.runQuery(internal.agentApiKeys.checkKey, { keyHash });
      throw error;
    }
    const { projectId } = await ctx.runQuery(internal.agentApiKeys.authorize, { keyHash, scope: typeof scope === "function" ? scope(path) : scope });
    const body = route.method === "POST" ? await jsonObjectBody(request) : {};
    if (body === null) throw new RequestRefusal("INVALID_ARGUMENT", "Send a JSON object.");
    return json(200, await run(ctx, { keyHash, origin: url.origin, projectId, body, path, params: url.searchParams }));
  };
  return { ...where, challenge: BEARER_CHALLENGE, handler };
}

const ENDPOINTS =
  "POST /projects, GET /projects/{id}, GET /projects/{id}/channels, GET /projects/{id}/agents, POST /channels, GET /channels/{id}, POST /channels/{id}/members, POST /channels/{id}/topic, GET /channels/{id}/messages, POST /messages, POST /messages/{id}/read, POST /threads, GET /threads/{id}, GET /threads/{id}/messages, POST /dms, GET /dms/{id}/messages, GET /agents/{id}, GET /agents/{id}/inbox, POST /tasks, POST /runs/{id}/tool-output, GET /tool-calls/waiting";

/** `/<prefix>/{id}` or `/<prefix>/{id}/<suffix>`: the id, or a 404 for any other shape. */
function idWith(path: string[], suffix: string | null): string {
  const ok = suffix === null ? path.length === 2 : path.length === 3 && path[2] === suffix;
  if (!ok || path[1].trim() === "") throw new RequestRefusal("NOT_FOUND", `No such endpoint. This API serves ${ENDPOINTS}.`);
  return path[1];
}

/** The scope of a prefix route: `whole` for `/<prefix>/{id}`, `bySuffix[suffix]` for `/<prefix>/{id}/<suffix>` (unknown shapes are 404s after the key is checked). */
function scopeByShape(whole: ApiScope, bySuffix: Partial<Record<string, ApiScope>> = {}): (path: string[]) => ApiScope {
  return (path) => (path.length === 3 ? (bySuffix[path[2]] ?? whole) : whole);
}

const messages = (rows: readonly StoredMessage[], projectId: string) => rows.map((m) => messageJson(m, projectId));

/**
 * `GET /channels/{id}/messages` and `GET /dms/{id}/messages`: top-level
 * messages, oldest first, a page at a time. `cursor` (a page's
 * `next_cursor`) reads on after that page's last message; else `since`
 * (whole ms) reads from the first message created after it; else the newest
 * `limit`. `next_cursor` always reads on from this page (poll with it),
 * `more` says whether messages are already waiting there.
 */
async function history(ctx: ActionCtx, { keyHash, projectId, params }: Call, channel: string) {
  const rawCursor = params.get("cursor");
  const since = whole(params, "since");
  let start: CursorStart | null = null;
  if (rawCursor !== null && rawCursor !== "") {
    start = cursorStart(rawCursor);
    if (start === null) throw badRequest('"cursor" is not one this API handed out: pass the previous page\'s next_cursor, or none.');
  } else if (since !== undefined) {
    start = { atOrAfter: Math.floor(since) + 1 };
  }
  const page = await ctx.runQuery(internal.tools.messaging.channelPageTool, { keyHash, channel, limit: whole(params, "limit"), ...(start ?? {}) });
  const last = page.messages.at(-1);
  const next: CursorStart = last !== undefined ? { after: last._creationTime } : (start ?? { atOrAfter: 0 });
  return { messages: messages(page.messages, projectId), next_cursor: messageCursor(next), more: page.more };
}

/** One message the key's agent may read, by id. */
async function readable(ctx: ActionCtx, keyHash: string, messageId: string): Promise<StoredMessage> {
  return await ctx.runQuery(internal.tools.messaging.fetchMessageTool, { keyHash, messageId });
}

export const MESSAGING_ROUTES: HttpRoute[] = [
  endpoint({ path: "/projects", method: "POST", scope: "projects:write" }, async (ctx, { keyHash, body }) => {
    return await ctx.runMutation(internal.departments.createProjectForKey, { keyHash, name: requiredString(body, "name"), description: optionalString(body, "description") });
  }),
  endpoint({ pathPrefix: "/projects/", method: "GET", scope: scopeByShape("projects:read", { channels: "channels:read", agents: "projects:read" }) }, async (ctx, call) => {
    const { keyHash, origin, projectId, path } = call;
    if (path.length === 2) return await ctx.runQuery(internal.departments.projectForKey, { keyHash, project: idWith(path, null), scope: "projects:read" });
    if (path[2] === "agents") {
      await ctx.runQuery(internal.departments.projectForKey, { keyHash, project: idWith(path, "agents"), scope: "projects:read" });
      return { agents: await ctx.runQuery(internal.agents.agentsForKey, { keyHash, origin }) };
    }
    const project = idWith(path, "channels");
    // Any project but the key's is refused the same way as GET /projects/{id} refuses it.
    await ctx.runQuery(internal.departments.projectForKey, { keyHash, project, scope: "channels:read" });
    const channels = await ctx.runQuery(internal.tools.messaging.channelListTool, { keyHash });
    return { channels: channels.map((c) => channelJson({ ...c, members: undefined }, projectId)) };
  }),
  endpoint({ path: "/channels", method: "POST", scope: "channels:manage" }, async (ctx, { keyHash, projectId, body }) => {
    const made = await ctx.runMutation(internal.tools.messaging.createChannelTool, {
      keyHash,
      name: requiredString(body, "name"),
      topic: optionalString(body, "topic"),
      visibility: oneOf(body, "visibility", CHANNEL_VISIBILITIES),
    });
    return conversationJson(await ctx.runQuery(internal.tools.messaging.channelInfoTool, { keyHash, channel: made.channelId }), projectId);
  }),
  endpoint({ pathPrefix: "/channels/", method: "GET", scope: scopeByShape("channels:read", { messages: "messages:read" }) }, async (ctx, call) => {
    const { keyHash, projectId, path } = call;
    if (path.length === 2) return conversationJson(await ctx.runQuery(internal.tools.messaging.channelInfoTool, { keyHash, channel: idWith(path, null) }), projectId);
    return await history(ctx, call, idWith(path, "messages"));
  }),
  endpoint({ pathPrefix: "/channels/", method: "POST", scope: "channels:manage" }, async (ctx, { keyHash, projectId, path, body }) => {
    const channel = path.length === 3 && path[2] === "topic" ? idWith(path, "topic") : idWith(path, "members");
    const change =
      path[2] === "topic"
        ? { topic: optionalString(body, "topic") ?? "" }
        : { add: names(body, "add"), remove: names(body, "remove") };
    await ctx.runMutation(internal.tools.messaging.manageChannelTool, { keyHash, channel, ...change });
    return conversationJson(await ctx.runQuery(internal.tools.messaging.channelInfoTool, { keyHash, channel }), projectId);
  }),
  endpoint({ path: "/messages", method: "POST", scope: "messages:write" }, async (ctx, { keyHash, projectId, body }) => {
    const channel = optionalString(body, "channel");
    const replyTo = optionalString(body, "reply_to");
    if ((channel === undefined) === (replyTo === undefined)) throw badRequest('Name either "channel" (id or #name) or "reply_to" (a message id).');
    const fields = postFields(body);
    const id =
      channel !== undefined
        ? await ctx.runMutation(internal.tools.messaging.postChannelTool, { keyHash, channel, ...fields })
        : await ctx.runMutation(internal.tools.messaging.replyThreadTool, { keyHash, messageId: replyTo!, ...fields });
    return messageJson(await readable(ctx, keyHash, id), projectId);
  }),
  endpoint({ pathPrefix: "/messages/", method: "POST", scope: "messages:read" }, async (ctx, { keyHash, path }) => {
    const marked = await ctx.runMutation(internal.tools.messaging.markReadTool, { keyHash, messageIds: [idWith(path, "read")] });
    return { marked };
  }),
  endpoint({ path: "/threads", method: "POST", scope: "messages:write" }, async (ctx, { keyHash, body }) => {
    const rootId = optionalString(body, "root_message_id");
    const channel = optionalString(body, "channel");
    if ((rootId === undefined) === (channel === undefined)) throw badRequest('Name either "root_message_id" (a channel message) or "channel" and "body" (a new first message).');
    const id = rootId ?? (await ctx.runMutation(internal.tools.messaging.postChannelTool, { keyHash, channel: channel!, ...postFields(body) }));
    const root = await readable(ctx, keyHash, id);
    if (root.threadRootId !== undefined) throw new RequestRefusal("INVALID_ARGUMENT", `Message ${id} is a reply: its thread is ${root.threadRootId}.`);
    if (root.type === "dm") throw new RequestRefusal("INVALID_ARGUMENT", "DM messages have no threads.");
    return threadJson(root);
  }),
  endpoint({ pathPrefix: "/threads/", method: "GET", scope: "messages:read" }, async (ctx, { keyHash, projectId, path }) => {
    if (path.length === 2) {
      const root = await readable(ctx, keyHash, idWith(path, null));
      if (root.threadRootId !== undefined || root.type === "dm") throw new RequestRefusal("NOT_FOUND", `Message ${root._id} does not start a thread.`);
      return threadJson(root);
    }
    const thread = await ctx.runQuery(internal.tools.messaging.threadTool, { keyHash, messageId: idWith(path, "messages") });
    return { thread: threadJson(thread.root), messages: messages([thread.root, ...thread.replies], projectId), more: thread.more };
  }),
  endpoint({ path: "/dms", method: "POST", scope: "messages:write" }, async (ctx, { keyHash, projectId, body }) => {
    const to = body.to;
    if (!Array.isArray(to) || to.length === 0 || to.length > 20 || !to.every((t) => typeof t === "string")) {
      throw badRequest('"to" must be a list of 1 to 20 names.');
    }
    const sent = await ctx.runMutation(internal.tools.messaging.dmSendTool, { keyHash, to: to as string[], ...postFields(body) });
    const dm = conversationJson(await ctx.runQuery(internal.tools.messaging.channelInfoTool, { keyHash, channel: sent.channelId }), projectId);
    return { ...dm, message: messageJson(await readable(ctx, keyHash, sent.messageId), projectId) };
  }),
  endpoint({ pathPrefix: "/dms/", method: "GET", scope: "messages:read" }, async (ctx, call) => {
    const channel = idWith(call.path, "messages");
    const info = await ctx.runQuery(internal.tools.messaging.channelInfoTool, { keyHash: call.keyHash, channel });
    if (info.kind !== "dm") throw badRequest(`${channel} is a channel, not a DM: read it at /channels/${channel}/messages.`);
    return await history(ctx, call, channel);
  }),
  endpoint({ pathPrefix: "/agents/", method: "GET", scope: scopeByShape("projects:read", { inbox: "messages:read" }) }, async (ctx, { keyHash, origin, projectId, path, params }) => {
    if (path.length === 2) return (await ctx.runQuery(internal.agents.agentsForKey, { keyHash, origin, agent: idWith(path, null) }))[0];
    const rows = await ctx.runQuery(internal.tools.messaging.inboxMessagesTool, { keyHash, limit: whole(params, "limit"), agent: idWith(path, "inbox") });
    return { messages: rows.map(({ message, where, direct }) => ({ ...messageJson(message, projectId), where, direct })) };
  }),
  endpoint({ path: "/tasks", method: "POST", scope: "tasks:write" }, async (ctx, { keyHash, body }) => {
    return await ctx.runMutation(internal.tasks.createForKey, {
      keyHash,
      title: requiredString(body, "title"),
      description: optionalString(body, "description"),
      priority: oneOf(body, "priority", PRIORITIES),
      tags: names(body, "tags", "tags"),
      assignees: names(body, "assignees"),
    });
  }),
  endpoint({ pathPrefix: "/runs/", method: "POST", scope: "tools:run" }, async (ctx, { keyHash, path, body }) => {
    const runId = idWith(path, "tool-output");
    const submission = { tool: requiredString(body, "tool"), toolCallId: requiredString(body, "tool_call_id"), output: optionalString(body, "output"), error: optionalString(body, "error") };
    await ctx.runMutation(internal.runs.toolOutputForKey, { keyHash, runId, ...submission });
    return { run_id: runId, tool_call_id: submission.toolCallId, submitted: true };
  }),
  endpoint({ path: "/tool-calls/waiting", method: "GET", scope: "tools:run" }, async (ctx, { keyHash, params }) => {
    const numItems = whole(params, "limit") ?? DEFAULT_WAITING_CALLS;
    if (!Number.isInteger(numItems) || numItems < 1 || numItems > MAX_WAITING_CALLS_PAGE) throw badRequest(`"limit" must be a whole number from 1 to ${MAX_WAITING_CALLS_PAGE}.`);
    const cursor = params.get("cursor") || null;
    let page;
    try {
      page = await ctx.runQuery(internal.runs.waitingToolCallsForKey, { keyHash, paginationOpts: { numItems, cursor } });
    } catch (error) {
      // A cursor Convex cannot read fails inside the query, not as a MaestroError: it is the caller's mistake.
      if (cursor !== null && !(error instanceof ConvexError)) throw badRequest('"cursor" is not one this API handed out: pass the previous page\'s next_cursor, or none.');
      throw error;
    }
    return {
      tool_calls: page.page.map((call) => ({
        run_id: call.runId,
        task_id: call.taskId,
        tool: call.tool,
        tool_call_id: call.toolCallId,
        arguments: jsonOrText(call.arguments ?? "{}"),
        since: ms(call.since),
        expires_at: ms(call.expiresAt),
      })),
      next_cursor: page.isDone ? null : page.continueCursor,
    };
  }),
];
