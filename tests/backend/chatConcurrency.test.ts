/**
 * 100 agents posting and reading the #maestro chat at once, each through its
 * own HTTP client and API key (the MCP endpoints), on the offline backend:
 * no error, no lost or duplicated message, ids strictly increasing, and each
 * agent's getNew sequence returns every message of the session exactly once.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { agentsWithKeys, PROJECT_ROOT, seedDemoSquad, startTestBackend } from "./helpers";

const AGENTS = 100;
const POSTS_PER_AGENT = 5;

type Backend = Awaited<ReturnType<typeof startTestBackend>>;
let backend: Backend;
let ownerToken: string;
const keys: Array<{ name: string; key: string }> = [];

beforeAll(async () => {
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  const { member: ada, departmentId, token } = await seedDemoSquad(backend);
  ownerToken = token;
  const created = await agentsWithKeys(ada, departmentId, { count: AGENTS, prefix: "Chatter", allowedTools: ["chat.post", "chat.getNew"] });
  keys.push(...created.map((key, i) => ({ name: `chatter-${String(i).padStart(3, "0")}`, key })));
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

async function call<T>(key: string, tool: "chat.post" | "chat.getNew", body: unknown): Promise<T> {
  const response = await fetch(`${backend.siteUrl}/mcp/${tool}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`${tool} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

type Message = { id: number; author: string; text: string };

test("100 agents post and read at once: nothing lost, nothing twice, ids strictly increasing", async () => {
  const received = new Map<string, Message[]>();
  const posted: Array<{ id: number; author: string; text: string }> = [];
  await Promise.all(
    keys.map(async ({ name, key }) => {
      const mine: Message[] = [];
      received.set(name, mine);
      for (let i = 0; i < POSTS_PER_AGENT; i++) {
        const text = `${name} says ${i}`;
        const result = await call<{ id: number; success: boolean }>(key, "chat.post", { text });
        expect(result.success).toBe(true);
        posted.push({ id: result.id, author: `@${name}`, text });
        const batch = await call<{ messages: Message[]; newPointer: number }>(key, "chat.getNew", {});
        mine.push(...batch.messages);
      }
    }),
  );
  // Drain: everyone reads what arrived after their last read.
  await Promise.all(
    keys.map(async ({ name, key }) => {
      const batch = await call<{ messages: Message[]; newPointer: number }>(key, "chat.getNew", {});
      received.get(name)!.push(...batch.messages);
      const empty = await call<{ messages: Message[]; newPointer: number }>(key, "chat.getNew", {});
      expect(empty.messages).toEqual([]);
      expect(empty.newPointer).toBe(batch.messages.at(-1)?.id ?? empty.newPointer);
    }),
  );

  const ids = posted.map((p) => p.id).sort((a, b) => a - b);
  expect(new Set(ids).size).toBe(AGENTS * POSTS_PER_AGENT);
  const all = (await fetch(`${backend.siteUrl}/api/chat`, { headers: { Authorization: `Bearer ${ownerToken}` } }).then((r) => r.json())) as {
    messages: Message[];
  };
  expect(all.messages.map((m) => m.id)).toEqual(ids);
  for (let i = 1; i < all.messages.length; i++) expect(all.messages[i].id).toBeGreaterThan(all.messages[i - 1].id);
  for (const p of posted) expect(all.messages.find((m) => m.id === p.id)).toMatchObject({ author: p.author, text: p.text });

  for (const [name, messages] of received) {
    const got = messages.map((m) => m.id);
    // Every message exactly once, in increasing order.
    expect(got, name).toEqual(ids);
  }
}, 120_000);
