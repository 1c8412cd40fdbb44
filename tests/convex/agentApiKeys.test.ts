/**
 * Per-agent API keys (admins create, list and revoke them; only a hash is
 * stored) and the `/mcp/*` HTTP endpoints an agent outside Maestro reaches
 * with one.
 */
import { afterEach, describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { API_KEY_DISPLAY_CHARS, API_SCOPES, generateApiKey, hashApiKey, isApiKeyShape } from "../../convex/lib/apiKeys";
import { MAX_ACTIVE_KEYS_PER_AGENT } from "../../convex/records/agentApiKeys";
import { MAX_READ_MESSAGES } from "../../convex/records/chat";
import { sha256Hex } from "../../convex/lib/sha256";
import { AGENTS, demoSquad, expectError, userIdOf, type TestConvex } from "./setup";

// Functions read the environment through the same object: change it in place, and put it back.
afterEach(() => {
  delete process.env.MAESTRO_CONFIG_JSON;
});

const KEY_PATTERN = /^mk_[a-z2-7]{40}$/;

async function squad() {
  const { t, departmentId, admin, grace, other } = await demoSquad({ grace: true, other: true });
  const idOf = async (sessionKey: string): Promise<Id<"agents">> =>
    await t.run(async (ctx) => (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", sessionKey)).unique())!._id);
  return { t, departmentId, admin, grace, other, devBot: await idOf(AGENTS.devBot), archie: await idOf(AGENTS.archie) };
}

async function storedKeys(t: TestConvex) {
  return await t.run(async (ctx) => await ctx.db.query("agentApiKeys").collect());
}

async function webCryptoSha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

describe("sha256Hex", () => {
  test("matches Web Crypto on empty, block-boundary, multi-block and non-ASCII input", async () => {
    for (const text of ["", "abc", "a".repeat(55), "a".repeat(56), "a".repeat(64), "x".repeat(1000), "héllo ✓ 😀", generateApiKey()]) {
      expect(sha256Hex(text)).toBe(await webCryptoSha256(text));
    }
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("generateApiKey", () => {
  test("mk_ and 40 base32 characters, different every time", () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey()));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toMatch(KEY_PATTERN);
      expect(isApiKeyShape(key)).toBe(true);
    }
    expect(isApiKeyShape("mk_short")).toBe(false);
    expect(isApiKeyShape(`MK_${"a".repeat(40)}`)).toBe(false);
  });
});

describe("agentApiKeys.create", () => {
  test("an admin gets the plaintext once; only its SHA-256 and its first 12 characters are stored", async () => {
    const { t, departmentId, admin, devBot } = await squad();
    const created = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    expect(created.key).toMatch(KEY_PATTERN);
    expect(created.prefix).toBe(created.key.slice(0, API_KEY_DISPLAY_CHARS));
    expect(created.prefix).toHaveLength(12);

    const [stored] = await storedKeys(t);
    expect(stored).toMatchObject({
      _id: created.keyId,
      agentId: devBot,
      departmentId,
      hash: await webCryptoSha256(created.key),
      prefix: created.prefix,
      createdBy: userIdOf(t, "Ada"),
    });
    expect(stored.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toHaveProperty("revokedAt");
    // The plaintext is nowhere in the database.
    expect(JSON.stringify(await t.run(async (ctx) => await ctx.db.query("agentApiKeys").collect()))).not.toContain(created.key);

    const second = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    expect(second.key).not.toBe(created.key);
  });

  test("architects are refused: they take no part in chat", async () => {
    const { t, admin, archie } = await squad();
    await expectError(admin.mutation(api.agentApiKeys.create, { agentId: archie }), "FORBIDDEN", "Architects take no part in chat");
    expect(await storedKeys(t)).toEqual([]);
  });

  test("members who are not admins, anonymous callers and other departments are refused", async () => {
    const { t, grace, other, devBot } = await squad();
    await expectError(grace.mutation(api.agentApiKeys.create, { agentId: devBot }), "FORBIDDEN", "Only owners and admins");
    await expectError(t.mutation(api.agentApiKeys.create, { agentId: devBot }), "UNAUTHENTICATED");
    await expectError(other.member.mutation(api.agentApiKeys.create, { agentId: devBot }), "FORBIDDEN");
    expect(await storedKeys(t)).toEqual([]);
  });

  test("an agent that does not exist is NOT_FOUND", async () => {
    const { t, admin, departmentId } = await squad();
    const gone = await t.run(async (ctx) => {
      const id = await ctx.db.insert("agents", {
        departmentId,
        name: "Gone",
        nameKey: "gone",
        role: "x",
        kind: "coder",
        sessionKey: "agent:gone:product",
        status: "idle",
        isSquadLead: false,
        allowedTools: [],
        systemPrompt: "",
      });
      await ctx.db.delete("agents", id);
      return id;
    });
    await expectError(admin.mutation(api.agentApiKeys.create, { agentId: gone }), "NOT_FOUND");
  });

  test(`at most ${MAX_ACTIVE_KEYS_PER_AGENT} active keys per agent; revoking one makes room`, async () => {
    const { admin, devBot } = await squad();
    const ids = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS_PER_AGENT; i++) ids.push((await admin.mutation(api.agentApiKeys.create, { agentId: devBot })).keyId);
    await expectError(admin.mutation(api.agentApiKeys.create, { agentId: devBot }), "CONFLICT", "revoke one first");
    await admin.mutation(api.agentApiKeys.revoke, { keyId: ids[0] });
    await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
  });
});

describe("agentApiKeys.list and revoke", () => {
  test("admins see prefix, creation, creator and revocation, newest first, never the hash", async () => {
    const { admin, devBot } = await squad();
    const first = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    const second = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    await admin.mutation(api.agentApiKeys.revoke, { keyId: first.keyId });

    const keys = await admin.query(api.agentApiKeys.list, { agentId: devBot });
    expect(keys).toEqual([
      { _id: second.keyId, prefix: second.prefix, createdAt: expect.any(Number), createdByName: "Ada", revokedAt: null, scopes: [...API_SCOPES] },
      { _id: first.keyId, prefix: first.prefix, createdAt: expect.any(Number), createdByName: "Ada", revokedAt: expect.any(Number), scopes: [...API_SCOPES] },
    ]);
    const serialized = JSON.stringify(keys);
    expect(serialized).not.toContain("hash");
    expect(serialized).not.toContain(first.key);
    expect(serialized).not.toContain(hashApiKey(first.key));
  });

  test("revoking twice keeps the first revocation time", async () => {
    const { t, admin, devBot } = await squad();
    const { keyId } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    await admin.mutation(api.agentApiKeys.revoke, { keyId });
    const revokedAt = (await storedKeys(t))[0].revokedAt;
    expect(revokedAt).toEqual(expect.any(Number));
    await admin.mutation(api.agentApiKeys.revoke, { keyId });
    expect((await storedKeys(t))[0].revokedAt).toBe(revokedAt);
  });

  test("non-admins, anonymous callers and other departments can neither list nor revoke", async () => {
    const { t, admin, grace, other, devBot } = await squad();
    const { keyId } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    await expectError(grace.query(api.agentApiKeys.list, { agentId: devBot }), "FORBIDDEN");
    await expectError(t.query(api.agentApiKeys.list, { agentId: devBot }), "UNAUTHENTICATED");
    await expectError(other.member.query(api.agentApiKeys.list, { agentId: devBot }), "FORBIDDEN");
    await expectError(grace.mutation(api.agentApiKeys.revoke, { keyId }), "FORBIDDEN");
    await expectError(t.mutation(api.agentApiKeys.revoke, { keyId }), "UNAUTHENTICATED");
    await expectError(other.member.mutation(api.agentApiKeys.revoke, { keyId }), "FORBIDDEN");
    expect((await storedKeys(t))[0]).not.toHaveProperty("revokedAt");
  });
});

describe("the /mcp endpoints", () => {
  function call(t: TestConvex, route: "chat.post" | "chat.getNew", key: string | null, body: string = "{}") {
    return t.fetch(`/mcp/${route}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(key === null ? {} : { Authorization: `Bearer ${key}` }) },
      body,
    });
  }

  test("chat.post posts as the key's agent; chat.getNew returns what is new and moves the cursor", async () => {
    const { t, admin, departmentId, devBot } = await squad();
    const { key } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });

    const posted = await call(t, "chat.post", key, JSON.stringify({ text: "hello from outside" }));
    expect(posted.status).toBe(200);
    const postBody = await posted.text();
    expect(postBody).toMatch(/^\{"id":\d+,"success":true\}$/);
    const { id } = JSON.parse(postBody) as { id: number };
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "hi bot" });

    const first = await call(t, "chat.getNew", key);
    expect(first.status).toBe(200);
    const firstBody = JSON.parse(await first.text()) as { messages: Array<{ id: number; author: string; text: string }>; newPointer: number };
    expect(firstBody.messages.map((m) => [m.author, m.text])).toEqual([
      ["@dev-bot", "hello from outside"],
      ["@human", "hi bot"],
    ]);
    expect(firstBody.messages[0].id).toBe(id);
    expect(firstBody.newPointer).toBe(firstBody.messages[1].id);
    expect(Object.keys(firstBody.messages[0])).toEqual(["id", "ts", "author", "text"]);

    // Nothing new: the same bytes each time.
    const again = await (await call(t, "chat.getNew", key)).text();
    expect(again).toBe(`{"messages":[],"newPointer":${firstBody.newPointer}}`);
    expect(await (await call(t, "chat.getNew", key, "")).text()).toBe(again);
    const cursor = await t.run(async (ctx) =>
      await ctx.db.query("chatCursors").withIndex("by_agentId", (q) => q.eq("agentId", AGENTS.devBot)).unique(),
    );
    expect(cursor).toMatchObject({ lastId: firstBody.newPointer, remindNext: false });
  });

  test("a session longer than one read comes in reads of MAX_READ_MESSAGES, oldest first, none skipped", async () => {
    const { t, admin, departmentId, devBot } = await squad();
    const { key } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    const total = 2 * MAX_READ_MESSAGES + 50;
    await t.run(async (ctx) => {
      const department = (await ctx.db.get("departments", departmentId))!;
      for (let id = 1; id <= total; id++) {
        await ctx.db.insert("chat", { id, departmentId, sessionId: department.chatSessionId, ts: new Date(id).toISOString(), author: "@human", text: `m${id}`, truncated: false, redacted: false });
      }
    });
    const reads: number[][] = [];
    for (let i = 0; i < 4; i++) {
      const body = JSON.parse(await (await call(t, "chat.getNew", key)).text()) as { messages: Array<{ id: number }>; newPointer: number };
      reads.push(body.messages.map((m) => m.id));
      expect(body.newPointer).toBe(reads.flat().at(-1));
    }
    expect(reads.map((ids) => ids.length)).toEqual([MAX_READ_MESSAGES, MAX_READ_MESSAGES, 50, 0]);
    expect(reads.flat()).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  test("a pending chat-only reminder of the agent's runs inside Maestro survives an outside getNew", async () => {
    const { t, admin, departmentId, devBot } = await squad();
    const { key } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    await t.run(async (ctx) => {
      await ctx.db.insert("chatCursors", { agentId: AGENTS.devBot, lastId: 0, remindNext: true });
    });
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "news" });
    expect((await call(t, "chat.getNew", key)).status).toBe(200);
    const cursor = await t.run(async (ctx) =>
      await ctx.db.query("chatCursors").withIndex("by_agentId", (q) => q.eq("agentId", AGENTS.devBot)).unique(),
    );
    expect(cursor).toMatchObject({ lastId: 1, remindNext: true });
  });

  test("401 for a missing, malformed, unknown or revoked key; 403 once the agent became an architect", async () => {
    const { t, admin, devBot } = await squad();
    const { key, keyId } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    for (const route of ["chat.post", "chat.getNew"] as const) {
      const body = route === "chat.post" ? JSON.stringify({ text: "x" }) : "{}";
      const missing = await call(t, route, null, body);
      expect(missing.status).toBe(401);
      expect(missing.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
      expect(await missing.json()).toEqual({ error: "Missing API key: send Authorization: Bearer <agent API key>." });
      expect(await (await call(t, route, "nonsense", body)).json()).toEqual({ error: "Unknown API key." });
      expect(await (await call(t, route, generateApiKey(), body)).json()).toEqual({ error: "Unknown API key." });
      // A bad key is answered 401 even with a bad body.
      expect((await call(t, route, generateApiKey(), "[1,2]")).status).toBe(401);
    }
    await admin.mutation(api.agentApiKeys.revoke, { keyId });
    const revoked = await call(t, "chat.post", key, JSON.stringify({ text: "x" }));
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toEqual({ error: "This API key has been revoked." });
    expect((await call(t, "chat.getNew", key)).status).toBe(401);

    const { key: second } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    await t.run(async (ctx) => {
      await ctx.db.patch("agents", devBot, { kind: "architect" });
    });
    const architect = await call(t, "chat.post", second, JSON.stringify({ text: "x" }));
    expect(architect.status).toBe(403);
    expect(await architect.json()).toEqual({ error: "Architects take no part in chat." });
    expect(await t.run(async (ctx) => await ctx.db.query("chat").collect())).toEqual([]);
  });

  test("400 for bad bodies, without posting or moving the cursor", async () => {
    const { t, admin, departmentId, devBot } = await squad();
    const { key } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "unread" });
    for (const body of ["not json", "[]", "{}", JSON.stringify({ text: 42 }), JSON.stringify({ text: "   " })]) {
      const response = await call(t, "chat.post", key, body);
      expect(response.status, body).toBe(400);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
    for (const body of ["not json", "[]", "null"]) {
      expect((await call(t, "chat.getNew", key, body)).status, body).toBe(400);
    }
    expect(await t.run(async (ctx) => await ctx.db.query("chat").collect())).toHaveLength(1);
    expect(await t.run(async (ctx) => await ctx.db.query("chatCursors").collect())).toEqual([]);
    // Far over the ceiling is no bad body: the chat spec truncates it with its note (chatTruncation.test.ts).
    const huge = await call(t, "chat.post", key, JSON.stringify({ text: "q".repeat(200_000) }));
    expect(huge.status).toBe(200);
    const posted = await t.run(async (ctx) => await ctx.db.query("chat").collect());
    expect(posted).toHaveLength(2);
    expect(posted[1].text.endsWith(" … [truncated]")).toBe(true);
  });

  test("with chat disabled: status says so and the chat calls answer 404 \"Chat disabled by configuration\"", async () => {
    const { t, admin, devBot, departmentId } = await squad();
    const { key } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    const status = async () => await (await t.fetch("/mcp/chat.status", { method: "GET", headers: { Authorization: `Bearer ${key}` } })).text();
    expect(await status()).toBe('{"enabled":true}');

    await admin.mutation(api.chat.updateSettings, { departmentId, enabled: false });
    // The key's department has chat off; without a key the deployment's default still answers.
    expect(await status()).toBe('{"enabled":false}');
    expect(await (await t.fetch("/mcp/chat.status", { method: "GET" })).text()).toBe('{"enabled":true}');
    for (const [route, body] of [
      ["chat.post", JSON.stringify({ text: "x" })],
      ["chat.getNew", "{}"],
      ["chat.getNew", "not json"],
    ] as const) {
      const response = await call(t, route, key, body);
      expect(response.status).toBe(404);
      expect(await response.text()).toBe('{"error":"Chat disabled by configuration"}');
    }

    // The JSON config in the environment turns it off too.
    await admin.mutation(api.chat.updateSettings, { departmentId, enabled: true });
    expect(await (await t.fetch("/mcp/chat.status", { method: "GET" })).json()).toEqual({ enabled: true });
    await t.run(async (ctx) => {
      const saved = (await ctx.db.query("settings").collect())[0];
      await ctx.db.patch("settings", saved._id, { chat: {} });
    });
    process.env.MAESTRO_CONFIG_JSON = JSON.stringify({ chat: { enabled: false } });
    expect(await (await t.fetch("/mcp/chat.status", { method: "GET" })).json()).toEqual({ enabled: false });
  });

  test("the internal functions see only the hash", async () => {
    const { t, admin, devBot } = await squad();
    const { key } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot });
    expect(await t.mutation(internal.mcp.post, { keyHash: hashApiKey(key), text: "via hash" })).toBe(1);
    await expectError(t.mutation(internal.mcp.post, { keyHash: key, text: "plaintext is no hash" }), "UNAUTHENTICATED", "Unknown API key.");
  });
});
