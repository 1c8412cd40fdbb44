/**
 * The MCP server for agents outside Maestro, end to end: the offline backend
 * over the project's own convex/, an API key created by an admin through the
 * public mutation, and tools/mcp/server.ts spawned over stdio and driven by
 * the SDK's own `Client` + `StdioClientTransport`.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ConvexHttpClient } from "convex/browser";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ApiScope } from "../../convex/lib/apiKeys";
import { PROJECT_ROOT, seedDemoSquad, startTestBackend } from "./helpers";
import type { ApiBody } from "../fixtures/messagingApi";

type Backend = Awaited<ReturnType<typeof startTestBackend>>;

let backend: Backend;
let ada: ConvexHttpClient;
let departmentId: Id<"departments">;
let devBot: Id<"agents">;
/** Clients to close after each test (which ends their server processes). */
const open: Client[] = [];

beforeAll(async () => {
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  ({ member: ada, departmentId } = await seedDemoSquad(backend));
  devBot = (await ada.query(api.agents.list, { departmentId })).find((a) => a.name === "Dev Bot")!._id;
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
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

/** Spawns the MCP server as an MCP client would, and connects to it. */
async function connect(agentKey: string, args = ["--import", "tsx", "tools/mcp/server.ts"]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: PROJECT_ROOT,
    env: serverEnv(agentKey),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "maestro-mcp-test", version: "1.0.0" });
  await client.connect(transport);
  open.push(client);
  return { client, stderr: () => stderr };
}

async function newKey(scopes?: ApiScope[]): Promise<{ key: string; keyId: Id<"agentApiKeys"> }> {
  return await ada.mutation(api.agentApiKeys.create, { agentId: devBot, scopes });
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe("text");
  return (content[0] as { text: string }).text;
}

const CHAT_TOOLS = ["chat.getNew", "chat.post"];
const MESSAGING_TOOLS = [
  "agents.get",
  "channels.create",
  "channels.get",
  "channels.members",
  "channels.messages",
  "channels.topic",
  "dms.messages",
  "dms.send",
  "inbox.read",
  "messages.post",
  "messages.read",
  "projects.agents",
  "projects.channels",
  "projects.create",
  "projects.get",
  "runs.tool_output",
  "runs.waiting_tool_calls",
  "tasks.create",
  "threads.create",
  "threads.get",
  "threads.messages",
];
const ALL_TOOLS = [...CHAT_TOOLS, ...MESSAGING_TOOLS].sort();

