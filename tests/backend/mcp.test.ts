/**
 * Maestro's MCP server end to end on the offline backend over the project's
 * own convex/, through the official SDK's `Client`: over Streamable HTTP
 * (`POST /mcp` on the HTTP actions origin) and over stdio (tools/mcp/bin.js
 * started from another folder, a bridge to that endpoint). The client checks
 * every structured result against the tool's outputSchema itself. Then the
 * endpoint from the attacker's side, with plain fetch: no key, a revoked
 * key, a foreign Origin, malformed JSON-RPC, batches, unknown versions,
 * methods and tools, oversized bodies.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ConvexHttpClient } from "convex/browser";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ApiScope } from "../../convex/lib/apiKeys";
import { WIRE_NAME_PATTERN } from "../../convex/lib/toolNames";
import { PROJECT_ROOT, seedDemoSquad, startTestBackend } from "./helpers";

type Backend = Awaited<ReturnType<typeof startTestBackend>>;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let backend: Backend;
let ada: ConvexHttpClient;
let departmentId: Id<"departments">;
let devBot: Id<"agents">;
/** Clients to close after each test (which ends their server processes). */
const open: Client[] = [];
/** Keys made by each test. */
const made: Array<Id<"agentApiKeys">> = [];
/** A folder that is not Maestro's: the stdio server must start from anywhere. */
const elsewhere = mkdtempSync(path.join(tmpdir(), "maestro-mcp-host-"));
const BIN = path.join(PROJECT_ROOT, "tools/mcp/bin.js");

beforeAll(async () => {
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  ({ member: ada, departmentId } = await seedDemoSquad(backend));
  devBot = (await ada.query(api.agents.list, { departmentId })).find((a) => a.name === "Dev Bot")!._id;
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
  // An agent holds at most 10 active keys: each test's are revoked after it.
  for (const keyId of made.splice(0)) await ada.mutation(api.agentApiKeys.revoke, { keyId });
});

afterAll(async () => {
  await backend?.stop();
});

function serverEnv(agentKey: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("MAESTRO_")) env[name] = value;
  }
  env.MAESTRO_SITE_URL = backend.siteUrl;
  if (agentKey !== undefined) env.MAESTRO_AGENT_KEY = agentKey;
  return env;
}

type Transport = "http" | "stdio";

