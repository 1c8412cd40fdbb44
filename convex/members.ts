import { v } from "convex/values";
import { mutation } from "./_generated/server";
import { MAX_DEPARTMENTS_PER_MEMBER } from "./departments";
import { getViewerX } from "./lib/auth";

/**
 * Makes sure the signed-in caller belongs to every department, creating their
 * memberships on first sign-in. Whoever gets past sign-in (the WebUI password
 * offline, Clerk in production) is on the squad; the first person in a
 * department becomes its admin. Returns how many memberships were created.
 */
export const ensureMe = mutation({
  args: {},
  returns: v.number(),
  handler: async (ctx) => {
    const identity = await getViewerX(ctx);
    const name = identity.name ?? identity.nickname ?? identity.email ?? "Human";
    let created = 0;
    const departments = await ctx.db.query("departments").take(MAX_DEPARTMENTS_PER_MEMBER);
    for (const department of departments) {
      const existing = await ctx.db
        .query("members")
        .withIndex("by_department_and_tokenIdentifier", (q) =>
          q.eq("departmentId", department._id).eq("tokenIdentifier", identity.tokenIdentifier),
        )
        .unique();
      if (existing !== null) continue;
      const anyMember = await ctx.db
        .query("members")
        .withIndex("by_department_and_tokenIdentifier", (q) => q.eq("departmentId", department._id))
        .first();
      await ctx.db.insert("members", {
        departmentId: department._id,
        tokenIdentifier: identity.tokenIdentifier,
        name,
        role: anyMember === null ? "admin" : "member",
      });
      created += 1;
    }
    return created;
  },
});
