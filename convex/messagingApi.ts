/**
 * Messaging over HTTP for agents outside Maestro (messaging spec, "HTTP API";
 * convex/http.ts lists the routes),
 * authenticated by the agent's API key (`Authorization: Bearer mk_…`, created
 * by an admin in the agent modal). Every call acts as that agent, in its
 * department only, through the same operations as the brain's messaging
 * tools (convex/tools/messaging.ts), so the ACLs, the size limit, the secret
 * scanner and the post rate limit are the same:
 *
 *   POST /channels                    {name, topic?, visibility?: "project"|"private"}
 *   GET  /channels/{id}               a channel's card (id or name)
 *   GET  /channels/{id}/messages      ?limit=&since=  top-level messages, oldest first
 *   POST /messages                    {channel | reply_to, body, importance?, blocking?, correlation_id?}
 *   POST /messages/{id}/read          marks one message read for this agent
 *   GET  /threads/{id}/messages       a thread's first message and its replies
 *   POST /dms                         {to: [names], body, importance?, blocking?, correlation_id?}
 *   GET  /dms/{id}/messages           ?limit=&since=  a DM's messages
 *   GET  /agents/{id}/inbox           ?limit=  unread for this agent (its own id, name or `me` only)
 *
 * Errors (lib/errors HTTP_STATUS): 401 key, 403 not allowed, 404 unknown,
 * 400 bad body or malformed path, 413 a message over the limit, 409
 * conflict, 429 rate limited; always
 * `{"error": "..."}`.
 */
import { internal } from "./_generated/api";
import type { ActionCtx } from "./_generated/server";
import { agentKeyHash, BEARER_CHALLENGE, json, jsonObjectBody, RequestRefusal, type HttpRoute } from "./lib/httpJson";
import { LIMITS } from "./lib/limits";
import { IMPORTANCES, CHANNEL_VISIBILITIES } from "./validators";

type Body = Record<string, unknown>;

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

/** The post fields every message takes. */
function postFields(body: Body) {
  const blocking = body.blocking;
  if (blocking !== undefined && typeof blocking !== "boolean") throw badRequest('"blocking" must be true or false.');
  return {
    body: messageBody(body),
    importance: oneOf(body, "importance", IMPORTANCES),
    blocking,
    correlationId: optionalString(body, "correlation_id"),
  };
}

function whole(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw badRequest(`"${name}" must be a number of 0 or more.`);
  return value;
}

/**
 * One endpoint: the key is checked first (401 before anything else), the
 * body and path are parsed, then `run` does the work as the key's agent.
 */
function endpoint(
  route: ({ path: string } | { pathPrefix: string }) & { method: "GET" | "POST" },
  run: (ctx: ActionCtx, call: { keyHash: string; body: Body; path: string[]; params: URLSearchParams }) => Promise<unknown>,
): HttpRoute {
  const handler = async (ctx: ActionCtx, request: Request) => {
    const keyHash = agentKeyHash(request);
    const url = new URL(request.url);
    const body = route.method === "POST" ? await jsonObjectBody(request) : {};
    if (body === null) throw new RequestRefusal("INVALID_ARGUMENT", "Send a JSON object.");
    try {
      return json(200, await run(ctx, { keyHash, body, path: pathSegments(url.pathname), params: url.searchParams }));
    } catch (error) {
      // Say whether the key itself is good before blaming the request: a bad key's refusal wins.
      if (error instanceof RequestRefusal) await ctx.runQuery(internal.agentApiKeys.checkKey, { keyHash });
      throw error;
    }
  };
  return { ...route, challenge: BEARER_CHALLENGE, handler };
}

const ENDPOINTS = "POST /channels, GET /channels/{id}, GET /channels/{id}/messages, POST /messages, POST /messages/{id}/read, GET /threads/{id}/messages, POST /dms, GET /dms/{id}/messages, GET /agents/{id}/inbox";