/** Connects the SDK's client to Maestro as the key's agent, over `transport`. */
async function connect(agentKey: string, transport: Transport, command: { command: string; args: string[] } = { command: process.execPath, args: [BIN] }): Promise<Client> {
  const client = new Client({ name: "maestro-mcp-test", version: "1.0.0" });
  if (transport === "http") {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${backend.siteUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${agentKey}` } } }));
  } else {
    await client.connect(new StdioClientTransport({ ...command, cwd: elsewhere, env: serverEnv(agentKey), stderr: "pipe" }));
  }
  open.push(client);
  return client;
}

async function newKey(scopes?: ApiScope[], agentId = devBot): Promise<{ key: string; keyId: Id<"agentApiKeys"> }> {
  const created = await ada.mutation(api.agentApiKeys.create, { agentId, scopes });
  made.push(created.keyId);
  return created;
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe("text");
  return (content[0] as { text: string }).text;
}

const CHAT_TOOLS = ["chat_getNew", "chat_post"];
const OTHER_TOOLS = [
  "agents_get",
  "channels_create",
  "channels_get",
  "channels_members",
  "channels_messages",
  "channels_topic",
  "dms_messages",
  "dms_send",
  "inbox_read",
  "messages_post",
  "messages_read",
  "projects_agents",
  "projects_channels",
  "projects_create",
  "projects_get",
  "runs_tool_output",
  "runs_waiting_tool_calls",
  "tasks_assigned",
  "tasks_create",
  "tasks_get",
  "tasks_messages",
  "tasks_post",
  "tasks_set_status",
  "threads_create",
  "threads_get",
  "threads_messages",
];
const ALL_TOOLS = [...CHAT_TOOLS, ...OTHER_TOOLS].sort();

describe.each<Transport>(["http", "stdio"])("the maestro MCP server over %s", (transport) => {
  test("initialize: server maestro, instructions for the whole surface; tools/list: names any host accepts, each with an outputSchema whose every field is described", async () => {
    const { key } = await newKey();
    const client = await connect(key, transport);
    expect(client.getServerVersion()).toMatchObject({ name: "maestro" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const instructions = client.getInstructions() ?? "";
    for (const name of ["tasks_create", "tasks_get", "tasks_messages", "tasks_post", "tasks_set_status", "chat_post", "inbox_read", "runs_tool_output"]) expect(instructions).toContain(name);
    expect(await client.ping()).toEqual({});

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
    const described = (schema: Json, where: string): void => {
      for (const [field, sub] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        expect(typeof sub.description === "string" && sub.description.length > 0, `${where}.${field} is described`).toBe(true);
        if (sub.type === "object") described(sub, `${where}.${field}`);
        if (sub.type === "array" && sub.items?.type === "object") described(sub.items, `${where}.${field}[]`);
      }
      for (const branch of (schema.anyOf ?? []) as Json[]) described(branch, where);
    };
    for (const tool of tools) {
      expect(tool.name).toMatch(WIRE_NAME_PATTERN);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      described(tool.outputSchema as Json, tool.name);
      described(tool.inputSchema as Json, `${tool.name}(input)`);
      expect(tool.description?.length).toBeGreaterThan(10);
    }
    expect(tools.find((t) => t.name === "chat_post")!.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
  });

  test("chat: posts as the key's agent and reads a person's post once, under the wire names and the old dotted ones", async () => {
    const { key } = await newKey();
    const client = await connect(key, transport);
    // What earlier tests posted is read first.
    while (((await client.callTool({ name: "chat_getNew", arguments: {} })).structuredContent as { messages: unknown[] }).messages.length > 0);
    const posted = await client.callTool({ name: "chat_post", arguments: { text: `hello over ${transport}` } });
    expect(posted.isError).toBeFalsy();
    const { id } = posted.structuredContent as { id: number };
    expect(JSON.parse(textOf(posted))).toEqual({ id, success: true });

    const human = await ada.mutation(api.chat.postAsHuman, { departmentId, text: "hi from Ada" });
    const first = await client.callTool({ name: "chat.getNew", arguments: {} });
    const body = first.structuredContent as { messages: Array<{ id: number; author: string; text: string }>; newPointer: number };
    expect(body.messages.map((m) => [m.author, m.text])).toEqual([
      ["@dev-bot", `hello over ${transport}`],
      ["@human", "hi from Ada"],
    ]);
    expect(body.newPointer).toBe(human.id);
    expect((await client.callTool({ name: "chat_getNew", arguments: {} })).structuredContent).toEqual({ messages: [], newPointer: human.id });
  });

  test("the messaging tools through the HTTP API: a channel, a post, a thread (its old message_id argument too), the inbox", async () => {
    const { key } = await newKey();
    const client = await connect(key, transport);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      return result.structuredContent as Json;
    };
    const room = `mcp-${transport}`;
    const channel = await call("channels_create", { name: room, topic: "from outside" });
    expect(channel).toMatchObject({ name: room, created_by: "Dev Bot" });
    expect(await call("channels.get", { channel: `#${room}` })).toMatchObject({ id: channel.id, members: ["Dev Bot"] });
    expect(await call("channels_topic", { channel: room, topic: "from the MCP" })).toMatchObject({ topic: "from the MCP" });
    expect((await call("channels_members", { channel: room, add: ["Ada"] })).members.toSorted()).toEqual(["Ada", "Dev Bot"]);
    expect((await call("projects_channels", {})).channels.map((c: Json) => c.name)).toContain(room);
    expect((await call("projects_get", {})).id).toBe(channel.project_id);
    expect(await call("agents_get", { agent: "me" })).toMatchObject({ name: "Dev Bot" });
    expect((await call("projects_agents", {})).agents.map((a: Json) => a.name)).toContain("Jarvis");
    const posted = await call("messages_post", { channel: room, body: "Build is green", importance: "high", client_message_id: `once-${transport}` });
    await ada.mutation(api.channelMessages.reply, { channelId: channel.id as Id<"channels">, messageId: posted.id as Id<"channelMessages">, body: "Ship it, @Dev Bot" });
    expect((await call("threads_messages", { thread_id: posted.id })).messages.map((m: Json) => m.body)).toEqual(["Build is green", "Ship it, @Dev Bot"]);
    expect((await call("threads.messages", { message_id: posted.id })).thread).toMatchObject({ id: posted.id, reply_count: 1 });
    expect(await call("threads_get", { thread_id: posted.id })).toMatchObject({ root_message_id: posted.id });
    expect((await call("channels_messages", { channel: channel.id, limit: 5 })).messages.map((m: Json) => m.reply_count)).toEqual([1]);
    const dm = await call("dms_send", { to: ["Ada"], body: `Deploying over ${transport}` });
    expect((await call("dms_messages", { dm: dm.id })).messages.at(-1).body).toBe(`Deploying over ${transport}`);
    const inbox = await call("inbox_read", {});
    expect(inbox.messages.map((m: Json) => [m.from, m.body, m.direct])).toEqual([["Ada", "Ship it, @Dev Bot", true]]);
    expect(await call("messages_read", { message_id: inbox.messages[0].id })).toEqual({ marked: 1 });
    expect(await call("runs_waiting_tool_calls", { limit: 5 })).toEqual({ tool_calls: [], next_cursor: null });
  });

  test("following work: tasks_create, tasks_get, tasks_assigned, tasks_messages a page at a time, tasks_post, tasks_set_status", async () => {
    const { key } = await newKey();
    const client = await connect(key, transport);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      return result.structuredContent as Json;
    };
    const task = await call("tasks_create", { title: `Release notes (${transport})`, priority: "high", assignees: ["Dev Bot"] });
    expect(task).toMatchObject({ status: "assigned", assignees: ["Dev Bot"], created_by: "Dev Bot", priority: "high" });
    expect(await call("tasks_get", { task_id: task.id })).toMatchObject({ id: task.id, parent: null, subtasks: [], delegated_by: null, waiting_for_person: [] });
    expect((await call("tasks_assigned", {})).tasks.map((t: Json) => t.id)).toContain(task.id);
    const first = await call("tasks_post", { task_id: task.id, body: "Drafting now." });
    const second = await call("tasks.post", { task_id: task.id, body: "Draft is up." });
    const page1 = await call("tasks_messages", { task_id: task.id, limit: 1 });
    const rest = await call("tasks_messages", { task_id: task.id, cursor: page1.next_cursor });
    const ids = [...page1.messages, ...rest.messages].map((m: Json) => m.id);
    expect(ids).toContain(first.id);
    expect(ids.indexOf(second.id)).toBeGreaterThan(ids.indexOf(first.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(await call("tasks_set_status", { task_id: task.id, status: "review" })).toEqual({ id: task.id, from: expect.any(String), to: "review" });
    expect((await call("tasks_get", { task_id: task.id })).status).toBe("review");
  });

  test("refusals are tool errors with the API's status: a scope the key lacks, a revoked key's 401, bad arguments; an unknown tool is JSON-RPC -32602", async () => {
    const readOnly = await newKey(["messages:read", "channels:read", "chat:read", "tasks:read"]);
    const client = await connect(readOnly.key, transport);
    expect((await client.callTool({ name: "inbox_read", arguments: {} })).isError).toBeFalsy();
    for (const [name, args, scope] of [
      ["messages_post", { channel: "general", body: "nope" }, "messages:write"],
      ["chat_post", { text: "nope" }, "chat:write"],
      ["tasks_create", { title: "nope" }, "tasks:write"],
      ["tasks_set_status", { task_id: "any", status: "done" }, "tasks:write"],
      ["tasks.post", { task_id: "any", body: "nope" }, "tasks:write"],
      ["runs_waiting_tool_calls", {}, "tools:run"],
    ] as const) {
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError, name).toBe(true);
      expect(refused.structuredContent).toBeUndefined();
      expect(JSON.parse(textOf(refused))).toMatchObject({ status: 403, error: expect.stringContaining(`"${scope}" scope`) });
    }
    expect(JSON.parse(textOf(await client.callTool({ name: "tasks_get", arguments: { task_id: "no-such-task" } })))).toEqual({ status: 404, error: "Task not found in this project." });
    // Another department's task is not found either, read or written (this key may read it: tasks:read).
    const lab = await ada.mutation(api.departments.create, { name: `Lab ${transport}` });
    const hidden = await ada.mutation(api.tasks.create, { departmentId: lab, title: "Hidden work" });
    for (const [name, args] of [
      ["tasks_get", { task_id: hidden }],
      ["tasks_messages", { task_id: hidden }],
    ] as const) {
      expect(JSON.parse(textOf(await client.callTool({ name, arguments: args }))), name).toEqual({ status: 404, error: "Task not found in this project." });
    }
    // An id of ".." reaches no other route: the path a tool calls is its own.
    for (const [name, args] of [
      ["tasks_get", { task_id: ".." }],
      ["tasks_messages", { task_id: ".." }],
      ["channels_messages", { channel: "." }],
      ["threads_messages", { thread_id: ".." }],
      // Without the guard this is POST /messages, a 400.
      ["tasks_post", { task_id: "..", body: "x" }],
    ] as const) {
      expect(JSON.parse(textOf(await client.callTool({ name, arguments: args }))), name).toMatchObject({ status: 404 });
    }
    const invalid = await client.callTool({ name: "chat_post", arguments: { text: "" } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/Invalid arguments for tool chat_post/);
    await expect(client.callTool({ name: "tasks_delete_everything", arguments: {} })).rejects.toSatisfy((e) => e instanceof McpError && e.code === -32602);

    await ada.mutation(api.agentApiKeys.revoke, { keyId: readOnly.keyId });
    await expect(client.callTool({ name: "inbox_read", arguments: {} })).rejects.toThrow(/revoked/);
  });

  test("a rate-limited tool says when to retry", async () => {
    // Another agent each time: the bucket is the agent's, and the other tests post as Dev Bot.
    const agents = await ada.query(api.agents.list, { departmentId });
    const { key } = await newKey(["chat:write", "chat:read"], agents.find((a) => a.name === (transport === "http" ? "Writer" : "Jarvis"))!._id);
    const client = await connect(key, transport);
    let limited: Json | null = null;
    for (let i = 0; i < 40 && limited === null; i++) {
      const result = await client.callTool({ name: "chat_post", arguments: { text: `burst ${i}` } });
      if (result.isError) limited = JSON.parse(textOf(result)) as Json;
    }
    expect(limited).toMatchObject({ status: 429, error: expect.stringMatching(/try again in \d+ s/i), retryAfterSeconds: expect.any(Number) });
    expect(limited!.retryAfterSeconds).toBeGreaterThan(0);
  });

  test("with chat disabled by an admin, tools/list leaves the chat tools out and chat_post is refused 404", async () => {
    const { key } = await newKey();
    const client = await connect(key, transport);
    await ada.mutation(api.chat.updateSettings, { departmentId, enabled: false });
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(OTHER_TOOLS);
      expect(JSON.parse(textOf(await client.callTool({ name: "chat_post", arguments: { text: "anyone?" } })))).toEqual({ error: "Chat disabled by configuration", status: 404 });
    } finally {
      await ada.mutation(api.chat.updateSettings, { departmentId, enabled: true });
    }
    expect((await client.listTools()).tools).toHaveLength(ALL_TOOLS.length);
  });
});

