/**
 * The #maestro chat over HTTP (convex/http.ts lists the routes):
 *
 *   GET  /api/chat[?department=<slug>]  every message of the current session
 *   POST /api/chat  {"text": "...", "department"?: "<slug>"}  posts as @human
 *
 * Both require a signed-in session (Authorization: Bearer <token>), which
 * reaches the caller's own departments, or the WebUI password (HTTP Basic,
 * any user name), which reaches the departments `webui.departments` lists
 * (all when it lists none) and nothing when no password is configured.
 * They answer 404 when chat is disabled for the department.
 *
 * For agents outside Maestro (the MCP tools chat_post and chat_getNew, convex/mcpTools.ts):
 *
 *   GET  /mcp/chat.status                    {"enabled": boolean}; no key needed
 *   POST /mcp/chat.post    {"text": "..."}   {"id": number, "success": true}
 *   POST /mcp/chat.getNew  {}                {"messages": [{id, ts, author, text}], "newPointer": number}
 *
 * The two chat calls take `Authorization: Bearer <agent API key>` (created by
 * an admin in the agent modal) and act as that agent (convex/mcp.ts): posts
 * are authored `@<agent>`, and getNew moves the agent's cursor to newPointer.
 * 401 for a missing, unknown or revoked key, 403 for an architect's, 404
 * with "Chat disabled by configuration" when chat is off, 400 for a bad
 * body. Bodies are built field by field, so the same inputs give the same bytes.
 */
import { internal } from "./_generated/api";
import type { ActionCtx } from "./_generated/server";
import { sameSecret } from "./lib/accounts";
import { appOriginsFromEnv, webuiPasswordFromEnv } from "./lib/config";
import { MaestroError } from "./lib/errors";
import { HARD_CAP_CHARS } from "./lib/secrets/userText";
import {
  agentKeyHash,
  BASIC_CHALLENGE,
  BEARER_CHALLENGE,
  clientAddress,
  json,
  jsonObjectBody,
  optionalAgentKeyHash,
  refuseForeignOrigin,
  requireJsonBody,
  RequestRefusal,
  type HttpRoute,
} from "./lib/httpJson";
import { checkPasswordAddress, recordPasswordFailure } from "./records/rateLimits";

/**
 * Checked on every request: a browser on another site is refused (its
 * Origin); then a signed-in session, or the WebUI password over HTTP Basic;
 * UNAUTHENTICATED for neither. Wrong passwords lock the Basic user name at
 * the address (as sign-in locks an account at an address) and draw on the
 * address's high failure ceiling, so guesses meet the same 429 and
 * Retry-After as at /auth/password while others behind the same address
 * (a NAT) go on. With no
 * password configured, Basic opens nothing.
 */
async function authorized(ctx: ActionCtx, request: Request): Promise<"session" | "password"> {
  refuseForeignOrigin(request, appOriginsFromEnv());
  if ((await ctx.auth.getUserIdentity()) !== null) return "session";
  const basic = basicCredentials(request);
  if (basic !== null) {
    const { user, password: given } = basic;
    const address = clientAddress(request);
    const limited = await checkPasswordAddress(ctx, address, user);
    if (limited !== null) {
      const seconds = Math.max(1, Math.ceil(limited.retryAfterMs / 1000));
      throw new MaestroError("RATE_LIMITED", `Too many password attempts. Try again in ${seconds} s.`, seconds);
    }
    const password = webuiPasswordFromEnv();
    if (password !== null && sameSecret(given, password)) return "password";
    await recordPasswordFailure(ctx, address, user);
  }
  throw new MaestroError("UNAUTHENTICATED", "Authentication required: the WebUI password (HTTP Basic) or a signed-in session.");
}