describe("maestro-mcp over stdio against the offline backend", () => {
  test("lists chat.post, chat.getNew and the messaging tools under the maestro.chat server", async () => {
    const { key } = await newKey();
    const { client } = await connect(key);
    expect(client.getServerVersion()).toMatchObject({ name: "maestro.chat" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
    const post = tools.find((t) => t.name === "chat.post")!;
    expect(post.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
  });

  test("posts as the key's agent, reads a human's post once, and answers the same inputs with the same text", async () => {
    const { key } = await newKey();
    const { client } = await connect(key);

    const posted = await client.callTool({ name: "chat.post", arguments: { text: "hello from outside" } });
    expect(posted.isError).toBeFalsy();
    const postedText = textOf(posted);
    expect(postedText).toMatch(/^\{"id":\d+,"success":true\}$/);
    const { id } = JSON.parse(postedText) as { id: number };
    expect(posted.structuredContent).toEqual({ id, success: true });

    const human = await ada.mutation(api.chat.postAsHuman, { departmentId, text: "hi from Ada" });
    const first = await client.callTool({ name: "chat.getNew", arguments: {} });
    expect(first.isError).toBeFalsy();
    const firstBody = JSON.parse(textOf(first)) as { messages: Array<{ id: number; ts: string; author: string; text: string }>; newPointer: number };
    expect(firstBody.messages.map((m) => ({ id: m.id, author: m.author, text: m.text }))).toEqual([
      { id, author: "@dev-bot", text: "hello from outside" },
      { id: human.id, author: "@human", text: "hi from Ada" },
    ]);
    expect(firstBody.newPointer).toBe(human.id);
    expect(textOf(first)).toBe(JSON.stringify(firstBody)); // key order as the spec writes it

    const second = await client.callTool({ name: "chat.getNew", arguments: {} });
    expect(textOf(second)).toBe(`{"messages":[],"newPointer":${human.id}}`);
    const third = await client.callTool({ name: "chat.getNew", arguments: {} });
    expect(textOf(third)).toBe(textOf(second));

    // Another server for the same agent: the same tools, the same answer.
    const other = await connect(key);
    expect(await other.client.listTools()).toEqual(await client.listTools());
    expect(textOf(await other.client.callTool({ name: "chat.getNew", arguments: {} }))).toBe(textOf(second));
  });

  test("the npx launcher (tools/mcp/bin.js) serves the same tools", async () => {
    const { key } = await newKey();
    const { client } = await connect(key, ["tools/mcp/bin.js"]);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
  });

  test("a revoked key makes the tools fail with the endpoint's 401", async () => {
    const { key, keyId } = await newKey();
    const { client } = await connect(key);
    await ada.mutation(api.agentApiKeys.revoke, { keyId });
    for (const [name, args] of [
      ["chat.post", { text: "still here?" }],
      ["chat.getNew", {}],
    ] as const) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBe(true);
      expect(JSON.parse(textOf(result))).toEqual({ error: "This API key has been revoked.", status: 401 });
    }
  });

  test("an empty text is refused by the tool's schema before Maestro is asked", async () => {
    const { key } = await newKey();
    const { client } = await connect(key);
    const result = await client.callTool({ name: "chat.post", arguments: { text: "" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Invalid arguments for tool chat\.post/);
  });

  test("without MAESTRO_AGENT_KEY the server exits with a message", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "tools/mcp/server.ts"], {
      cwd: PROJECT_ROOT,
      env: serverEnv(undefined),
      input: "",
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("MAESTRO_AGENT_KEY is not set");
  });

  test("with chat disabled by an admin, a freshly started server registers no chat tools (messaging stays)", async () => {
    const { key } = await newKey();
    const running = await connect(key);
    await ada.mutation(api.chat.updateSettings, { departmentId, enabled: false });
    try {
      const { client, stderr } = await connect(key);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(MESSAGING_TOOLS);
      const call = await client.callTool({ name: "chat.post", arguments: { text: "anyone?" } });
      expect(call.isError).toBe(true);
      expect(stderr()).toContain("chat is disabled by configuration");

      // A server started before the switch finds the endpoints closed.
      const late = await running.client.callTool({ name: "chat.post", arguments: { text: "anyone?" } });
      expect(JSON.parse(textOf(late))).toEqual({ error: "Chat disabled by configuration", status: 404 });
    } finally {
      await ada.mutation(api.chat.updateSettings, { departmentId, enabled: true });
    }
    const { client } = await connect(key);
    expect((await client.listTools()).tools).toHaveLength(ALL_TOOLS.length);
  });

  test("the messaging tools: a channel, a post, a thread reply by a person, a DM, the inbox, mark read — through the real HTTP API", async () => {
    const { key } = await newKey();
    const { client } = await connect(key);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      return JSON.parse(textOf(result)) as ApiBody;
    };
    const channel = await call("channels.create", { name: "mcp-room", topic: "from outside" });
    expect(channel).toMatchObject({ id: expect.any(String), name: "mcp-room", created_by: "Dev Bot", project_id: expect.any(String) });
    expect(await call("channels.get", { channel: "#mcp-room" })).toMatchObject({ id: channel.id, topic: "from outside", members: ["Dev Bot"] });
    expect(await call("channels.topic", { channel: "mcp-room", topic: "from the MCP" })).toMatchObject({ topic: "from the MCP" });
    expect((await call("channels.members", { channel: "mcp-room", add: ["Ada"] })).members.toSorted()).toEqual(["Ada", "Dev Bot"]);
    expect((await call("projects.channels", {})).channels.map((c) => c.name)).toContain("mcp-room");
    expect((await call("projects.get", {})).id).toBe(channel.project_id);
    const me = await call("agents.get", { agent: "me" });
    expect(me).toMatchObject({ name: "Dev Bot", project_id: channel.project_id, endpoint_url: expect.stringMatching(/\/agents\/.+\/inbox$/) });
    expect((await call("projects.agents", {})).agents.map((a) => a.name)).toContain("Dev Bot");
    const posted = await call("messages.post", { channel: "mcp-room", body: "Build is green", importance: "high", client_message_id: "once" });
    expect((await call("messages.post", { channel: "mcp-room", body: "Build is green", importance: "high", client_message_id: "once" })).id).toBe(posted.id);
    await ada.mutation(api.channelMessages.reply, { channelId: channel.id as Id<"channels">, messageId: posted.id as Id<"channelMessages">, body: "Ship it, @Dev Bot" });
    const thread = await call("threads.messages", { message_id: posted.id });
    expect(thread.messages.map((m) => m.body)).toEqual(["Build is green", "Ship it, @Dev Bot"]);
    // The same id under the name threads.get gives it.
    expect((await call("threads.messages", { thread_id: posted.id })).messages.map((m) => m.body)).toEqual(["Build is green", "Ship it, @Dev Bot"]);
    expect(await call("threads.get", { thread_id: posted.id })).toMatchObject({ id: posted.id, root_message_id: posted.id, reply_count: 1 });
    expect(await call("threads.create", { root_message_id: posted.id })).toMatchObject({ id: posted.id, channel_id: channel.id });
    expect((await call("channels.messages", { channel: channel.id, limit: 5 })).messages.map((m) => m.reply_count)).toEqual([1]);
    // The spec's mentions[]: a person named besides the body's @mentions; an unknown name posts nothing.
    expect((await call("messages.post", { channel: "mcp-room", body: "Release notes are up", mentions: ["Ada"] })).mentions).toEqual(["Ada"]);
    const unknown = await client.callTool({ name: "messages.post", arguments: { channel: "mcp-room", body: "x", mentions: ["Nobody"] } });
    expect(JSON.parse(textOf(unknown))).toMatchObject({ status: 400, error: expect.stringMatching(/Cannot mention "Nobody"/) });

    const dm = await call("dms.send", { to: ["Ada"], body: "Deploying now", blocking: true });
    expect((await call("dms.messages", { dm: dm.id })).messages.map((m) => m.body)).toEqual(["Deploying now"]);
    const inbox = await call("inbox.read", {});
    expect(inbox.messages.map((m) => [m.from, m.body, m.direct])).toEqual([["Ada", "Ship it, @Dev Bot", true]]);
    expect(await call("messages.read", { message_id: inbox.messages[0].id })).toEqual({ marked: 1 });
    expect((await call("inbox.read", {})).messages).toEqual([]);

    // Refusals come back as tool errors with the endpoint's status.
    const refused = await client.callTool({ name: "channels.messages", arguments: { channel: "no-such-room" } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse(textOf(refused))).toEqual({ error: "No channel #no-such-room in this department.", status: 404 });
    // runs.tool_output reaches POST /runs/{id}/tool-output (its success is tests/convex/toolOutput.test.ts's).
    const noRun = await client.callTool({ name: "runs.tool_output", arguments: { run_id: "no-such-run", tool: "web_fetch", tool_call_id: "no-such-run:0", output: "x" } });
    expect(JSON.parse(textOf(noRun))).toEqual({ error: "Run not found.", status: 404 });
    // runs.waiting_tool_calls reaches GET /tool-calls/waiting: nothing waits here (its listing is tests/convex/toolOutput.test.ts's).
    expect(await call("runs.waiting_tool_calls", { limit: 5 })).toEqual({ tool_calls: [], next_cursor: null });
    const badCursor = await client.callTool({ name: "runs.waiting_tool_calls", arguments: { cursor: "not-a-cursor" } });
    expect(JSON.parse(textOf(badCursor))).toMatchObject({ status: 400, error: expect.stringContaining('"cursor"') });
    // tasks.create reaches POST /tasks: a card assigned by name; an unknown name makes nothing.
    const made = await call("tasks.create", { title: "Write the MCP notes", priority: "high", assignees: ["Writer"] });
    expect(made).toMatchObject({ title: "Write the MCP notes", status: "assigned", priority: "high", assignees: ["Writer"], created_by: "Dev Bot" });
    const nobody = await client.callTool({ name: "tasks.create", arguments: { title: "Nope", assignees: ["Nobody"] } });
    expect(JSON.parse(textOf(nobody))).toMatchObject({ status: 400, error: expect.stringContaining('Unknown assignee "Nobody"') });
  });

  test("a key made with read scopes only: the read tools answer, the write tools and chat.post are refused 403 naming the scope", async () => {
    const { key } = await newKey(["messages:read", "channels:read", "chat:read"]);
    const { client } = await connect(key);
    expect((await client.callTool({ name: "inbox.read", arguments: {} })).isError).toBeFalsy();
    for (const [name, args, scope] of [
      ["messages.post", { channel: "general", body: "nope" }, "messages:write"],
      ["channels.create", { name: "nope" }, "channels:manage"],
      ["chat.post", { text: "nope" }, "chat:write"],
      ["runs.tool_output", { run_id: "any", tool: "web_fetch", tool_call_id: "any:0", output: "nope" }, "tools:run"],
      ["runs.waiting_tool_calls", {}, "tools:run"],
      ["tasks.create", { title: "nope" }, "tasks:write"],
    ] as const) {
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError, name).toBe(true);
      expect(JSON.parse(textOf(refused))).toMatchObject({ status: 403, error: expect.stringContaining(`"${scope}" scope`) });
    }
  });
});
