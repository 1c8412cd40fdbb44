/**
 * Per-agent API keys for people: admins create a key in the agent modal (its
 * plaintext is returned once, only its SHA-256 is stored), list an agent's
 * keys and revoke them. The keys' rows are records/agentApiKeys.ts.
 */
import { v } from "convex/values";
import { internalQuery } from "./_generated/server";
import { agentMutation, agentQuery, userMutation } from "./functions";
import { API_SCOPES } from "./lib/apiKeys";
import { MaestroError } from "./lib/errors";
import { keyAgentX, keysOfAgent, createKey, revokeKey, scopedKeyAgentX } from "./records/agentApiKeys";
import { requireMember } from "./records/members";
import { vApiScope } from "./validators";

const vApiKeySummary = v.object({
  _id: v.id("agentApiKeys"),
  prefix: v.string(),
  createdAt: v.number(),
  createdByName: v.union(v.string(), v.null()),
  revokedAt: v.union(v.number(), v.null()),
  scopes: v.array(vApiScope),
});

/**
 * Admins: a new API key for an agent, holding `scopes` (every scope when
 * none are named). The plaintext is in this result only; Maestro keeps its
 * SHA-256 and the first characters for display.
 */
export const create = agentMutation({
  args: { scopes: v.optional(v.array(vApiScope)) },
  returns: v.object({ keyId: v.id("agentApiKeys"), key: v.string(), prefix: v.string(), scopes: v.array(vApiScope) }),
  handler: async (ctx, { scopes }) => await createKey(ctx, ctx.agent, ctx.viewer.user._id, scopes),
});

/** Admins: an agent's keys, newest first (prefix and dates only; never the hash). */
export const list = agentQuery({
  role: "admin",
  args: {},
  returns: v.array(vApiKeySummary),
  handler: async (ctx, { agentId }) => {
    const names = new Map<string, string | null>();
    const result = [];
    for (const key of await keysOfAgent(ctx, agentId)) {
      if (!names.has(key.createdBy)) names.set(key.createdBy, (await ctx.db.get("users", key.createdBy))?.name ?? null);
      result.push({ _id: key._id, prefix: key.prefix, createdAt: key._creationTime, createdByName: names.get(key.createdBy) ?? null, revokedAt: key.revokedAt ?? null, scopes: key.scopes ?? [...API_SCOPES] });
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
    await revokeKey(ctx, key);
    return null;
  },
});

/** Refuses a key any call with it would refuse (401, or 403 for an architect's); reads only. */
export const checkKey = internalQuery({
  args: { keyHash: v.string() },
  returns: v.null(),
  handler: async (ctx, { keyHash }) => {
    await keyAgentX(ctx, keyHash);
    return null;
  },
});

/**
 * The HTTP API's gate (convex/messagingApi.ts): refuses a key as checkKey
 * does, then FORBIDDEN when it lacks the route's scope; answers the key's
 * department, the `project_id` of everything the route returns.
 */
export const authorize = internalQuery({
  args: { keyHash: v.string(), scope: vApiScope },
  returns: v.object({ projectId: v.id("departments") }),
  handler: async (ctx, { keyHash, scope }) => ({ projectId: (await scopedKeyAgentX(ctx, keyHash, scope)).departmentId }),
});
