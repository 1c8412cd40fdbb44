/**
 * Per-agent API keys: how an agent outside Maestro (through the stdio MCP
 * server in tools/mcp/) proves which agent it is to the chat endpoints in
 * convex/http.ts. Admins create a key in the agent modal; its plaintext is
 * returned once, only its SHA-256 is stored, and it can be revoked.
 */
import { v } from "convex/values";
import type { Doc, Id } from "./_generated/dataModel";
import { internalQuery, type QueryCtx } from "./_generated/server";
import { agentMutation, agentQuery, userMutation } from "./functions";
import { chatExcluded } from "./chat";
import { requireMember } from "./lib/auth";
import { MaestroError } from "./lib/errors";
import { sha256Hex } from "./lib/sha256";

/** Every key starts with this, so a leaked one is recognisable. */
export const API_KEY_PREFIX = "mk_";
/** Random characters after the prefix: 40 base32 characters carry 200 bits. */
export const API_KEY_RANDOM_CHARS = 40;
/** Characters of a key kept in clear, to tell keys apart in the UI. */
export const API_KEY_DISPLAY_CHARS = 12;
/** Keys an agent may hold unrevoked at once. */
export const MAX_ACTIVE_KEYS_PER_AGENT = 10;
/** Most keys (revoked ones included) `list` shows, newest first. */
export const MAX_LISTED_KEYS = 100;
/** What an architect's key request is refused with. */
export const ARCHITECTS_EXCLUDED = "Architects take no part in chat.";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
/** A key as the MCP server sends it; anything else is not worth a lookup. */
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[${BASE32}]{${API_KEY_RANDOM_CHARS}}$`);

/** A fresh key: the prefix and 40 base32 characters from `crypto.getRandomValues`. */
export function generateApiKey(): string {
  // 40 characters × 5 bits = 25 bytes, so every byte's bits are used exactly once.
  const bytes = crypto.getRandomValues(new Uint8Array((API_KEY_RANDOM_CHARS * 5) / 8));
  let bits = 0;
  let value = 0;
  let out = API_KEY_PREFIX;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

/** Whether `key` looks like a Maestro agent API key. */
export function isApiKeyShape(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

/** What is stored for a key (and looked up by): its hex SHA-256. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

const vApiKeySummary = v.object({
  _id: v.id("agentApiKeys"),
  prefix: v.string(),
  createdAt: v.number(),
  createdByName: v.union(v.string(), v.null()),
  revokedAt: v.union(v.number(), v.null()),
});

/**
 * Admins: a new API key for an agent. The plaintext is in this result only;
 * Maestro keeps its SHA-256 and the first characters for display.
 */
export const create = agentMutation({
  args: {},
  returns: v.object({ keyId: v.id("agentApiKeys"), key: v.string(), prefix: v.string() }),
  handler: async (ctx, { agentId }) => {
    const { agent, viewer } = ctx;
    if (chatExcluded(agent)) throw new MaestroError("FORBIDDEN", ARCHITECTS_EXCLUDED);
    const active = await ctx.db
      .query("agentApiKeys")
      .withIndex("by_agent_and_revokedAt", (q) => q.eq("agentId", agentId).eq("revokedAt", undefined))
      .take(MAX_ACTIVE_KEYS_PER_AGENT);
    if (active.length >= MAX_ACTIVE_KEYS_PER_AGENT) {
      throw new MaestroError("CONFLICT", `${agent.name} already has ${MAX_ACTIVE_KEYS_PER_AGENT} active API keys; revoke one first.`);
    }
    const key = generateApiKey();
    const prefix = key.slice(0, API_KEY_DISPLAY_CHARS);
    const keyId = await ctx.db.insert("agentApiKeys", {
      agentId,
      departmentId: agent.departmentId,
      hash: hashApiKey(key),
      prefix,
      createdBy: viewer.user._id,
    });
    return { keyId, key, prefix };
  },
});

/** Admins: an agent's keys, newest first (prefix and dates only; never the hash). */
export const list = agentQuery({
  role: "admin",
  args: {},
  returns: v.array(vApiKeySummary),
  handler: async (ctx, { agentId }) => {
    const keys = await ctx.db
      .query("agentApiKeys")
      .withIndex("by_agent", (q) => q.eq("agentId", agentId))
      .order("desc")
      .take(MAX_LISTED_KEYS);
    const names = new Map<Id<"users">, string | null>();
    const result = [];
    for (const key of keys) {
      if (!names.has(key.createdBy)) {
        const creator = await ctx.db.get("users", key.createdBy);
        names.set(key.createdBy, creator?.name ?? null);
      }
      result.push({
        _id: key._id,
        prefix: key.prefix,
        createdAt: key._creationTime,
        createdByName: names.get(key.createdBy) ?? null,
        revokedAt: key.revokedAt ?? null,
      });
    }
    return result;
  },
});

/** Admins: revokes a key at once; revoking it again changes nothing. */
export const revoke = userMutation({
  args: { keyId: v.id("agentApiKeys") },
  returns: v.null(),
  handler: async (ctx, { keyId }) => {
    const key = await ctx.db.get("agentApiKeys", keyId);
    if (key === null) throw new MaestroError("NOT_FOUND", "API key not found.");
    await requireMember(ctx, key.departmentId, "admin", ctx.viewer);
    if (key.revokedAt === undefined) await ctx.db.patch("agentApiKeys", keyId, { revokedAt: Date.now() });
    return null;
  },
});

/** Why a key was refused, as the HTTP endpoints answer it. */
export type KeyRefusal = { kind: "error"; status: number; message: string };

/**
 * The agent a key (given by its hash) speaks for: 401 for an unknown or
 * revoked key or one whose agent is gone, 403 for an architect.
 */
export async function agentForKeyHash(ctx: QueryCtx, hash: string): Promise<{ kind: "ok"; agent: Doc<"agents"> } | KeyRefusal> {
  const key = await ctx.db
    .query("agentApiKeys")
    .withIndex("by_hash", (q) => q.eq("hash", hash))
    .first();
  if (key === null) return { kind: "error", status: 401, message: "Unknown API key." };
  if (key.revokedAt !== undefined) return { kind: "error", status: 401, message: "This API key has been revoked." };
  const agent = await ctx.db.get("agents", key.agentId);
  if (agent === null || agent.departmentId !== key.departmentId) {
    return { kind: "error", status: 401, message: "This API key's agent no longer exists." };
  }
  if (chatExcluded(agent)) return { kind: "error", status: 403, message: ARCHITECTS_EXCLUDED };
  return { kind: "ok", agent };
}

/** Why a call with this key would be refused (401/403), or null for a good key; reads only. */
export const keyRefusal = internalQuery({
  args: { keyHash: v.string() },
  returns: v.union(v.null(), v.object({ status: v.number(), message: v.string() })),
  handler: async (ctx, { keyHash }) => {
    const resolved = await agentForKeyHash(ctx, keyHash);
    return resolved.kind === "error" ? { status: resolved.status, message: resolved.message } : null;
  },
});
