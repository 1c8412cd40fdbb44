/**
 * Docs that can't drift (issue 40, point 6): every `curl` line of
 * docs/api.md and docs/api-and-mcp.md, read from the markdown (so a new
 * example is picked up), runs in order against one offline backend with the
 * demo squad, with a key of Writer's holding every scope. Each answer must
 * have its documented status (200 unless the comment above says `→ <status>`)
 * and the fields its comment names: the keys of a `{"key": …}` it shows, and
 * the required fields of a contract it names ("the Channel", "[Message]").
 * Placeholders (`<message id>`, `<thread id>`, …) take ids earlier answers gave.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ConvexHttpClient } from "convex/browser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { API_SCOPES } from "../../convex/lib/apiKeys";
import { TaskState } from "@a2a-js/sdk";
import { artifact, startRemoteAgent, status, taskEvent } from "../fixtures/a2aRemoteAgent";
import { PROJECT_ROOT, seedDemoSquad, startTestBackend, waitFor } from "./helpers";

const DOCS = ["docs/api.md", "docs/api-and-mcp.md"];

/** The fields each contract always has (the data contracts in docs/api.md list them; checked below to be there). */
const CONTRACTS: Record<string, string[]> = {
  Message: ["id", "from", "type", "body", "mentions", "artifacts", "blocking", "importance", "created_at", "context", "channel_id", "reply_count"],
  Channel: ["id", "project_id", "name", "visibility", "created_by", "created_at", "archived"],
  Thread: ["id", "channel_id", "root_message_id", "created_by", "created_at", "reply_count"],
  DM: ["id", "participants", "created_at"],
  Project: ["id", "name", "slug", "owner", "created_at", "schema_version"],
  Agent: ["id", "name", "role", "endpoint_url", "capabilities", "owner", "project_id"],
};

interface Example {
  file: string;
  line: number;
  /** The curl command, continuation lines joined. */
  command: string;
  /** The comment lines right above it. */
  comment: string;
}

/** Every curl line in the ```sh blocks of `file`, with the comment lines just above it. */
function examplesIn(file: string): Example[] {
  const lines = readFileSync(path.join(PROJECT_ROOT, file), "utf8").split("\n");
  const out: Example[] = [];
  let inShell = false;
  let comment: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^```sh\s*$/.test(line)) {
      inShell = true;
      comment = [];
      continue;
    }
    if (line.startsWith("```")) {
      inShell = false;
      continue;
    }
    if (!inShell) continue;
    if (line.trim().startsWith("#")) {
      comment.push(line.trim());
      continue;
    }
    if (line.trim().startsWith("curl ")) {
      let command = line;
      const start = i;
      while (command.endsWith("\\")) command = `${command.slice(0, -1)} ${lines[++i].trim()}`;
      out.push({ file, line: start + 1, command, comment: comment.join("\n") });
      comment = [];
      continue;
    }
    if (line.trim() === "") comment = [];
  }
  return out;
}

/** A shell command line's words, as sh would split them: quotes, and `$NAME` expanded outside single quotes. */
function shellWords(command: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let i = 0;
  const expand = (): string => {
    const name = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(command.slice(i))![1];
    i += name.length + 1;
    if (!(name in vars)) throw new Error(`$${name} is not set in: ${command}`);
    return vars[name];
  };
  while (i < command.length) {
    const c = command[i];
    if (c === " " || c === "\t") {
      if (word !== null) words.push(word);
      word = null;
      i++;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? "") + command.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word = word ?? "";
      i++;
      while (command[i] !== '"') {
        if (command[i] === "$" && /[A-Za-z_]/.test(command[i + 1])) word += expand();
        else word += command[i++];
      }
      i++;
    } else if (c === "$" && /[A-Za-z_]/.test(command[i + 1])) {
      word = (word ?? "") + expand();
    } else {
      word = (word ?? "") + c;
      i++;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** The request a curl command makes (the flags the docs use: -s, -X, -H, -d). */
function curlRequest(words: string[]): { method: string; url: string; headers: Record<string, string>; body?: string } {
  expect(words[0]).toBe("curl");
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word === "-s") continue;
    if (word === "-X") method = words[++i];
    else if (word === "-H") {
      const [name, ...value] = words[++i].split(":");
      headers[name.trim()] = value.join(":").trim();
    } else if (word === "-d") body = words[++i];
    else if (word.startsWith("-")) throw new Error(`curl flag ${word} is not one the docs test knows`);
    else url = word;
  }
  if (url === undefined) throw new Error("no URL");
  // curl -d sends a form type; the API reads the body as JSON whatever the type.
  return { method: method ?? (body === undefined ? "GET" : "POST"), url, headers, body };
}

