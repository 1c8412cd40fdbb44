import { httpRouter } from "convex/server";
import { internal } from "./_generated/api";
import { httpAction, type ActionCtx } from "./_generated/server";
import { hashApiKey, isApiKeyShape } from "./agentApiKeys";
import { webuiPasswordFromEnv } from "./lib/config";

/**
 * The chat's HTTP endpoints for scripts and tools outside the app:
 *   GET  /api/chat[?department=<slug>]  every message of the current session
 *   POST /api/chat  {"text": "...", "department"?: "<slug>"}  posts as @human
 * Both require the WebUI password (HTTP Basic, any user name) or a signed-in
 * session (Authorization: Bearer <token>), and answer 404 when chat is disabled.
 */
const http = httpRouter();

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/** Compares without returning early, so timing says nothing about the password. */
function sameText(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) difference |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return difference === 0;
}

/** Checked on every request: the WebUI password over HTTP Basic, or a signed-in session. */
async function authorized(ctx: ActionCtx, request: Request): Promise<boolean> {
  if ((await ctx.auth.getUserIdentity()) !== null) return true;
  const password = webuiPasswordFromEnv();
  // No password configured: the WebUI is open, and the backend warned about it at start.
  if (password === null) return true;
  const header = request.headers.get("Authorization") ?? "";
  if (!header.startsWith("Basic ")) return false;
  let decoded: string;
  try {
    decoded = atob(header.slice("Basic ".length));
  } catch {
    return false;
  }
  const colon = decoded.indexOf(":");
  return colon !== -1 && sameText(decoded.slice(colon + 1), password);
}

const UNAUTHORIZED = () =>
  new Response(JSON.stringify({ error: "Authentication required: the WebUI password (HTTP Basic) or a signed-in session." }), {
    status: 401,
    headers: { "Content-Type": "application/json", "WWW-Authenticate": 'Basic realm="Maestro"' },
  });

http.route({
  path: "/api/chat",
  method: "GET",
  handler: httpAction(async (ctx, request) => {
    if (!(await authorized(ctx, request))) return UNAUTHORIZED();
    const slug = new URL(request.url).searchParams.get("department") ?? undefined;
    const result = await ctx.runQuery(internal.chat.sessionForApi, { slug });
    if (result.kind === "error") return json(result.status, { error: result.message });
    const messages = [];
    let afterId = 0;
    for (;;) {
      const page = await ctx.runQuery(internal.chat.sessionPage, { sessionId: result.sessionId, afterId });
      messages.push(...page);
      if (page.length === 0) break;
      afterId = page[page.length - 1].id;
    }
    return json(200, { sessionId: result.sessionId, messages });
  }),
});

http.route({
  path: "/api/chat",
  method: "POST",
  handler: httpAction(async (ctx, request) => {
    if (!(await authorized(ctx, request))) return UNAUTHORIZED();
    let body: { text?: unknown; department?: unknown };
    try {
      body = (await request.json()) as typeof body;
    } catch {
      return json(400, { error: 'Send JSON: {"text": "..."}' });
    }
    if (typeof body.text !== "string") return json(400, { error: '"text" must be a string.' });
    const slug = typeof body.department === "string" ? body.department : undefined;
    const result = await ctx.runMutation(internal.chat.postFromApi, { slug, text: body.text });
    if (result.kind === "error") return json(result.status, { error: result.message });
    return json(200, { id: result.id, success: true });
  }),
});

// ---- for agents outside Maestro (the stdio MCP server in tools/mcp/) ----
//
//   GET  /mcp/chat.status                    {"enabled": boolean}; no key needed
//   POST /mcp/chat.post    {"text": "..."}   {"id": number, "success": true}
//   POST /mcp/chat.getNew  {}                {"messages": [{id, ts, author, text}], "newPointer": number}
//
// The two chat calls take `Authorization: Bearer <agent API key>` (created by
// an admin in the agent modal) and act as that agent: posts are authored
// `@<agent>`, and getNew moves the agent's cursor to newPointer. 401 for a
// missing, unknown or revoked key, 403 for an architect's, 404 with
// "Chat disabled by configuration" when chat is off, 400 for a bad body.
// Bodies are built field by field, so the same inputs give the same bytes.

const UNAUTHORIZED_AGENT = (message: string) =>
  new Response(JSON.stringify({ error: message }), {
    status: 401,
    headers: { "Content-Type": "application/json", "WWW-Authenticate": 'Bearer realm="Maestro agent API"' },
  });

/** The key's hash, or the 401 to answer: the key itself never leaves this action. */
function agentKeyHash(request: Request): { hash: string } | { refusal: Response } {
  const header = request.headers.get("Authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match === null) return { refusal: UNAUTHORIZED_AGENT("Missing API key: send Authorization: Bearer <agent API key>.") };
  if (!isApiKeyShape(match[1])) return { refusal: UNAUTHORIZED_AGENT("Unknown API key.") };
  return { hash: hashApiKey(match[1]) };
}

/** The request's JSON object body; an empty body counts as `{}`. Null when it is not a JSON object. */
async function jsonObjectBody(request: Request): Promise<Record<string, unknown> | null> {
  const raw = await request.text();
  if (raw.trim() === "") return {};
  try {
    const body: unknown = JSON.parse(raw);
    return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function apiError(result: { status: number; message: string }): Response {
  return result.status === 401 ? UNAUTHORIZED_AGENT(result.message) : json(result.status, { error: result.message });
}

http.route({
  path: "/mcp/chat.status",
  method: "GET",
  handler: httpAction(async (ctx) => {
    const { enabled } = await ctx.runQuery(internal.mcp.chatStatus, {});
    return json(200, { enabled });
  }),
});

http.route({
  path: "/mcp/chat.post",
  method: "POST",
  handler: httpAction(async (ctx, request) => {
    const key = agentKeyHash(request);
    if ("refusal" in key) return key.refusal;
    const body = await jsonObjectBody(request);
    const text = body !== null && typeof body.text === "string" ? body.text : null;
    const result = await ctx.runMutation(internal.mcp.post, { keyHash: key.hash, text });
    if (result.kind === "error") return apiError(result);
    return json(200, { id: result.id, success: true });
  }),
});

http.route({
  path: "/mcp/chat.getNew",
  method: "POST",
  handler: httpAction(async (ctx, request) => {
    const key = agentKeyHash(request);
    if ("refusal" in key) return key.refusal;
    if ((await jsonObjectBody(request)) === null) {
      // Nothing is read (so no cursor moves); a bad key still answers 401 before the body's 400.
      const refusal = await ctx.runQuery(internal.mcp.refusal, { keyHash: key.hash });
      return apiError(refusal ?? { status: 400, message: "chat.getNew takes no arguments: send {} or nothing." });
    }
    const result = await ctx.runMutation(internal.mcp.getNew, { keyHash: key.hash });
    if (result.kind === "error") return apiError(result);
    const messages = result.messages.map(({ id, ts, author, text }) => ({ id, ts, author, text }));
    return json(200, { messages, newPointer: result.newPointer });
  }),
});

export default http;