/** The user name (any; it keys the lockout) and password of an HTTP Basic `Authorization` header, or null. */
function basicCredentials(request: Request): { user: string; password: string } | null {
  const header = request.headers.get("Authorization") ?? "";
  if (!header.startsWith("Basic ")) return null;
  let decoded: string;
  try {
    decoded = atob(header.slice("Basic ".length));
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  return colon === -1 ? null : { user: decoded.slice(0, Math.min(colon, 200)), password: decoded.slice(colon + 1) };
}

async function readChat(ctx: ActionCtx, request: Request): Promise<Response> {
  const via = await authorized(ctx, request);
  const slug = new URL(request.url).searchParams.get("department") ?? undefined;
  const sessionId = await ctx.runQuery(internal.chat.sessionForApi, { slug, via });
  const messages = [];
  for (let afterId = 0; ; ) {
    const page = await ctx.runQuery(internal.chat.sessionPage, { sessionId, afterId });
    if (page.length === 0) break;
    messages.push(...page);
    afterId = page[page.length - 1].id;
  }
  return json(200, { sessionId, messages });
}

/**
 * What of a posted text can survive the cut: a post of any length is cut,
 * not refused (the chat spec), so only its head travels on to the mutation,
 * within Convex's argument limits however large the body was.
 */
function uncutPart(text: string): string {
  return text.length > HARD_CAP_CHARS ? text.slice(0, HARD_CAP_CHARS) : text;
}

async function postChat(ctx: ActionCtx, request: Request): Promise<Response> {
  const via = await authorized(ctx, request);
  // A cross-site form or text/plain fetch needs no preflight; a JSON one does.
  requireJsonBody(request);
  const body = await jsonObjectBody(request);
  if (body === null) throw new RequestRefusal("INVALID_ARGUMENT", 'Send a JSON object: {"text": "..."}');
  if (typeof body.text !== "string") throw new RequestRefusal("INVALID_ARGUMENT", '"text" must be a string.');
  const slug = typeof body.department === "string" ? body.department : undefined;
  const id = await ctx.runMutation(internal.chat.postFromApi, { slug, via, text: uncutPart(body.text) });
  return json(200, { id, success: true });
}

async function chatStatus(ctx: ActionCtx, request: Request): Promise<Response> {
  // A missing or malformed key is no error here: it asks for the deployment's default.
  const keyHash = optionalAgentKeyHash(request);
  const { enabled } = await ctx.runQuery(internal.mcp.chatStatus, keyHash === undefined ? {} : { keyHash });
  return json(200, { enabled });
}

async function agentPost(ctx: ActionCtx, request: Request): Promise<Response> {
  const keyHash = agentKeyHash(request);
  const body = await jsonObjectBody(request);
  const text = body !== null && typeof body.text === "string" ? uncutPart(body.text) : null;
  const id = await ctx.runMutation(internal.mcp.post, { keyHash, text });
  return json(200, { id, success: true });
}

async function agentGetNew(ctx: ActionCtx, request: Request): Promise<Response> {
  const keyHash = agentKeyHash(request);
  if ((await jsonObjectBody(request)) === null) {
    // Nothing is read (so no cursor moves); a bad key still answers 401 before the body's 400.
    await ctx.runQuery(internal.mcp.checkKey, { keyHash });
    throw new RequestRefusal("INVALID_ARGUMENT", "chat.getNew takes no arguments: send {} or nothing.");
  }
  const { messages, newPointer } = await ctx.runMutation(internal.mcp.getNew, { keyHash });
  return json(200, { messages: messages.map(({ id, ts, author, text }) => ({ id, ts, author, text })), newPointer });
}

export const CHAT_ROUTES: HttpRoute[] = [
  { path: "/api/chat", method: "GET", challenge: BASIC_CHALLENGE, handler: readChat },
  { path: "/api/chat", method: "POST", challenge: BASIC_CHALLENGE, handler: postChat },
  { path: "/mcp/chat.status", method: "GET", challenge: BEARER_CHALLENGE, handler: chatStatus },
  { path: "/mcp/chat.post", method: "POST", challenge: BEARER_CHALLENGE, handler: agentPost },
  { path: "/mcp/chat.getNew", method: "POST", challenge: BEARER_CHALLENGE, handler: agentGetNew },
];