/** What an example's comment documents: its status, the keys of a `{"key": …}` it shows, and the contracts it names. */
function documented(comment: string): { status: number; keys: string[]; contracts: string[] } {
  const status = Number(/→\s*(\d{3})/.exec(comment)?.[1] ?? 200);
  // The last line of the comment that shows an answer's object ({"marked": 1}, {"channels": [Channel]}, …).
  const shown = comment.split("\n").filter((l) => /\{"/.test(l)).at(-1) ?? "";
  const top = shown.slice(shown.indexOf("{"));
  const keys = [...top.matchAll(/[{,]\s*"([a-z_]+)"/g)].map((m) => m[1]).filter((k) => !/^(url|task_id|file_id)$/.test(k));
  const contracts = Object.keys(CONTRACTS).filter((name) => new RegExp(`(the|Answers the|\\[)\\s*${name}\\b`).test(comment));
  return { status, keys, contracts };
}

type Backend = Awaited<ReturnType<typeof startTestBackend>>;
let backend: Backend;
let ada: ConvexHttpClient;
let departmentId: Id<"departments">;
let key: string;

beforeAll(async () => {
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  ({ member: ada, departmentId } = await seedDemoSquad(backend));
  const writer = (await ada.query(api.agents.list, { departmentId })).find((a) => a.name === "Writer")!;
  ({ key } = await ada.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: [...API_SCOPES] }));
  // The A2A examples hand work to the demo squad, which publishes its agent card (off by default).
  await ada.mutation(api.a2aServer.setEnabled, { departmentId, enabled: true });
}, 60_000);

afterAll(async () => {
  await backend?.stop();
});

describe("the docs' examples", () => {
  test("the data contracts in docs/api.md list every field the test requires", () => {
    const text = readFileSync(path.join(PROJECT_ROOT, "docs/api.md"), "utf8");
    const block = text.slice(text.indexOf("## Data contracts"), text.indexOf("## Projects"));
    for (const [name, fields] of Object.entries(CONTRACTS)) {
      const at = block.indexOf(`// ${name}`);
      expect(at, name).toBeGreaterThan(-1);
      const shape = block.slice(at, block.indexOf("\n\n", at) === -1 ? undefined : block.indexOf("\n\n", at));
      for (const field of fields) expect(shape, `${name}.${field}`).toContain(`"${field}"`);
    }
  });

  test("every curl example answers with its documented status and fields", async () => {
    const examples = DOCS.flatMap(examplesIn);
    expect(examples.length).toBeGreaterThan(25);
    const task = await ada.mutation(api.tasks.create, { departmentId, title: "Launch page", description: "", priority: "medium", tags: [], assigneeSessionKeys: [] });
    const ids: Record<string, string> = { "<person>": "Ada", "<task id>": task, "<next_cursor>": "" };
    const failures: string[] = [];
    for (const example of examples) {
      const where = `${example.file}:${example.line}`;
      const missing = [...new Set([...example.command.matchAll(/<[a-z_ ]+>/g)].map((m) => m[0]))].filter((p) => !(p in ids));
      // A run waiting on an external call exists only while a model called web_fetch: without one, the call is unknown (404).
      const noRun = missing.length === 1 && missing[0] === "<run id>";
      if (missing.length > 0 && !noRun) {
        failures.push(`${where}: no earlier answer gave ${missing.join(", ")}`);
        continue;
      }
      let command = example.command;
      for (const [placeholder, value] of Object.entries(noRun ? { ...ids, "<run id>": "k57000000000000000000000000000r1" } : ids)) command = command.split(placeholder).join(value);
      const request = curlRequest(shellWords(command, { MAESTRO: backend.siteUrl, KEY: key }));
      const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
      const text = await response.text();
      const want = documented(example.comment);
      const status = noRun ? 404 : want.status;
      if (response.status !== status) {
        failures.push(`${where}: ${request.method} ${request.url} answered ${response.status}, documented ${status}: ${text.slice(0, 200)}`);
        continue;
      }
      expect(response.headers.get("Content-Type"), where).toMatch(/application\/json/);
      const body = JSON.parse(text) as Record<string, unknown>;
      if (status !== 200) {
        if (typeof body.error !== "string") failures.push(`${where}: a refusal without {"error"}`);
        continue;
      }
      for (const field of want.keys) if (!(field in body)) failures.push(`${where}: no "${field}" in ${text.slice(0, 200)}`);
      for (const contract of want.contracts) {
        const value = body[contract === "Message" ? "messages" : contract === "Channel" ? "channels" : contract === "Agent" ? "agents" : ""] ?? body;
        const sample = (Array.isArray(value) ? value[0] : value) as Record<string, unknown> | undefined;
        if (sample === undefined) continue;
        for (const field of CONTRACTS[contract]) if (!(field in sample)) failures.push(`${where}: its ${contract} has no "${field}"`);
      }
      // Ids later examples name.
      if (request.method === "POST" && /\/threads$/.test(request.url)) ids["<thread id>"] = String(body.id);
      if (request.method === "POST" && /\/messages$/.test(request.url)) ids["<message id>"] = String(body.id);
      if (request.method === "POST" && /\/dms$/.test(request.url)) ids["<dm id>"] = String(body.id);
      if (request.method === "POST" && /\/tasks$/.test(request.url)) ids["<task id>"] = String(body.id);
      // The A2A task a SendMessage example opened (A2A 1.0 answers {"result": {"task": …}}).
      const sent = (body.result as { task?: { id?: unknown } } | undefined)?.task?.id;
      if (request.method === "POST" && /\/a2a\//.test(request.url) && typeof sent === "string") ids["<squad task id>"] = sent;
      // The cursor the next example pages on with: this answer's (none, "", when it has no more).
      if ("next_cursor" in body) ids["<next_cursor>"] = typeof body.next_cursor === "string" ? body.next_cursor : "";
      // Every time is whole milliseconds, and an agent's endpoint_url is on the origin the request came to.
      for (const match of text.matchAll(/"(created_at|last_message_at|last_reply_at|since|expires_at)":(\d+(?:\.\d+)?)/g)) {
        if (!Number.isInteger(Number(match[2]))) failures.push(`${where}: ${match[1]} ${match[2]} is not whole milliseconds`);
      }
      for (const match of text.matchAll(/"endpoint_url":"([^"]+)"/g)) {
        if (!match[1].startsWith(`${backend.siteUrl}/`)) failures.push(`${where}: endpoint_url ${match[1]} is not on ${backend.siteUrl}`);
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  test("an unknown path answers 404 {\"error\"} JSON on the offline backend too", async () => {
    const response = await fetch(`${backend.siteUrl}/no/such/route`, { headers: { Authorization: `Bearer ${key}` } });
    expect(response.status).toBe(404);
    expect(response.headers.get("Content-Type")).toMatch(/application\/json/);
    expect(((await response.json()) as { error: string }).error).toMatch(/No such endpoint/);
  });
});

/** The ```ts block under `heading` in docs/api-and-mcp.md. */
function tsBlockUnder(heading: string): string {
  const text = readFileSync(path.join(PROJECT_ROOT, "docs/api-and-mcp.md"), "utf8");
  const section = text.slice(text.indexOf(heading));
  const start = section.indexOf("```ts\n") + "```ts\n".length;
  return section.slice(start, section.indexOf("```", start));
}

describe("the docs' A2A example", () => {
  test("Add an A2A agent to the squad: the script adds the SDK's own server by its card, and a card assigned to it reaches Review with its artifact", async () => {
    const remote = await startRemoteAgent(({ context, bus, taskId, contextId }) => {
      bus.publish(taskEvent(context, TaskState.TASK_STATE_WORKING));
      bus.publish(artifact(taskId, contextId, "brief.md", "Acme, Globex and Initech."));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
    });
    const allowed = process.env.MAESTRO_WEBHOOK_ALLOW_PRIVATE;
    process.env.MAESTRO_WEBHOOK_ALLOW_PRIVATE = "1";
    try {
      // The block as written, but for its imports and the client it makes (Ada's, already signed in), and the agent's address (here, on loopback).
      const code = tsBlockUnder("### Add an A2A agent to the squad")
        .split("\n")
        .filter((line) => !/^(import |const client = |client\.setAuth)/.test(line))
        .join("\n")
        .split("https://agents.example.com/.well-known/agent-card.json")
        .join(remote.cardUrl);
      const run = new Function("client", "api", "departmentId", `return (async () => {\n${code}\nreturn scout;\n})();`) as (client: ConvexHttpClient, a: typeof api, d: Id<"departments">) => Promise<{ agentId: Id<"agents">; name: string; skills: Array<{ name: string }> }>;
      const scout = await run(ada, api, departmentId);
      expect(scout).toMatchObject({ name: "Research Scout", skills: [{ name: "Research" }] });
      const tasks = async () => (await ada.query(api.tasks.list, { departmentId })).flatMap((column) => column.tasks);
      await waitFor(async () => (await tasks()).some((t) => t.title === "Research the market" && t.status === "review"), 20_000, "the card in Review");
      const card = (await tasks()).find((t) => t.title === "Research the market")!;
      const thread = await ada.query(api.messages.list, { taskId: card._id, paginationOpts: { numItems: 20, cursor: null } });
      expect(thread.page.some((m) => m.content.includes("Acme, Globex and Initech."))).toBe(true);
      expect(remote.texts[0]).toContain("Task: Research the market");
    } finally {
      if (allowed === undefined) delete process.env.MAESTRO_WEBHOOK_ALLOW_PRIVATE;
      else process.env.MAESTRO_WEBHOOK_ALLOW_PRIVATE = allowed;
      await remote.close();
    }
  }, 60_000);
});