/** `/<prefix>/{id}` or `/<prefix>/{id}/<suffix>`: the id, or a 404 for any other shape. */
function idWith(path: string[], suffix: string | null): string {
  const ok = suffix === null ? path.length === 2 : path.length === 3 && path[2] === suffix;
  if (!ok || path[1].trim() === "") throw new RequestRefusal("NOT_FOUND", `No such endpoint. This API serves ${ENDPOINTS}.`);
  return path[1];
}

/** `GET /channels/{id}/messages` and `GET /dms/{id}/messages`: top-level messages, oldest first. */
async function history(ctx: ActionCtx, keyHash: string, channel: string, params: URLSearchParams) {
  const messages = await ctx.runQuery(internal.tools.messaging.channelHistoryTool, { keyHash, channel, limit: whole(params, "limit"), since: whole(params, "since") });
  return { messages };
}

export const MESSAGING_ROUTES: HttpRoute[] = [
  endpoint({ path: "/channels", method: "POST" }, async (ctx, { keyHash, body }) => {
    const made = await ctx.runMutation(internal.tools.messaging.createChannelTool, {
      keyHash,
      name: requiredString(body, "name"),
      topic: optionalString(body, "topic"),
      visibility: oneOf(body, "visibility", CHANNEL_VISIBILITIES),
    });
    return { id: made.channelId, name: made.name };
  }),
  endpoint({ pathPrefix: "/channels/", method: "GET" }, async (ctx, { keyHash, path, params }) => {
    if (path.length === 2) return await ctx.runQuery(internal.tools.messaging.channelInfoTool, { keyHash, channel: idWith(path, null) });
    return await history(ctx, keyHash, idWith(path, "messages"), params);
  }),
  endpoint({ path: "/messages", method: "POST" }, async (ctx, { keyHash, body }) => {
    const channel = optionalString(body, "channel");
    const replyTo = optionalString(body, "reply_to");
    if ((channel === undefined) === (replyTo === undefined)) throw badRequest('Name either "channel" (id or #name) or "reply_to" (a message id).');
    const fields = postFields(body);
    const id =
      channel !== undefined
        ? await ctx.runMutation(internal.tools.messaging.postChannelTool, { keyHash, channel, ...fields })
        : await ctx.runMutation(internal.tools.messaging.replyThreadTool, { keyHash, messageId: replyTo!, ...fields });
    return { id };
  }),
  endpoint({ pathPrefix: "/messages/", method: "POST" }, async (ctx, { keyHash, path }) => {
    const marked = await ctx.runMutation(internal.tools.messaging.markReadTool, { keyHash, messageIds: [idWith(path, "read")] });
    return { marked };
  }),
  endpoint({ pathPrefix: "/threads/", method: "GET" }, async (ctx, { keyHash, path }) => await ctx.runQuery(internal.tools.messaging.threadTool, { keyHash, messageId: idWith(path, "messages") })),
  endpoint({ path: "/dms", method: "POST" }, async (ctx, { keyHash, body }) => {
    const to = body.to;
    if (!Array.isArray(to) || to.length === 0 || to.length > 20 || !to.every((t) => typeof t === "string")) {
      throw badRequest('"to" must be a list of 1 to 20 names.');
    }
    const sent = await ctx.runMutation(internal.tools.messaging.dmSendTool, { keyHash, to: to as string[], ...postFields(body) });
    return { id: sent.channelId, messageId: sent.messageId };
  }),
  endpoint({ pathPrefix: "/dms/", method: "GET" }, async (ctx, { keyHash, path, params }) => {
    const channel = idWith(path, "messages");
    const info = await ctx.runQuery(internal.tools.messaging.channelInfoTool, { keyHash, channel });
    if (info.kind !== "dm") throw badRequest(`${channel} is a channel, not a DM: read it at /channels/${channel}/messages.`);
    return await history(ctx, keyHash, channel, params);
  }),
  endpoint({ pathPrefix: "/agents/", method: "GET" }, async (ctx, { keyHash, path, params }) => {
    const messages = await ctx.runQuery(internal.tools.messaging.inboxReadTool, { keyHash, limit: whole(params, "limit"), agent: idWith(path, "inbox") });
    return { messages };
  }),
];
