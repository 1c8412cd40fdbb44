/**
 * The squad as an A2A server (issue 45, part 1), end to end on the offline
 * backend with the SDK's own client (`@a2a-js/sdk/client`) and a scripted
 * model: the agent card is discovered at the department's well-known path;
 * a request Jarvis splits between Writer and Dev Bot is polled to completed
 * with their deliverables as artifacts; a question Jarvis asks is the task's
 * input-required status message and the client's next message answers it;
 * cancel stops the run and archives the card. Then the attacker's view: no
 * key, a key without the scope, another department's key and task ids,
 * publishing off, oversized parts and bodies, malformed JSON-RPC.
 */
import { Role, SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ChatMessage } from "../../convex/brain/model";
import { scriptedSquad, waitFor } from "./helpers";
import { isJarvis, lastUser } from "./scriptedModel";

const HERO = { title: "Hero copy", description: "The launch page's hero.", assignees: ["Writer"], instruction: "Write the hero copy." };
const FORM = { title: "Signup form", description: "The launch page's form.", assignees: ["Dev Bot"], instruction: "Build the signup form." };
const tool = (name: string, args: Record<string, unknown>) => `[TOOL: ${name} ARG: ${JSON.stringify(args)}]`;
const all = (messages: ChatMessage[]) => messages.map((m) => m.content).join("\n");
const isResults = (messages: ChatMessage[]) => lastUser(messages).startsWith("=== TOOL RESULTS ===");

function jarvis(messages: ChatMessage[]): string | { content: string; delayMs: number } {
  const text = all(messages);
  if (text.includes("Slow job")) return { content: "Still thinking.", delayMs: 3_000 };
  if (text.includes("Plan the offsite")) {
    if (!isResults(messages)) return tool("ask_question", { question: "Which city should the offsite be in?" });
    if (lastUser(messages).includes("moved the task")) return "The offsite is planned for Lisbon.";
    return lastUser(messages).includes("Lisbon") ? tool("update_task_status", { status: "review" }) : "Waiting for the city.";
  }
  if (text.includes("Draft the memo")) {
    if (isResults(messages)) return "Memo drafted in a formal tone.";
    return text.includes("Formal, please.") ? tool("update_task_status", { status: "review" }) : "Which tone would you like?";
  }
  if (!text.includes("Build the launch page")) return "Nothing to do.";
  // The parent thread's one line per delegated card says where it stands ("Jarvis delegated “Hero copy” to Writer: ready for review.").
  const ready = (title: string) => new RegExp(`delegated “${title}” to [^:\\n]*: ready for review`).test(text);
  // Both halves in: the card follows its subtasks to Review by itself (issue 42), so his move may find it there already.
  const bothReady = ready(HERO.title) && ready(FORM.title);
  if (isResults(messages)) return lastUser(messages).includes("moved the task") || bothReady ? "Summary: the hero copy and the signup form are ready." : "Split between Writer and Dev Bot.";
  if (bothReady) return tool("update_task_status", { status: "review" });
  if (text.includes(": ready for review")) return "Waiting for the other half.";
  return `Splitting it.\n${tool("delegate_task", HERO)}\n${tool("delegate_task", FORM)}`;
}

function specialist(messages: ChatMessage[]): string {
  const text = all(messages);
  const deliverable = text.includes("Write the hero copy") ? "Hero copy: Ship faster with Maestro." : text.includes("Build the signup form") ? "Signup form: email and password, built." : null;
  if (deliverable === null) return "Noted.";
  return isResults(messages) ? deliverable : tool("update_task_status", { status: "review" });
}

const squad = scriptedSquad((request) => (isJarvis(request.messages) ? jarvis(request.messages) : specialist(request.messages)));

let key: string;
let cardBase: string;

