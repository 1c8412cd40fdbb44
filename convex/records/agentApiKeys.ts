/**
 * Per-agent API keys: how an agent outside Maestro (the stdio MCP server in
 * tools/mcp/) proves which agent it is to the HTTP endpoints. Only a key's
 * SHA-256 and its first characters are stored.
 */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { API_KEY_DISPLAY_CHARS, API_SCOPES, generateApiKey, hashApiKey, keyHasScope, type ApiScope } from "../lib/apiKeys";
import { ARCHITECTS_EXCLUDED, chatExcluded } from "../lib/chat";
import { MaestroError } from "../lib/errors";

/** Keys an agent may hold unrevoked at once. */
export const MAX_ACTIVE_KEYS_PER_AGENT = 10;
/** Most keys (revoked ones included) a list shows, newest first. */
export const MAX_LISTED_KEYS = 100;

type KeyCheck = { agent: Doc<"agents">; key: Doc<"agentApiKeys"> } | { refusal: MaestroError };

async function checkKeyHash(ctx: QueryCtx, hash: string): Promise<KeyCheck> {
  const key = await ctx.db
    .query("agentApiKeys")
    .withIndex("by_hash", (q) => q.eq("hash", hash))
    .first();
  if (key === null) return { refusal: new MaestroError("UNAUTHENTICATED", "Unknown API key.") };
  if (key.revokedAt !== undefined) return { refusal: new MaestroError("UNAUTHENTICATED", "This API key has been revoked.") };
  const agent = await ctx.db.get("agents", key.agentId);
  if (agent === null || agent.departmentId !== key.departmentId) return { refusal: new MaestroError("UNAUTHENTICATED", "This API key's agent no longer exists.") };
  if (chatExcluded(agent)) return { refusal: new MaestroError("FORBIDDEN", ARCHITECTS_EXCLUDED) };
  return { agent, key };
}

/**
 * The agent a key (given by its hash) speaks for: UNAUTHENTICATED for an
 * unknown or revoked key or one whose agent is gone, FORBIDDEN for an architect.
 */
export async function keyAgentX(ctx: QueryCtx, hash: string): Promise<Doc<"agents">> {
  const checked = await checkKeyHash(ctx, hash);
  if ("refusal" in checked) throw checked.refusal;
  return checked.agent;
}

/**
 * The agent a key speaks for, and when its first key was made: where its
 * keys' own inbox position starts (records/inbox keyUnreadRows), so a key
 * made to replace another reads on where that one stopped.
 */
export async function keyAgentWithSinceX(ctx: QueryCtx, hash: string): Promise<{ agent: Doc<"agents">; keySince: number }> {
  const checked = await checkKeyHash(ctx, hash);
  if ("refusal" in checked) throw checked.refusal;
  const first = await ctx.db
    .query("agentApiKeys")
    .withIndex("by_agent", (q) => q.eq("agentId", checked.agent._id))
    .first();
  return { agent: checked.agent, keySince: first?._creationTime ?? checked.key._creationTime };
}

/**
 * The agent a key speaks for when the key holds `scope`: as keyAgentX, and
 * FORBIDDEN naming the scope when the key was made without it.
 */
export async function scopedKeyAgentX(ctx: QueryCtx, hash: string, scope: ApiScope): Promise<Doc<"agents">> {
  const checked = await checkKeyHash(ctx, hash);
  if ("refusal" in checked) throw checked.refusal;
  if (!keyHasScope(checked.key.scopes, scope)) throw new MaestroError("FORBIDDEN", `This API key does not have the "${scope}" scope; an admin can make a key that has it.`);
  return checked.agent;
}

/** Who made a key (a good one: the caller checked it first). */
export async function keyCreator(ctx: QueryCtx, hash: string): Promise<Id<"users">> {
  const checked = await checkKeyHash(ctx, hash);
  if ("refusal" in checked) throw checked.refusal;
  return checked.key.createdBy;
}

/** The agent a good key speaks for, or null for any key `keyAgentX` refuses. */
export async function keyAgent(ctx: QueryCtx, hash: string): Promise<Doc<"agents"> | null> {
  const checked = await checkKeyHash(ctx, hash);
  return "agent" in checked ? checked.agent : null;
}

/** A new key for `agent`: its plaintext is returned here only. */
export async function createKey(
  ctx: MutationCtx,
  agent: Doc<"agents">,
  createdBy: Id<"users">,
  scopes: readonly ApiScope[] = API_SCOPES,
): Promise<{ keyId: Id<"agentApiKeys">; key: string; prefix: string; scopes: ApiScope[] }> {
  if (chatExcluded(agent)) throw new MaestroError("FORBIDDEN", ARCHITECTS_EXCLUDED);
  if (scopes.length === 0) throw new MaestroError("INVALID_ARGUMENT", "A key needs at least one scope.");
  // Stored in the list's order, once each, whatever order they were picked in.
  const held = API_SCOPES.filter((s) => scopes.includes(s));
  const active = await ctx.db
    .query("agentApiKeys")
    .withIndex("by_agent_and_revokedAt", (q) => q.eq("agentId", agent._id).eq("revokedAt", undefined))
    .take(MAX_ACTIVE_KEYS_PER_AGENT);
  if (active.length >= MAX_ACTIVE_KEYS_PER_AGENT) {
    throw new MaestroError("CONFLICT", `${agent.name} already has ${MAX_ACTIVE_KEYS_PER_AGENT} active API keys; revoke one first.`);
  }
  const key = generateApiKey();
  const prefix = key.slice(0, API_KEY_DISPLAY_CHARS);
  const keyId = await ctx.db.insert("agentApiKeys", { agentId: agent._id, departmentId: agent.departmentId, hash: hashApiKey(key), prefix, createdBy, scopes: held });
  return { keyId, key, prefix, scopes: held };
}

/** An agent's keys, newest first. */
export async function keysOfAgent(ctx: QueryCtx, agentId: Id<"agents">): Promise<Array<Doc<"agentApiKeys">>> {
  return await ctx.db
    .query("agentApiKeys")
    .withIndex("by_agent", (q) => q.eq("agentId", agentId))
    .order("desc")
    .take(MAX_LISTED_KEYS);
}

/** Revokes a key at once; revoking it again changes nothing. */
export async function revokeKey(ctx: MutationCtx, key: Doc<"agentApiKeys">): Promise<void> {
  if (key.revokedAt === undefined) await ctx.db.patch("agentApiKeys", key._id, { revokedAt: Date.now() });
}
