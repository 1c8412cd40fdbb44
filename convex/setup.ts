/** First run: what the signed-out app needs to know to offer the owner setup. */
import { v } from "convex/values";
import { publicQuery } from "./functions";
import { webuiPasswordFromEnv } from "./lib/config";
import { needsOwner } from "./records/accounts";

export const status = publicQuery({
  args: {},
  returns: v.object({ needsOwner: v.boolean(), setupPasswordRequired: v.boolean() }),
  handler: async (ctx) => ({
    needsOwner: await needsOwner(ctx),
    setupPasswordRequired: webuiPasswordFromEnv() !== null,
  }),
});