/** A fetch that sends `key` as the bearer token, as a client's own fetch would. */
function withKey(k: string): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${k}`);
    return await fetch(input, { ...init, headers });
  };
}

async function clientFor(k: string, base = cardBase): Promise<Client> {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: withKey(k) })] }));
  return await factory.createFromUrl(base);
}

const send = (text: string, taskId?: string, extraParts: unknown[] = []) =>
  SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }, ...extraParts], ...(taskId === undefined ? {} : { taskId }) } });

function asTask(result: unknown): Task {
  expect(result).toHaveProperty("status");
  return result as Task;
}

const textOf = (parts: Task["artifacts"][number]["parts"]) => parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");

async function pollUntil(client: Client, id: string, state: TaskState, also: (task: Task) => boolean = () => true): Promise<Task> {
  let last: Task | null = null;
  await waitFor(
    async () => {
      last = await client.getTask({ tenant: "", id, historyLength: 50 });
      return last.status?.state === state && also(last);
    },
    30_000,
    `the A2A task to be ${TaskState[state]}`,
  );
  return last!;
}

/** A new outside agent of `departmentId` and a key for it holding `scopes`. */
async function agentKey(departmentId: Id<"departments">, name: string, scopes: Array<"a2a:tasks" | "tasks:read">): Promise<string> {
  const agentId = await squad.member.mutation(api.agents.create, { departmentId, name, role: "Orchestrator", kind: "specialist", systemPrompt: "", isSquadLead: false, allowedTools: [] });
  await squad.member.mutation(api.agents.setRunsOutside, { agentId, runsOutside: true });
  return (await squad.member.mutation(api.agentApiKeys.create, { agentId, scopes })).key;
}

beforeAll(async () => {
  const { member: ada, departmentId } = squad;
  await ada.mutation(api.a2aServer.setEnabled, { departmentId, enabled: true });
  const settings = await ada.query(api.a2aServer.settings, { departmentId });
  expect(settings).toMatchObject({ enabled: true, path: "/a2a/product/", cardPath: "/a2a/product/.well-known/agent-card.json", scope: "a2a:tasks" });
  cardBase = `${squad.backend.siteUrl}${settings.path}`;
  key = await agentKey(departmentId, "Other Orchestrator", ["a2a:tasks"]);
});

describe("the squad as an A2A server, through the SDK's client", () => {
  test("card discovery: the squad lead as the agent, the roster as skills, the key's scope as the security scheme", async () => {
    const client = await clientFor(key);
    const card = await client.getAgentCard();
    expect(card.name).toBe("Jarvis (Product Squad)");
    expect(card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion])).toEqual([
      [cardBase, "JSONRPC", "1.0"],
      [cardBase, "JSONRPC", "0.3"],
    ]);
    expect(card.skills.map((s) => s.name)).toEqual(expect.arrayContaining(["Dev Bot", "Writer"]));
    expect(card.skills.map((s) => s.name)).not.toContain("Jarvis");
    expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: true });
    const scheme = card.securitySchemes.maestroAgentKey.scheme;
    expect(scheme?.$case).toBe("httpAuthSecurityScheme");
    expect(scheme?.$case === "httpAuthSecurityScheme" ? scheme.value.description : "").toContain('"a2a:tasks"');
  });

  test("a request Jarvis splits between Writer and Dev Bot: submitted or working, then completed with both deliverables and his summary as artifacts; the thread is the history", async () => {
    const client = await clientFor(key);
    const data = { data: { audience: "developers", deadline: "Friday" } };
    const first = asTask(await client.sendMessage(send("Build the launch page\nHero copy and a signup form, please.", undefined, [data])));
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(first.status?.state);
    expect(first.contextId).toBe(`a2a:${first.id}`);

    // The card is on the board for Jarvis, with the message as its request and the data part attached.
    const card = await squad.member.query(api.tasks.get, { taskId: first.id as Id<"tasks"> });
    expect(card).toMatchObject({ title: "Build the launch page", assigneeSessionKeys: ["agent:jarvis:product"] });
    expect(card.description).toContain("Hero copy and a signup form, please.");

    const done = await pollUntil(client, first.id, TaskState.TASK_STATE_COMPLETED, (t) => t.artifacts.length === 3);
    expect(done.artifacts.map((a) => [a.name, textOf(a.parts)])).toEqual(
      expect.arrayContaining([
        ["Hero copy", "Hero copy: Ship faster with Maestro."],
        ["Signup form", "Signup form: email and password, built."],
        ["Build the launch page", "Summary: the hero copy and the signup form are ready."],
      ]),
    );
    const attachment = done.history.find((m) => m.parts.some((p) => p.content?.$case === "url" && p.filename === "data-2.json"));
    expect(attachment?.role).toBe(Role.ROLE_USER);
    const url = attachment!.parts.find((p) => p.content?.$case === "url")!.content!;
    expect(await (await fetch(url.$case === "url" ? url.value : "")).json()).toEqual({ audience: "developers", deadline: "Friday" });
    expect(done.history.some((m) => m.role === Role.ROLE_AGENT && textOf(m.parts).includes("delegated “Hero copy” to Writer"))).toBe(true);

    // One correlation id end to end: the client's delegation envelope and the squad's steps under the card's id.
    const events = await squad.member.query(api.events.list, { departmentId: squad.departmentId, paginationOpts: { numItems: 100, cursor: null } });
    const delegate = events.page.find((e) => e.type === "a2a.delegate" && e.correlationId === `a2a:${first.id}`);
    expect(delegate?.data).toMatchObject({ a2a_task_id: first.id, a2a_context_id: `a2a:${first.id}` });
    // The trace of that id runs from the client's delegation into Jarvis's runs on the card.
    const trace = await squad.member.query(api.events.trace, { departmentId: squad.departmentId, correlationId: `a2a:${first.id}` });
    expect(trace.events.map((e) => e.type)).toContain("a2a.delegate");
    expect(trace.runs.length).toBeGreaterThan(0);
    expect(trace.runs.every((r) => r.taskId === first.id && r.agentSessionKey === "agent:jarvis:product")).toBe(true);
  });

  test("a question Jarvis asks is input-required with the question as the status message; the client's answer resumes his run to completed", async () => {
    const client = await clientFor(key);
    const first = asTask(await client.sendMessage(send("Plan the offsite")));
    const asking = await pollUntil(client, first.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asking.status!.message!.parts)).toBe("Which city should the offsite be in?");

    const answered = asTask(await client.sendMessage(send("Lisbon, please.", first.id)));
    expect(answered.id).toBe(first.id);
    expect(answered.status?.state).not.toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = await pollUntil(client, first.id, TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts.map((a) => textOf(a.parts))).toEqual(["The offsite is planned for Lisbon."]);
    const [card] = await squad.member.query(api.questions.listForTask, { taskId: first.id as Id<"tasks"> });
    expect(card).toMatchObject({ status: "answered", answer: "Lisbon, please." });
  });

  test("with nothing waiting, the client's next message goes to the squad lead in the card's thread and wakes him", async () => {
    const client = await clientFor(key);
    const first = asTask(await client.sendMessage(send("Draft the memo")));
    const runs = async () => await squad.member.query(api.runs.listForTask, { taskId: first.id as Id<"tasks"> });
    await waitFor(async () => (await runs()).some((r) => r.status === "completed"), 20_000, "Jarvis's first run");
    expect((await client.getTask({ tenant: "", id: first.id })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await client.sendMessage(send("Formal, please.", first.id));
    const done = await pollUntil(client, first.id, TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts.map((a) => textOf(a.parts))).toEqual(["Memo drafted in a formal tone."]);
    expect((await runs()).length).toBe(2);
    const clientLine = done.history.find((m) => textOf(m.parts) === "Formal, please.");
    expect(clientLine?.role).toBe(Role.ROLE_USER);
  });

  test("cancel stops the run and archives the card; a cancelled task takes no more messages and cannot be cancelled again", async () => {
    const client = await clientFor(key);
    const first = asTask(await client.sendMessage(send("Slow job")));
    await waitFor(async () => (await squad.member.query(api.runs.listForTask, { taskId: first.id as Id<"tasks"> })).some((r) => r.status === "running"), 20_000, "Jarvis's run");
    const canceled = await client.cancelTask({ tenant: "", id: first.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const runs = await squad.member.query(api.runs.listForTask, { taskId: first.id as Id<"tasks"> });
    expect(runs.map((r) => r.status)).toEqual(["aborted"]);
    expect((await squad.member.query(api.tasks.get, { taskId: first.id as Id<"tasks"> })).archivedAt).toBeDefined();
    expect((await client.getTask({ tenant: "", id: first.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ tenant: "", id: first.id, metadata: undefined })).rejects.toThrow(/already canceled/);
    await expect(client.sendMessage(send("One more thing", first.id))).rejects.toThrow(/canceled: it takes no more messages/);
  });
});

describe("the attacker's view", () => {
  const rpc = async (body: unknown, headers: Record<string, string> = { Authorization: `Bearer ${key}` }, base = cardBase) =>
    await fetch(base, { method: "POST", headers: { "Content-Type": "application/json", "A2A-Version": "1.0", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  const getTask = (id: string) => ({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } });

  test("no key, an unknown key, a key without the scope: 401, 401, 403, before any JSON-RPC is read", async () => {
    expect((await rpc(getTask("x"), {})).status).toBe(401);
    expect((await rpc(getTask("x"), {})).headers.get("WWW-Authenticate")).toContain("Bearer");
    expect((await rpc(getTask("x"), { Authorization: `Bearer mk_${"a".repeat(40)}` })).status).toBe(401);
    const readOnly = await agentKey(squad.departmentId, "Reader Bot", ["tasks:read"]);
    const refused = await rpc(getTask("x"), { Authorization: `Bearer ${readOnly}` });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toContain('"a2a:tasks"');
  });

  test("another department: its key is refused here (403), its task ids are unknown here, and its card is not published until it says so", async () => {
    const otherId = await squad.member.mutation(api.departments.create, { name: "Other Squad" });
    const other = (await squad.member.query(api.departments.listMine, {})).find((d) => d._id === otherId)!;
    const otherBase = `${squad.backend.siteUrl}/a2a/${other.slug}/`;
    expect((await fetch(`${otherBase}.well-known/agent-card.json`)).status).toBe(404);
    await squad.member.mutation(api.a2aServer.setEnabled, { departmentId: otherId, enabled: true });
    if (!(await squad.member.query(api.agents.list, { departmentId: otherId })).some((a) => a.isSquadLead)) {
      await squad.member.mutation(api.agents.create, { departmentId: otherId, name: "Lead", role: "Squad lead", kind: "lead", systemPrompt: "", isSquadLead: true, allowedTools: [] });
    }
    const otherKey = await agentKey(otherId, "Their Orchestrator", ["a2a:tasks"]);
    expect((await rpc(getTask("x"), { Authorization: `Bearer ${otherKey}` })).status).toBe(403);

    const theirs = asTask(await (await clientFor(otherKey, otherBase)).sendMessage(send("Their work")));
    const answer = (await (await rpc(getTask(theirs.id))).json()) as { error?: { code: number; message: string } };
    expect(answer.error?.code).toBe(-32001);
    const mine = await clientFor(key);
    await expect(mine.cancelTask({ tenant: "", id: theirs.id, metadata: undefined })).rejects.toThrow(/No such A2A task/);
    // A card of this department that was not opened over A2A is just as unknown.
    const plain = await squad.member.mutation(api.tasks.create, { departmentId: squad.departmentId, title: "Not an A2A task", description: "", assigneeSessionKeys: [] });
    expect(((await (await rpc(getTask(plain))).json()) as { error?: { code: number } }).error?.code).toBe(-32001);

    await squad.member.mutation(api.a2aServer.setEnabled, { departmentId: otherId, enabled: false });
    expect((await fetch(`${otherBase}.well-known/agent-card.json`)).status).toBe(404);
    expect((await rpc(getTask(theirs.id), { Authorization: `Bearer ${otherKey}` }, otherBase)).status).toBe(404);
  });

  test("malformed JSON-RPC, unknown methods and streaming are JSON-RPC errors; nothing reaches the board", async () => {
    const before = (await squad.member.query(api.tasks.list, { departmentId: squad.departmentId })).flatMap((c) => c.tasks).length;
    expect(((await (await rpc("{not json")).json()) as { error: { code: number } }).error.code).toBe(-32700);
    // Not JSON-RPC 2.0: the SDK's transport handler answers it as a malformed request (its RequestMalformedError, -32602).
    expect(((await (await rpc({ jsonrpc: "1.0", id: 1, method: "GetTask" })).json()) as { error: { code: number } }).error.code).toBe(-32602);
    expect(((await (await rpc({ jsonrpc: "2.0", id: 2, method: "DropTables", params: {} })).json()) as { error: { code: number } }).error.code).toBe(-32601);
    expect(((await (await rpc({ jsonrpc: "2.0", id: 3, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [] } } })).json()) as { error: { code: number } }).error.code).toBe(-32602);
    const stream = (await (await rpc({ jsonrpc: "2.0", id: 4, method: "SendStreamingMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] } } })).json()) as { id: number; error: { code: number } };
    expect(stream).toMatchObject({ id: 4, error: { code: -32004 } });
    const push = (await (await rpc({ jsonrpc: "2.0", id: 5, method: "CreateTaskPushNotificationConfig", params: { taskId: "x", url: "https://example.com/hook" } })).json()) as { error: { code: number } };
    expect(push.error.code).toBe(-32001);
    expect((await squad.member.query(api.tasks.list, { departmentId: squad.departmentId })).flatMap((c) => c.tasks).length).toBe(before);
  });

  test("oversized parts and bodies are refused, and nothing is stored for them", async () => {
    const before = (await squad.member.query(api.tasks.list, { departmentId: squad.departmentId })).flatMap((c) => c.tasks).length;
    const big = Buffer.alloc(1024 * 1024 + 1, 7).toString("base64");
    const part = (await (await rpc({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }, { raw: big, filename: "big.bin" }] } } })).json()) as {
      error: { code: number; message: string };
    };
    expect(part.error).toMatchObject({ code: -32602 });
    expect(part.error.message).toContain("at most 1048576 bytes");
    const tooMany = Array.from({ length: 11 }, (_, i) => ({ data: { i } }));
    const many = (await (await rpc({ jsonrpc: "2.0", id: 2, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }, ...tooMany] } } })).json()) as { error: { code: number } };
    expect(many.error.code).toBe(-32602);
    const huge = await rpc({ jsonrpc: "2.0", id: 3, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "y".repeat(2 * 1024 * 1024) }] } } });
    expect(huge.status).toBe(413);
    const long = (await (await rpc({ jsonrpc: "2.0", id: 4, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "z".repeat(10_001) }] } } })).json()) as { error: { code: number } };
    expect(long.error.code).toBe(-32602);
    expect((await squad.member.query(api.tasks.list, { departmentId: squad.departmentId })).flatMap((c) => c.tasks).length).toBe(before);
  });
});

describe("push notifications, checked as webhooks are", () => {
  afterEach(() => {
    delete process.env.MAESTRO_WEBHOOK_ALLOW_PRIVATE;
  });

  test("a push URL that points inward is refused (loopback, private, this machine's names), and nothing is saved", async () => {
    const client = await clientFor(key);
    const task = asTask(await client.sendMessage(send("Slow job, pushed")));
    for (const url of ["http://127.0.0.1:9/hook", "http://10.0.0.5/hook", "http://localhost/hook", "http://[::1]/hook", "http://2130706433/hook", "file:///etc/passwd"]) {
      await expect(client.createTaskPushNotificationConfig({ tenant: "", id: "p", taskId: task.id, url, token: "t", authentication: undefined }), url).rejects.toThrow(/(loopback or private|https:\/\/)/);
    }
    await expect(client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "" })).rejects.toThrow(/no such push notification config/);
    // SendMessage's own push config is checked the same way, before any card is made.
    const before = (await squad.member.query(api.tasks.list, { departmentId: squad.departmentId })).flatMap((c) => c.tasks).length;
    const inward = SendMessageRequest.fromJSON({
      message: { messageId: "m-push", role: "ROLE_USER", parts: [{ text: "Pushed inward" }] },
      configuration: { taskPushNotificationConfig: { url: "http://127.0.0.1:9/hook", token: "t" } },
    });
    await expect(client.sendMessage(inward)).rejects.toThrow(/loopback or private/);
    expect((await squad.member.query(api.tasks.list, { departmentId: squad.departmentId })).flatMap((c) => c.tasks).length).toBe(before);
    await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
  });

  test("with MAESTRO_WEBHOOK_ALLOW_PRIVATE=1, each state change of the card is pushed once, with the client's token, until it is final", async () => {
    process.env.MAESTRO_WEBHOOK_ALLOW_PRIVATE = "1";
    const received: Array<{ token: string | undefined; state: string }> = [];
    const receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        received.push({ token: request.headers["x-a2a-notification-token"] as string | undefined, state: (JSON.parse(body) as { task: { status: { state: string } } }).task.status.state });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/a2a-updates`;
      const client = await clientFor(key);
      const task = asTask(await client.sendMessage(send("Slow job, followed")));
      const config = await client.createTaskPushNotificationConfig({ tenant: "", id: "mine", taskId: task.id, url, token: "s3cret", authentication: undefined });
      expect(config).toMatchObject({ id: "mine", taskId: task.id, url });
      await waitFor(() => received.length >= 1, 10_000, "the first push");
      await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
      await waitFor(() => received.some((r) => r.state === "TASK_STATE_CANCELED"), 10_000, "the push of the cancel");
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(received.every((r) => r.token === "s3cret")).toBe(true);
      // Each state once, the final one last, and nothing after it.
      const states = received.map((r) => r.state);
      expect(new Set(states).size).toBe(states.length);
      expect(states.at(-1)).toBe("TASK_STATE_CANCELED");
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
