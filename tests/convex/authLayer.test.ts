/**
 * The one auth layer, checked exhaustively: every public query, mutation and
 * action found in convex/ (not a hand-kept list) and every HTTP route is
 * called with no identity, as a viewer where more is needed, and as another
 * department's admin with this department's ids. Each must refuse with a
 * clear error and write nothing.
 */
import { getFunctionName, makeFunctionReference, type FunctionReference } from "convex/server";
import { ConvexError } from "convex/values";
import { beforeAll, describe, expect, test } from "vitest";
import { internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import http from "../../convex/http";
import { addToDepartment, asUser, channelMessageRow, createTask, modules, seedDemoWithAdmin, setupTest, type TestConvex } from "./setup";

type Registered = {
  isQuery?: boolean;
  isMutation?: boolean;
  isAction?: boolean;
  isPublic?: boolean;
  exportArgs(): string;
};

type PublicFunction = { name: string; kind: "query" | "mutation" | "action"; args: ArgValidator };

/** Every public function in convex/, from the modules themselves. */
async function publicFunctions(): Promise<PublicFunction[]> {
  const found: PublicFunction[] = [];
  for (const [file, load] of Object.entries(modules)) {
    // Generated code and configuration (convex.config.ts, auth.config.ts) hold no functions.
    if (file.includes("/_generated/") || !/\.ts$/.test(file) || /\.config\.ts$/.test(file)) continue;
    const module = (await load()) as Record<string, unknown>;
    const modulePath = file.replace(/^.*\/convex\//, "").replace(/\.ts$/, "");
    for (const [exportName, value] of Object.entries(module)) {
      const fn = value as Registered | null;
      if (fn === null || typeof fn !== "function" && typeof fn !== "object") continue;
      if (!fn.isPublic || typeof fn.exportArgs !== "function") continue;
      const kind = fn.isQuery ? "query" : fn.isMutation ? "mutation" : fn.isAction ? "action" : null;
      if (kind === null) continue;
      found.push({ name: `${modulePath}:${exportName}`, kind, args: JSON.parse(fn.exportArgs()) as ArgValidator });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

// ---- arguments built from each function's own validator ----

type ArgValidator = {
  type: string;
  value?: unknown;
  tableName?: string;
  fieldType?: ArgValidator;
  optional?: boolean;
  keys?: ArgValidator;
  values?: { fieldType: ArgValidator };
};

type Ids = Partial<Record<string, string>>;

function sampleValue(validator: ArgValidator, name: string, ids: Ids): unknown {
  switch (validator.type) {
    case "id": {
      const id = ids[validator.tableName!];
      if (id === undefined) throw new Error(`No sample id for table ${validator.tableName} (argument ${name})`);
      return id;
    }
    case "string":
      // A board filter by assignee names an agent of the department by its session key.
      if (name === "assignee") return ids.agentSessionKey;
      // A day the figures page names, written YYYY-MM-DD.
      if (name === "today") return "2026-01-15";
      // A presence room token is the department's id (presence.heartbeat hands it out).
      if (name === "roomToken") return ids.departments;
      return name.toLowerCase().includes("email") ? "someone@example.com" : `sample ${name}`;
    case "number":
    case "float64":
      return name === "position" || name === "sinceDay" ? 0 : 1;
    case "int64":
      return 1n;
    case "boolean":
      return true;
    case "null":
      return null;
    case "literal":
      return validator.value;
    case "union":
      return sampleValue((validator.value as ArgValidator[])[0], name, ids);
    case "array":
      return [];
    case "record":
      return {};
    case "any":
      return null;
    case "object":
      return sampleObject(validator.value as Record<string, { fieldType: ArgValidator; optional: boolean }>, ids);
    default:
      throw new Error(`No sample for validator type ${validator.type} (argument ${name})`);
  }
}

function sampleObject(fields: Record<string, { fieldType: ArgValidator; optional: boolean }>, ids: Ids) {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    if (key === "paginationOpts") out[key] = { numItems: 10, cursor: null };
    else out[key] = sampleValue(field.fieldType, key, ids);
  }
  return out;
}

/** Optional arguments a function takes one of at a time (a command is typed in a task's thread or in a channel): the sample leaves these out. */
const ONE_OF: Record<string, string[]> = {
  "slashCommands:previewSlashCommand": ["channelId"],
  "slashCommands:resolveSlashCommand": ["channelId"],
  "slashCommands:listCommandEvents": ["channelId"],
};

function sampleArgs(fn: PublicFunction, ids: Ids): Record<string, unknown> {
  if (fn.args.type !== "object") return {};
  const sample = sampleObject(fn.args.value as Record<string, { fieldType: ArgValidator; optional: boolean }>, ids);
  for (const left of ONE_OF[fn.name] ?? []) delete sample[left];
  return sample;
}

// ---- calling, and proving nothing was written ----

/** Every document of every table, to compare before and after a refused call. */
async function snapshot(t: TestConvex): Promise<string> {
  return await t.run(async (ctx) => {
    const tables = ["departments", "members", "users", "authSessions", "agents", "tasks", "messages", "activities", "notifications", "agentTriggers", "runs", "runEvents", "runStreams", "settings", "chat", "chatCursors", "agentApiKeys", "invites", "passwordResets", "authAccounts", "authRefreshTokens", "channels", "channelMembers", "channelMessages", "inbox", "events", "webhooks", "webhookDeliveries", "approvals", "questions", "plans", "slashCommands", "commandEvents", "channelFiles", "fileSweeps", "uploadGrants", "taskFiles"] as const;
    const all: Record<string, unknown> = {};
    for (const table of tables) all[table] = await ctx.db.query(table).collect();
    return JSON.stringify(all);
  });
}

type Caller = { query: TestConvex["query"]; mutation: TestConvex["mutation"]; action: TestConvex["action"] };

async function call(caller: Caller, fn: PublicFunction, args: Record<string, unknown>): Promise<unknown> {
  if (fn.kind === "query") return await caller.query(makeFunctionReference<"query">(fn.name) as FunctionReference<"query">, args);
  if (fn.kind === "mutation") return await caller.mutation(makeFunctionReference<"mutation">(fn.name) as FunctionReference<"mutation">, args);
  return await caller.action(makeFunctionReference<"action">(fn.name) as FunctionReference<"action">, args);
}

/** The error code a refused call carried, or "ok" when it was not refused. */
async function outcome(caller: Caller, fn: PublicFunction, args: Record<string, unknown>): Promise<string> {
  try {
    await call(caller, fn, args);
    return "ok";
  } catch (error) {
    if (error instanceof ConvexError && typeof error.data === "object" && error.data !== null && "code" in error.data) {
      return String((error.data as { code: string }).code);
    }
    return `unclear error: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Callable with no identity, on purpose: what a signed-out browser needs
 * (first-run status, an invite's preview) and Convex Auth's own sign-in
 * actions (rate limited at /auth/password and by Convex Auth per account).
 */
const OPEN_TO_ANYONE = new Set(["setup:status", "invites:preview", "passwordResets:preview", "users:sessionLive", "auth:signIn", "auth:signOut", "auth:isAuthenticated"]);

/**
 * What a viewer may do: read, and things about themselves only (their own
 * notifications, account, departments they create, invites sent to them,
 * being shown as present on the board).
 */
const OPEN_TO_VIEWERS = new Set([
  "presence:heartbeat",
  "presence:disconnect",
  "notifications:markRead",
  "departments:create",
  "invites:accept",
  "users:ensureExternal",
  "users:changePassword",
  // Their own unread state and what they follow.
  "inbox:markRead",
  "inbox:markAllRead",
  "channels:setSubscribed",
]);

describe("every public function goes through the auth layer", () => {
  let t: TestConvex;
  let functions: PublicFunction[];
  let ids: Ids;
  let foreignAdmin: Caller;
  let viewer: Caller;

  beforeAll(async () => {
    t = setupTest();
    functions = await publicFunctions();
    const { departmentId, admin } = await seedDemoWithAdmin(t);
    viewer = await addToDepartment(t, departmentId, "Vera", "viewer");
    const other = await t.run(async (ctx) => await ctx.db.insert("departments", { name: "Other", slug: "other", chatSessionId: "s2" }));
    foreignAdmin = await addToDepartment(t, other, "Mallory", "owner");
    const taskId = await createTask(admin, departmentId, { title: "Ours" });
    ids = await t.run(async (ctx) => {
      const agent = (await ctx.db.query("agents").first())!;
      const member = (await ctx.db.query("members").withIndex("by_department_and_user", (q) => q.eq("departmentId", departmentId)).first())!;
      const messageId = await ctx.db.insert("messages", { taskId, departmentId, author: { kind: "system" }, content: "hi", mentions: [] });
      const notificationId = await ctx.db.insert("notifications", { departmentId, recipientKey: `member:${member.userId}`, kind: "mention", taskId, messageId });
      const keyId = await ctx.db.insert("agentApiKeys", { agentId: agent._id, departmentId, hash: "0".repeat(64), prefix: "mk_aaaaaaaaa", createdBy: member.userId });
      const inviteId = await ctx.db.insert("invites", { departmentId, email: "x@example.com", role: "member", tokenHash: "1".repeat(64), expiresAt: Date.now() + 1e9, createdBy: member.userId });
      const session = (await ctx.db.query("authSessions").first())!;
      const channelId = await ctx.db.insert("channels", { departmentId, kind: "channel", name: "general", visibility: "project", createdBy: { kind: "system" } });
      const channelMessageId = await ctx.db.insert("channelMessages", channelMessageRow(departmentId, channelId, { body: "hi" }));
      const runId = await ctx.db.insert("runs", {
        departmentId, agentId: agent._id, agentSessionKey: agent.sessionKey, taskId, trigger: { kind: "assigned" }, status: "running",
        iterations: 0, toolCalls: [], promptTokens: 0, completionTokens: 0, foldedTriggers: 0, rerunRequested: false, delegations: 0, guards: [], timings: [],
      });
      const slashCommandId = await ctx.db.insert("slashCommands", {
        departmentId, name: "ours", description: "d", argumentHint: "", passArguments: false, template: "t", updatedBy: member.userId, updatedAt: 0,
      });
      // A waiting run's cards, so the respond mutations have something to refuse.
      const card = { departmentId, runId, taskId, agentId: agent._id };
      const approvalId = await ctx.db.insert("approvals", {
        ...card, toolCallId: `${runId}:0`, tool: "delegate_task", args: "{}", argsHash: "0".repeat(64), status: "pending", expiresAt: Date.now() + 1e9,
      });
      const questionId = await ctx.db.insert("questions", { ...card, question: "Which?", status: "pending" });
      const planId = await ctx.db.insert("plans", { ...card, summary: "Plan", steps: [{ title: "A", assignee: "Writer" }], status: "pending" });
      return {
        approvals: approvalId,
        questions: questionId,
        plans: planId,
        slashCommands: slashCommandId,
        runs: runId,
        departments: departmentId,
        tasks: taskId,
        agents: agent._id,
        members: member._id,
        users: member.userId,
        messages: messageId,
        notifications: notificationId,
        agentApiKeys: keyId,
        invites: inviteId,
        authSessions: session._id,
        channels: channelId,
        channelMessages: channelMessageId,
        _storage: await ctx.storage.store(new Blob(["sample"])),
        agentSessionKey: agent.sessionKey,
      } satisfies Record<string, Id<never> | string>;
    });
  });

  test("the enumeration finds the app's public functions", () => {
    const names = functions.map((f) => f.name);
    // Spot checks that the walk reaches every module kind; the count is printed for the record.
    for (const name of ["tasks:create", "members:setRole", "chat:updateSettings", "users:changePassword", "agentApiKeys:create"]) {
      expect(names).toContain(name);
    }
    console.log(`auth layer: ${functions.length} public functions enumerated`);
  });

  /**
   * Calls each of `fns` as `caller` with the sample arguments; lists the
   * outcomes `refused` does not accept, and every call that wrote anyway.
   */
  async function unrefused(caller: Caller, fns: PublicFunction[], refused: (fn: PublicFunction, result: string) => boolean): Promise<string[]> {
    const failures: string[] = [];
    for (const fn of fns) {
      const before = await snapshot(t);
      const result = await outcome(caller, fn, sampleArgs(fn, ids));
      if (!refused(fn, result)) failures.push(`${fn.name}: ${result}`);
      if ((await snapshot(t)) !== before) failures.push(`${fn.name}: wrote while refusing`);
    }
    return failures;
  }

  test("no identity: refused with UNAUTHENTICATED, nothing written", async () => {
    const closed = functions.filter((fn) => !OPEN_TO_ANYONE.has(fn.name));
    expect(await unrefused(t, closed, (_fn, result) => result === "UNAUTHENTICATED")).toEqual([]);
  });

  test("another department's admin, with this department's ids: refused, nothing written", async () => {
    // Functions that name no department's record act on the caller's own things only.
    const naming = functions.filter((fn) => !OPEN_TO_ANYONE.has(fn.name) && JSON.stringify(fn.args).includes('"id"'));
    // FORBIDDEN for department records; a notification that is not yours reads as not found.
    const refused = (fn: PublicFunction, result: string) => result === "FORBIDDEN" || (fn.name === "notifications:markRead" && result === "NOT_FOUND");
    expect(await unrefused(foreignAdmin, naming, refused)).toEqual([]);
  });

  test("a viewer: every mutation and action that changes the department is refused with FORBIDDEN, nothing written", async () => {
    const changing = functions.filter((fn) => fn.kind !== "query" && !OPEN_TO_ANYONE.has(fn.name) && !OPEN_TO_VIEWERS.has(fn.name));
    expect(await unrefused(viewer, changing, (_fn, result) => result === "FORBIDDEN")).toEqual([]);
  });

  test("a viewer reads the board but not the admin-only lists", async () => {
    const adminOnly = ["invites:list", "agentApiKeys:list", "events:list", "events:trace", "webhooks:get", "retention:get", "a2aServer:settings", "events:hasTrace"];
    for (const fn of functions.filter((f) => f.kind === "query" && !OPEN_TO_ANYONE.has(f.name))) {
      const result = await outcome(viewer, fn, sampleArgs(fn, ids));
      expect(`${fn.name}: ${result}`).toBe(`${fn.name}: ${adminOnly.includes(fn.name) ? "FORBIDDEN" : "ok"}`);
    }
  });

  test("a signed-out caller of the open functions learns nothing and writes nothing", async () => {
    const before = await snapshot(t);
    expect(await t.query(makeFunctionReference<"query">("invites:preview"), { token: "not-a-token" })).toBeNull();
    expect(await t.query(makeFunctionReference<"query">("passwordResets:preview"), { token: "not-a-token" })).toBeNull();
    expect(await t.query(makeFunctionReference<"query">("setup:status"), {})).toEqual({ needsOwner: false, setupPasswordRequired: false });
    expect(await snapshot(t)).toBe(before);
  });

  test("every HTTP route refuses a caller without credentials, except the public ones it names", async () => {
    const open = new Map([
      // Convex Auth's key discovery: public by design (it holds only public keys).
      ["GET /.well-known/openid-configuration", 200],
      ["GET /.well-known/jwks.json", 200],
      // Sign-in itself: an empty body is a clear 400; preflight without an allowed Origin is refused.
      ["POST /auth/password", 400],
      ["OPTIONS /auth/password", 403],
      // A reset link is its own credential: no body is a clear 400.
      ["POST /auth/reset", 400],
      ["OPTIONS /auth/reset", 403],
      // The MCP server asks this before it has a key (the chat spec's status call); it reveals only a boolean.
      ["GET /mcp/chat.status", 200],
      // MCP over Streamable HTTP opens no stream and keeps no session: GET and DELETE say so to anyone (POST needs a key).
      ["GET /mcp", 405],
      ["DELETE /mcp", 405],
      // Uploads are opened by a grant in the URL, not a credential: none is a 403; preflight without an allowed Origin too.
      ["POST /api/upload", 403],
      ["OPTIONS /api/upload", 403],
      // A2A agent card discovery is public by the protocol; a department that does not publish (the default) answers 404.
      ["GET /a2a/*", 404],
      // Any other path: the catch-all answers 404 JSON to anyone, reaching nothing.
      ...["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].map((method) => [`${method} /*`, 404] as const),
    ]);
    const routes = http.getRoutes();
    const failures: string[] = [];
    for (const [path, method] of routes) {
      const route = `${method} ${path}`;
      const before = await snapshot(t);
      const response = await t.fetch(path, { method, body: method === "GET" || method === "OPTIONS" ? undefined : "" });
      const expected = open.get(route);
      if (expected !== undefined ? response.status !== expected : response.status !== 401) failures.push(`${route}: ${response.status}`);
      if ((await snapshot(t)) !== before) failures.push(`${route}: wrote while refusing`);
    }
    console.log(`auth layer: ${routes.length} HTTP routes enumerated`);
    expect(failures).toEqual([]);
    expect(routes.length).toBeGreaterThanOrEqual(8);
  });

  test("HTTP with a session of another department reaches nothing of this one", async () => {
    const mallory = await asUser(t, "Mallory");
    const get = await mallory.fetch("/api/chat?department=product", { method: "GET" });
    expect(get.status).toBe(404);
    const post = await mallory.fetch("/api/chat", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text: "hi", department: "product" }) });
    expect(post.status).toBe(404);
    expect(await t.run(async (ctx) => await ctx.db.query("chat").collect())).toEqual([]);
  });

  test("internal functions are not callable from outside", () => {
    // Spot check that server-only work stays internal: it has no public flag.
    expect(getFunctionName(internal.users.viewerForAction)).toBe("users:viewerForAction");
    expect(functions.map((f) => f.name)).not.toContain("users:viewerForAction");
    expect(functions.map((f) => f.name)).not.toContain("seed:demo");
  });
});
