/**
 * Following work over HTTP for agents outside Maestro (convex/http.ts lists
 * the routes; convex/agentTasks.ts does the work), with the agent's API key
 * (`Authorization: Bearer mk_…`) and the scope in brackets:
 *
 *   GET  /tasks                  ?assignee=me|<agent id or name>&status=  the live tasks assigned to that agent  [tasks:read]
 *   GET  /tasks/{id}             a TaskDetail: status, assignees, parent, subtasks and their status,
 *                                who delegated it, what waits for a person   [tasks:read]
 *   GET  /tasks/{id}/messages    ?limit=&cursor=  its thread, oldest first, a page at a time:
 *                                {messages, next_cursor, done}               [tasks:read]
 *   POST /tasks/{id}/messages    {body, client_message_id?}  a post in its thread: the ThreadMessage  [tasks:write]
 *   POST /tasks/{id}/status      {status}  moves a task the agent holds: {id, from, to}  [tasks:write]
 *
 * (`POST /tasks`, which puts a new card on the board, is convex/messagingApi.ts's.)
 * Refusals as everywhere (lib/httpJson): 401 key, 403 scope or a task the
 * agent does not hold, 404 unknown (another department's task too), 400 bad
 * body or query, 409 a task blocked on a question, 413 a post over the
 * limit, 429 rate limited with Retry-After; always `{"error": "..."}`.
 */
import { internal } from "./_generated/api";
import type { ActionCtx } from "./_generated/server";
import type { ApiScope } from "./lib/apiKeys";
import { agentKeyHash, BEARER_CHALLENGE, json, RequestRefusal, type HttpRoute } from "./lib/httpJson";
import { LIMITS } from "./lib/limits";
import { TASK_STATUSES, type TaskStatus } from "./validators";

/** Messages a thread page holds without a `limit`. */
export const DEFAULT_THREAD_PAGE = 20;
/** Largest request body these routes read (a post is at most LIMITS.messageChars characters; JSON escaping can double it). */
export const MAX_TASK_BODY_BYTES = 4 * LIMITS.messageChars + 1024;

const ROUTES_TEXT = "GET /tasks, GET /tasks/{id}, GET /tasks/{id}/messages, POST /tasks/{id}/messages, POST /tasks/{id}/status, POST /tasks";

const badRequest = (message: string) => new RequestRefusal("INVALID_ARGUMENT", message);

/** The path after `/tasks/`: the task id and what follows it, or a 404 naming the routes. */
function taskPath(pathname: string): { taskId: string; rest: string | null } {
  let parts: string[];
  try {
    parts = pathname.split("/").filter((p) => p !== "").map(decodeURIComponent);
  } catch {
    throw badRequest("The path is not valid percent-encoding.");
  }
  if (parts[0] !== "tasks" || parts.length < 2 || parts.length > 3 || parts[1].trim() === "") {
    throw new RequestRefusal("NOT_FOUND", `No such endpoint. The task routes are ${ROUTES_TEXT}.`);
  }
  return { taskId: parts[1], rest: parts[2] ?? null };
}

/** The request's JSON object, refused when it is larger than MAX_TASK_BODY_BYTES (413) or not a JSON object (400). */
async function objectBody(request: Request): Promise<Record<string, unknown>> {
  const raw = await request.text();
  if (new TextEncoder().encode(raw).length > MAX_TASK_BODY_BYTES) throw new RequestRefusal("TOO_LARGE", `The body is over ${MAX_TASK_BODY_BYTES} bytes.`);
  if (raw.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw badRequest("Send a JSON object.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw badRequest("Send a JSON object.");
  return body as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw badRequest(`"${field}" must be a string.`);
  return value;
}

/**
 * A route: the key first (401), then the scope (403), then the path (404)
 * and the work. `scope` may depend on the path's last segment.
 */
function taskRoute(
  where: { path: string } | { pathPrefix: string },
  method: "GET" | "POST",
  scope: ApiScope,
  run: (ctx: ActionCtx, call: { keyHash: string; url: URL; request: Request }) => Promise<unknown>,
): HttpRoute {
  return {
    ...where,
    method,
    challenge: BEARER_CHALLENGE,
    handler: async (ctx, request) => {
      const keyHash = agentKeyHash(request);
      await ctx.runQuery(internal.agentApiKeys.authorize, { keyHash, scope });
      return json(200, await run(ctx, { keyHash, url: new URL(request.url), request }));
    },
  };
}

/** `limit` from the query: a whole number from 1 to LIMITS.pageSize. */
function pageLimit(params: URLSearchParams): number {
  const raw = params.get("limit");
  if (raw === null || raw === "") return DEFAULT_THREAD_PAGE;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.pageSize) throw badRequest(`"limit" must be a whole number from 1 to ${LIMITS.pageSize}.`);
  return limit;
}

function status(value: unknown, field = "status"): TaskStatus {
  if (typeof value !== "string" || !(TASK_STATUSES as readonly string[]).includes(value)) {
    throw badRequest(`"${field}" must be one of ${TASK_STATUSES.map((s) => `"${s}"`).join(", ")}.`);
  }
  return value as TaskStatus;
}

export const TASK_ROUTES: HttpRoute[] = [
  taskRoute({ path: "/tasks" }, "GET", "tasks:read", async (ctx, { keyHash, url }) => {
    const wanted = url.searchParams.get("status");
    return await ctx.runQuery(internal.agentTasks.assignedForKey, {
      keyHash,
      assignee: url.searchParams.get("assignee") || "me",
      status: wanted === null || wanted === "" ? undefined : status(wanted),
    });
  }),
  taskRoute({ pathPrefix: "/tasks/" }, "GET", "tasks:read", async (ctx, { keyHash, url }) => {
    const { taskId, rest } = taskPath(url.pathname);
    if (rest === null) return await ctx.runQuery(internal.agentTasks.taskForKey, { keyHash, taskId });
    if (rest !== "messages") throw new RequestRefusal("NOT_FOUND", `No such endpoint. The task routes are ${ROUTES_TEXT}.`);
    const cursor = url.searchParams.get("cursor") || null;
    return await ctx.runQuery(internal.agentTasks.threadForKey, { keyHash, taskId, limit: pageLimit(url.searchParams), cursor });
  }),
  taskRoute({ pathPrefix: "/tasks/" }, "POST", "tasks:write", async (ctx, { keyHash, url, request }) => {
    const { taskId, rest } = taskPath(url.pathname);
    if (rest === "messages") {
      const body = await objectBody(request);
      const text = optionalString(body, "body");
      if (text === undefined || text.trim() === "") throw badRequest('"body" is required.');
      if (text.trim().length > LIMITS.messageChars) throw new RequestRefusal("TOO_LARGE", `A message is ${text.trim().length} characters; the limit is ${LIMITS.messageChars}.`);
      return await ctx.runMutation(internal.agentTasks.postForKey, { keyHash, taskId, body: text, clientMessageId: optionalString(body, "client_message_id") });
    }
    if (rest === "status") {
      const body = await objectBody(request);
      return await ctx.runMutation(internal.agentTasks.moveForKey, { keyHash, taskId, status: status(body.status) });
    }
    throw new RequestRefusal("NOT_FOUND", `No such endpoint. The task routes are ${ROUTES_TEXT}.`);
  }),
];
