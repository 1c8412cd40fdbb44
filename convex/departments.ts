import { v } from "convex/values";
import { query } from "./_generated/server";
import { getViewer } from "./lib/auth";
import { vMemberRole } from "./validators";

/** Upper bound on departments one person belongs to, so the switcher stays bounded. */
export const MAX_DEPARTMENTS_PER_MEMBER = 50;

/** The departments the caller belongs to, for the department switcher. */
export const listMine = query({
  args: {},
  returns: v.array(
    v.object({
      _id: v.id("departments"),
      name: v.string(),
      slug: v.string(),
      role: vMemberRole,
    }),
  ),
  handler: async (ctx) => {
    const identity = await getViewer(ctx);
    if (identity === null) return [];
    const memberships = await ctx.db
      .query("members")
      .withIndex("by_tokenIdentifier", (q) => q.eq("tokenIdentifier", identity.tokenIdentifier))
      .take(MAX_DEPARTMENTS_PER_MEMBER);
    const result = [];
    for (const membership of memberships) {
      const department = await ctx.db.get("departments", membership.departmentId);
      if (department === null) continue;
      result.push({
        _id: department._id,
        name: department.name,
        slug: department.slug,
        role: membership.role,
      });
    }
    return result;
  },
});