describe("the stdio server from any folder", () => {
  test("npx --prefix <maestro> maestro-mcp, started in another folder, serves the same tools", async () => {
    const { key } = await newKey();
    const client = await connect(key, "stdio", { command: "npx", args: ["--prefix", PROJECT_ROOT, "maestro-mcp"] });
    expect(client.getServerVersion()).toMatchObject({ name: "maestro" });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
  }, 60_000);

  test("a Maestro it cannot reach: each request is answered with a JSON-RPC error saying so, and the server ends with its input", () => {
    const env = { ...serverEnv("mk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), MAESTRO_SITE_URL: "http://127.0.0.1:1" };
    const run = spawnSync(process.execPath, [BIN], { cwd: elsewhere, env, input: '{"jsonrpc":"2.0","id":1,"method":"ping"}\n', encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: expect.stringContaining("Cannot reach Maestro at http://127.0.0.1:1/mcp") } });
  });

  test("without MAESTRO_AGENT_KEY the server exits with a message", () => {
    const run = spawnSync(process.execPath, [BIN], { cwd: elsewhere, env: serverEnv(undefined), input: "", encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("MAESTRO_AGENT_KEY is not set");
  });
});

describe("POST /mcp from the attacker's side", () => {
  let key: string;
  beforeAll(async () => {
    // Made here, not with newKey: it outlives each test.
    ({ key } = await ada.mutation(api.agentApiKeys.create, { agentId: devBot }));
  });

  async function rpc(body: unknown, headers: Record<string, string> = {}, withKey: string | null = key) {
    const response = await fetch(`${backend.siteUrl}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...(withKey === null ? {} : { Authorization: `Bearer ${withKey}` }), ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: text === "" ? null : (JSON.parse(text) as Json) };
  }
  const initialize = (protocolVersion: string) => ({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "curl", version: "1" } } });

  test("no key, a malformed key or a revoked one: 401 with the Bearer challenge, for initialize too", async () => {
    const none = await rpc(initialize("2025-06-18"), {}, null);
    expect(none.status).toBe(401);
    expect(none.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    expect((await rpc(initialize("2025-06-18"), {}, "mk_nope")).status).toBe(401);
    const revoked = await newKey();
    await ada.mutation(api.agentApiKeys.revoke, { keyId: revoked.keyId });
    expect(await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }, {}, revoked.key)).toMatchObject({ status: 401, body: { error: "This API key has been revoked." } });
  });

  test("a page on another site is refused by its Origin", async () => {
    expect((await rpc(initialize("2025-06-18"), { Origin: "https://evil.example" })).status).toBe(403);
  });

  test("initialize negotiates the version: the client's when spoken here, else the newest; an unsupported MCP-Protocol-Version header is a 400", async () => {
    for (const [asked, answered] of [
      ["2025-06-18", "2025-06-18"],
      ["2024-11-05", "2024-11-05"],
      ["2025-11-25", "2025-11-25"],
      ["1999-01-01", "2025-11-25"],
    ]) {
      const answer = await rpc(initialize(asked));
      expect(answer.status).toBe(200);
      expect(answer.headers.get("Content-Type")).toMatch(/^application\/json/);
      expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: answered, serverInfo: { name: "maestro" }, capabilities: { tools: {} } } });
    }
    expect(await rpc({ jsonrpc: "2.0", id: 3, method: "ping" }, { "MCP-Protocol-Version": "1900-01-01" })).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    expect(await rpc({ jsonrpc: "2.0", id: 3, method: "ping" }, { "MCP-Protocol-Version": "2025-06-18" })).toMatchObject({ status: 200, body: { id: 3, result: {} } });
  });

  test("notifications and responses are accepted with 202 and no body", async () => {
    const note = await rpc({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(note).toMatchObject({ status: 202, text: "" });
    expect((await rpc({ jsonrpc: "2.0", id: 9, result: {} })).status).toBe(202);
  });

  test("malformed JSON-RPC: parse error, batches, a missing method, a wrong version, non-object params, an unknown method", async () => {
    expect(await rpc("{not json")).toMatchObject({ status: 400, body: { id: null, error: { code: -32700 } } });
    expect(await rpc([{ jsonrpc: "2.0", id: 1, method: "ping" }])).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    expect(await rpc({ jsonrpc: "2.0", id: 1 })).toMatchObject({ status: 400, body: { id: 1, error: { code: -32600 } } });
    expect(await rpc({ jsonrpc: "1.0", id: 1, method: "ping" })).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    expect(await rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: [1] })).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    expect(await rpc({ jsonrpc: "2.0", id: { nested: true }, method: "ping" })).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    expect(await rpc({ jsonrpc: "2.0", id: 5, method: "resources/list" })).toMatchObject({ status: 200, body: { id: 5, error: { code: -32601 } } });
    expect(await rpc({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "projects_get", arguments: "x" } })).toMatchObject({ body: { id: 6, error: { code: -32602 } } });
    expect(await rpc({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "../projects_get" } })).toMatchObject({ body: { id: 7, error: { code: -32602, message: expect.stringContaining("Unknown tool") } } });
  });

  test("an oversized body is refused 413 before it is parsed; GET and DELETE are 405", async () => {
    const huge = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "chat_post", arguments: { text: "x".repeat(300_000) } } };
    expect((await rpc(huge)).status).toBe(413);
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${backend.siteUrl}/mcp`, { method, headers: { Authorization: `Bearer ${key}` } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("Allow")).toBe("POST");
    }
  });
});
