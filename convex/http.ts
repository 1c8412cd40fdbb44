/**
 * Every HTTP route Maestro serves, in one table. Each route says who may
 * call it (the challenge a 401 names) and throws MaestroErrors for
 * refusals, which answer with their status from lib/errors' HTTP_STATUS as
 * `{"error": "..."}` (lib/httpJson answering).
 *
 *   /api/chat, /mcp/chat.*          the #maestro chat (convex/chatApi.ts)
 *   /projects, /channels, /messages, /threads, /dms, /agents, /runs, /tool-calls
 *                                   messaging (and external tools' calls and output) for agents outside Maestro (convex/messagingApi.ts)
 *   /auth/password                  sign-in for the app (convex/signInApi.ts)
 *   /api/upload                     a file for a message, through an upload grant (convex/uploadApi.ts)
 *   /.well-known/*                  Convex Auth's OpenID configuration and JWKS
 *   anything else                   404 {"error": "No such endpoint: …"}
 */
import { httpRouter, ROUTABLE_HTTP_METHODS } from "convex/server";
import { httpAction } from "./_generated/server";
import { auth } from "./auth";
import { CHAT_ROUTES } from "./chatApi";
import { answering, json, type HttpRoute } from "./lib/httpJson";
import { MESSAGING_ROUTES } from "./messagingApi";
import { SIGN_IN_ROUTES } from "./signInApi";
import { UPLOAD_ROUTES } from "./uploadApi";

const ROUTES: HttpRoute[] = [...CHAT_ROUTES, ...MESSAGING_ROUTES, ...SIGN_IN_ROUTES, ...UPLOAD_ROUTES];

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
