/**
 * Every HTTP route Maestro serves, in one table. Each route says who may
 * call it (the challenge a 401 names) and throws MaestroErrors for
 * refusals, which answer with their status from lib/errors' HTTP_STATUS as
 * `{"error": "..."}` (lib/httpJson answering).
 *
 *   /api/chat, /mcp/chat.*          the #maestro chat (convex/chatApi.ts)
 *   /projects, /channels, /messages, /threads, /dms, /agents, /runs, /tool-calls
 *                                   messaging (and external tools' calls and output) for agents outside Maestro (convex/messagingApi.ts)
 *   /tasks/{id}…, GET /tasks          following work: a task, its thread, its moves (convex/tasksApi.ts)
 *   /mcp                            MCP over Streamable HTTP, every tool one call of the routes above (convex/mcpApi.ts)
 *   /a2a/{slug}/…                   the squad as an A2A server: its agent card and JSON-RPC (convex/a2aServerApi.ts)
 *   /auth/password                  sign-in for the app (convex/signInApi.ts)
 *   /api/upload                     a file for a message, through an upload grant (convex/uploadApi.ts)
 *   /.well-known/*                  Convex Auth's OpenID configuration and JWKS
 *   anything else                   404 {"error": "No such endpoint: …"}
 */
import { httpRouter, ROUTABLE_HTTP_METHODS } from "convex/server";
import { httpAction } from "./_generated/server";
import { A2A_SERVER_ROUTES } from "./a2aServerApi";
import { auth } from "./auth";
import { CHAT_ROUTES } from "./chatApi";
import { answering, json, type HttpRoute } from "./lib/httpJson";
import { mcpRoutes, type Dispatch } from "./mcpApi";
import { MESSAGING_ROUTES } from "./messagingApi";
import { SIGN_IN_ROUTES } from "./signInApi";
import { TASK_ROUTES } from "./tasksApi";
import { UPLOAD_ROUTES } from "./uploadApi";

const API_ROUTES: HttpRoute[] = [...CHAT_ROUTES, ...MESSAGING_ROUTES, ...TASK_ROUTES, ...SIGN_IN_ROUTES, ...UPLOAD_ROUTES];

/**
 * A request handed to the route that answers it, as Convex's router picks
 * one (an exact path first, then the longest prefix): how an MCP tool calls
 * the API in-process. No route: 404.
 */
const dispatch: Dispatch = async (ctx, request) => {
  const { pathname } = new URL(request.url);
  const method = request.method;
  const same = API_ROUTES.filter((r) => r.method === method);
  const route =
    same.find((r) => "path" in r && r.path === pathname) ??
    same.filter((r): r is HttpRoute & { pathPrefix: string } => "pathPrefix" in r && pathname.startsWith(r.pathPrefix)).sort((a, b) => b.pathPrefix.length - a.pathPrefix.length)[0];
  if (route === undefined) return json(404, { error: `No such endpoint: ${method} ${pathname}.` });
  return await answering(route.challenge, route.handler)(ctx, request);
};

const ROUTES: HttpRoute[] = [...API_ROUTES, ...mcpRoutes(dispatch), ...A2A_SERVER_ROUTES];

const http = httpRouter();

// Convex Auth's OpenID configuration and JWKS: how the deployment verifies the tokens it signs.
auth.addHttpRoutes(http);

for (const { method, challenge, handler, cors, ...where } of ROUTES) {
  const answer = answering(challenge, handler);
  http.route({ ...where, method, handler: httpAction(async (ctx, request) => (cors === undefined ? await answer(ctx, request) : cors(request, await answer(ctx, request)))) });
}

// Any other path or method answers as the routes do, `{"error": …}` JSON with its status, not the platform's own text.
for (const method of ROUTABLE_HTTP_METHODS) {
  http.route({
    pathPrefix: "/",
    method,
    handler: httpAction(async (_ctx, request) => json(404, { error: `No such endpoint: ${method} ${new URL(request.url).pathname}. See docs/api.md for the routes.` })),
  });
}

export default http;
