/**
 * Per-agent API keys for people: admins create a key in the agent modal (its
 * plaintext is returned once, only its SHA-256 is stored), list an agent's
 * keys and revoke them. The keys' rows are records/agentApiKeys.ts.
 */
import { v } from "convex/values";
import { internalQuery } from "./_generated/server";
import { agentMutation, agentQuery, userMutation } from "./functions";
import { MaestroError } from "./lib/errors";
import { keyAgentX, keysOfAgent, createKey, revokeKey } from "./records/agentApiKeys";
import { requireMember } from "./records/members";

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
  handler: async (ctx) => await createKey(ctx, ctx.agent, ctx.viewer.user._id),
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
      result.push({ _id: key._id, prefix: key.prefix, createdAt: key._creationTime, createdByName: names.get(key.createdBy) ?? null, revokedAt: key.revokedAt ?? null });
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
