import { httpRouter } from "convex/server";
import { api, internal } from "./_generated/api";
import { env, httpAction, type ActionCtx } from "./_generated/server";
import { auth } from "./auth";
import { sameSecret } from "./lib/accounts";
import { webuiPasswordFromEnv } from "./lib/config";
import { errorData, MaestroError } from "./lib/errors";
import { agentKeyHash, answering, BASIC_CHALLENGE, BEARER_CHALLENGE, json, jsonObjectBody, optionalAgentKeyHash, RequestRefusal } from "./lib/httpJson";
import { addMessagingRoutes } from "./messagingApi";
import { checkSignInLimits, recordSignInFailure } from "./records/rateLimits";

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

/** `authorized`, or UNAUTHENTICATED (a 401 with the Basic challenge). */
async function authorizedX(ctx: ActionCtx, request: Request): Promise<"session" | "password"> {
  const via = await authorized(ctx, request);
  if (via === null) throw new MaestroError("UNAUTHENTICATED", "Authentication required: the WebUI password (HTTP Basic) or a signed-in session.");
  return via;
}

http.route({
  path: "/api/chat",
  method: "GET",
  handler: httpAction(
    answering(BASIC_CHALLENGE, async (ctx, request) => {
      const via = await authorizedX(ctx, request);
      const slug = new URL(request.url).searchParams.get("department") ?? undefined;
      const sessionId = await ctx.runQuery(internal.chat.sessionForApi, { slug, via });
      const messages = [];
      let afterId = 0;
      for (;;) {
        const page = await ctx.runQuery(internal.chat.sessionPage, { sessionId, afterId });
        messages.push(...page);
        if (page.length === 0) break;
        afterId = page[page.length - 1].id;
      }
      return json(200, { sessionId, messages });
    }),
  ),
});

http.route({
  path: "/api/chat",
  method: "POST",
  handler: httpAction(
    answering(BASIC_CHALLENGE, async (ctx, request) => {
      const via = await authorizedX(ctx, request);
      const body = await jsonObjectBody(request);
      if (body === null) throw new RequestRefusal("INVALID_ARGUMENT", 'Send a JSON object: {"text": "..."}');
      if (typeof body.text !== "string") throw new RequestRefusal("INVALID_ARGUMENT", '"text" must be a string.');
      const slug = typeof body.department === "string" ? body.department : undefined;
      const id = await ctx.runMutation(internal.chat.postFromApi, { slug, via, text: body.text });
      return json(200, { id, success: true });
    }),
  ),
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
  handler: httpAction(
    answering(BEARER_CHALLENGE, async (ctx, request) => {
      // A missing or malformed key is no error here: it asks for the deployment's default.
      const keyHash = optionalAgentKeyHash(request);
      const { enabled } = await ctx.runQuery(internal.mcp.chatStatus, keyHash === undefined ? {} : { keyHash });
      return json(200, { enabled });
    }),
  ),
});

http.route({
  path: "/mcp/chat.post",
  method: "POST",
  handler: httpAction(
    answering(BEARER_CHALLENGE, async (ctx, request) => {
      const keyHash = agentKeyHash(request);
      const body = await jsonObjectBody(request);
      const text = body !== null && typeof body.text === "string" ? body.text : null;
      const id = await ctx.runMutation(internal.mcp.post, { keyHash, text });
      return json(200, { id, success: true });
    }),
  ),
});

http.route({
  path: "/mcp/chat.getNew",
  method: "POST",
  handler: httpAction(
    answering(BEARER_CHALLENGE, async (ctx, request) => {
      const keyHash = agentKeyHash(request);
      if ((await jsonObjectBody(request)) === null) {
        // Nothing is read (so no cursor moves); a bad key still answers 401 before the body's 400.
        await ctx.runQuery(internal.mcp.checkKey, { keyHash });
        throw new RequestRefusal("INVALID_ARGUMENT", "chat.getNew takes no arguments: send {} or nothing.");
      }
      const { messages, newPointer } = await ctx.runMutation(internal.mcp.getNew, { keyHash });
      return json(200, { messages: messages.map(({ id, ts, author, text }) => ({ id, ts, author, text })), newPointer });
    }),
  ),
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
const WRONG_PASSWORD = "Wrong email or password.";
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
  // No challenge on a refused sign-in: the app shows the message, the browser asks for nothing.
  handler: httpAction(async (ctx, request) => withCors(request, await answering(null, passwordSignIn)(ctx, request))),
});

async function passwordSignIn(ctx: ActionCtx, request: Request): Promise<Response> {
  const body = await jsonObjectBody(request);
  if (body === null) throw new RequestRefusal("INVALID_ARGUMENT", "Send a JSON object: {flow, email, password}.");
  const fields: Record<string, string> = {};
  for (const key of ["flow", "email", "password", "name", "inviteToken", "setupPassword"]) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value.length > MAX_FIELD_CHARS) throw new RequestRefusal("INVALID_ARGUMENT", `"${key}" must be a string of at most ${MAX_FIELD_CHARS} characters.`);
    fields[key] = value;
  }
  if (!SIGN_IN_FLOWS.has(fields.flow ?? "")) throw new RequestRefusal("INVALID_ARGUMENT", '"flow" must be "signIn" or "signUp".');
  if (!fields.email || !fields.password) throw new RequestRefusal("INVALID_ARGUMENT", "Enter your email and password.");
  const account = fields.email.trim().toLowerCase();
  const address = (request.headers.get("X-Forwarded-For") ?? "").split(",")[0].trim() || "unknown";
  const limited = await checkSignInLimits(ctx, { account, address });
  if (limited !== null) {
    const seconds = Math.max(1, Math.ceil(limited.retryAfterMs / 1000));
    throw new MaestroError("RATE_LIMITED", `Too many sign-in attempts. Try again in ${seconds} s.`, seconds);
  }
  let tokens;
  try {
    tokens = (await ctx.runAction(api.auth.signIn, { provider: "password", params: fields })).tokens;
  } catch (error) {
    await recordSignInFailure(ctx, account);
    // Who may sign up, and what an email, name or password must be: said as it is (records/accounts).
    if (errorData(error) !== null) throw error;
    const message = error instanceof Error ? error.message : "";
    if (/TooManyFailedAttempts/.test(message)) throw new MaestroError("RATE_LIMITED", "Too many failed attempts for this account. Try again later.", 600);
    if (fields.flow === "signUp" && /already exists/.test(message)) throw new MaestroError("CONFLICT", "An account with this email exists already; sign in instead.");
    throw new MaestroError("UNAUTHENTICATED", WRONG_PASSWORD);
  }
  if (tokens == null) {
    await recordSignInFailure(ctx, account);
    throw new MaestroError("UNAUTHENTICATED", WRONG_PASSWORD);
  }
  return json(200, { token: tokens.token, refreshToken: tokens.refreshToken });
}

export default http;
