import { httpRouter } from "convex/server";
import { ConvexError } from "convex/values";
import { api, internal } from "./_generated/api";
import { env, httpAction, type ActionCtx } from "./_generated/server";
import { auth } from "./auth";
import { sameSecret } from "./lib/accounts";
import { webuiPasswordFromEnv } from "./lib/config";
import { agentKeyHash, apiError, json, jsonObjectBody } from "./lib/httpJson";
import { addMessagingRoutes } from "./messagingApi";
import { checkSignInLimits, recordSignInFailure } from "./rateLimits";

/**
 * The chat's HTTP endpoints for scripts and tools outside the app:
 *   GET  /api/chat[?department=<slug>]  every message of the current session
 *   POST /api/chat  {"text": "...", "department"?: "<slug>"}  posts as @human
 * Both require a signed-in session (Authorization: Bearer <token>), which
 * reaches the caller's own departments, or the WebUI password (HTTP Basic,
 * any user name), which reaches the departments `webui.departments` lists
 * (all when it lists none) and nothing when no password is configured.
 * They answer 404 when chat is disabled for the department.
 */
const http = httpRouter();

// Convex Auth's OpenID configuration and JWKS: how the deployment verifies the tokens it signs.
auth.addHttpRoutes(http);

/**
 * Checked on every request: a signed-in session, or the WebUI password over
 * HTTP Basic; null for neither. With no password configured, Basic opens nothing.
 */
async function authorized(ctx: ActionCtx, request: Request): Promise<"session" | "password" | null> {
  if ((await ctx.auth.getUserIdentity()) !== null) return "session";
  const password = webuiPasswordFromEnv();
  if (password === null) return null;
  const header = request.headers.get("Authorization") ?? "";
  if (!header.startsWith("Basic ")) return null;
  let decoded: string;
  try {
    decoded = atob(header.slice("Basic ".length));
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  return colon !== -1 && sameSecret(decoded.slice(colon + 1), password) ? "password" : null;
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
    const via = await authorized(ctx, request);
    if (via === null) return UNAUTHORIZED();
    const slug = new URL(request.url).searchParams.get("department") ?? undefined;
    const result = await ctx.runQuery(internal.chat.sessionForApi, { slug, via });
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
    const via = await authorized(ctx, request);
    if (via === null) return UNAUTHORIZED();
    const body = await jsonObjectBody(request);
    if (body === null) return json(400, { error: 'Send a JSON object: {"text": "..."}' });
    if (typeof body.text !== "string") return json(400, { error: '"text" must be a string.' });
    const slug = typeof body.department === "string" ? body.department : undefined;
    const result = await ctx.runMutation(internal.chat.postFromApi, { slug, via, text: body.text });
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

http.route({
  path: "/mcp/chat.status",
  method: "GET",
  handler: httpAction(async (ctx, request) => {
    const key = agentKeyHash(request);
    const { enabled } = await ctx.runQuery(internal.mcp.chatStatus, "hash" in key ? { keyHash: key.hash } : {});
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

// ---- messaging for agents outside Maestro: /channels, /messages, /threads, /dms, /agents (convex/messagingApi.ts) ----
addMessagingRoutes(http);

// ---- sign-in for the app: POST /auth/password ----
//
// The app signs in and signs up here rather than through `auth:signIn`
// directly, so guesses are limited per account and per client address
// (X-Forwarded-For, which the offline backend sets from the socket) with a
// clear 429 and Retry-After. Body: {flow: "signIn"|"signUp", email, password,
// name?, inviteToken?, setupPassword?}; answers {token, refreshToken}.

/** Origins the app is served from: SITE_URL and MAESTRO_CORS_ORIGINS (comma separated). */
function allowedOrigin(request: Request): string | null {
  const origin = request.headers.get("Origin");
  if (origin === null) return null;
  const allowed = [env.SITE_URL, ...(env.MAESTRO_CORS_ORIGINS ?? "").split(",")]
    .map((o) => (o ?? "").trim().replace(/\/$/, ""))
    .filter((o) => o !== "");
  return allowed.includes(origin) ? origin : null;
}

function withCors(request: Request, response: Response): Response {
  const origin = allowedOrigin(request);
  if (origin !== null) {
    response.headers.set("Access-Control-Allow-Origin", origin);
    response.headers.set("Vary", "Origin");
  }
  return response;
}

const SIGN_IN_FLOWS = new Set(["signIn", "signUp"]);
const MAX_FIELD_CHARS = 500;

http.route({
  path: "/auth/password",
  method: "OPTIONS",
  handler: httpAction(async (_ctx, request) => {
    const origin = allowedOrigin(request);
    if (origin === null) return new Response(null, { status: 403 });
    return new Response(null, {
      status: 204,
      headers: {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": "POST",
        "Access-Control-Allow-Headers": "Content-Type",
        "Access-Control-Max-Age": "600",
        Vary: "Origin",
      },
    });
  }),
});

http.route({
  path: "/auth/password",
  method: "POST",
  handler: httpAction(async (ctx, request) => withCors(request, await passwordSignIn(ctx, request))),
});

async function passwordSignIn(ctx: ActionCtx, request: Request): Promise<Response> {
  const body = await jsonObjectBody(request);
  if (body === null) return json(400, { error: "Send a JSON object: {flow, email, password}." });
  const fields: Record<string, string> = {};
  for (const key of ["flow", "email", "password", "name", "inviteToken", "setupPassword"]) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value.length > MAX_FIELD_CHARS) return json(400, { error: `"${key}" must be a string of at most ${MAX_FIELD_CHARS} characters.` });
    fields[key] = value;
  }
  if (!SIGN_IN_FLOWS.has(fields.flow ?? "")) return json(400, { error: '"flow" must be "signIn" or "signUp".' });
  if (!fields.email || !fields.password) return json(400, { error: "Enter your email and password." });
  const account = fields.email.trim().toLowerCase();
  const address = (request.headers.get("X-Forwarded-For") ?? "").split(",")[0].trim() || "unknown";
  const limited = await checkSignInLimits(ctx, { account, address });
  if (limited !== null) {
    const seconds = Math.max(1, Math.ceil(limited.retryAfterMs / 1000));
    return new Response(JSON.stringify({ error: `Too many sign-in attempts. Try again in ${seconds} s.`, retryAfterSeconds: seconds }), {
      status: 429,
      headers: { "Content-Type": "application/json", "Retry-After": String(seconds) },
    });
  }
  try {
    const result = await ctx.runAction(api.auth.signIn, { provider: "password", params: fields });
    if (result.tokens == null) {
      await recordSignInFailure(ctx, account);
      return json(401, { error: "Wrong email or password." });
    }
    return json(200, { token: result.tokens.token, refreshToken: result.tokens.refreshToken });
  } catch (error) {
    await recordSignInFailure(ctx, account);
    if (error instanceof ConvexError && typeof error.data === "string") {
      return json(fields.flow === "signUp" ? 403 : 400, { error: error.data });
    }
    const message = error instanceof Error ? error.message : "";
    if (/TooManyFailedAttempts/.test(message)) {
      return new Response(JSON.stringify({ error: "Too many failed attempts for this account. Try again later.", retryAfterSeconds: 600 }), {
        status: 429,
        headers: { "Content-Type": "application/json", "Retry-After": "600" },
      });
    }
    if (fields.flow === "signUp" && /already exists/.test(message)) return json(409, { error: "An account with this email exists already; sign in instead." });
    return json(401, { error: "Wrong email or password." });
  }
}

export default http;
