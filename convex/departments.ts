import { v } from "convex/values";
import { mutation, query } from "./_generated/server";
import { recordActivity } from "./lib/activity";
import { getViewer, getViewerX } from "./lib/auth";
import { MaestroError } from "./lib/errors";
import { LIMITS } from "./lib/limits";
import { slugify } from "./lib/names";
import { cleanText } from "./lib/validate";
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

/** Creates a department; its creator is its first admin. Returns its id. */
export const create = mutation({
  args: { name: v.string() },
  returns: v.id("departments"),
  handler: async (ctx, args) => {
    const identity = await getViewerX(ctx);
    const name = cleanText("Department name", args.name, LIMITS.departmentNameChars);
    const slug = slugify(name);
    if (slug === "") throw new MaestroError("INVALID_ARGUMENT", "A department name needs at least one letter or digit.");
    const clash = await ctx.db
      .query("departments")
      .withIndex("by_slug", (q) => q.eq("slug", slug))
      .first();
    if (clash !== null) throw new MaestroError("CONFLICT", `A department called ${clash.name} already exists.`);
    const departmentId = await ctx.db.insert("departments", { name, slug, chatSessionId: crypto.randomUUID() });
    const memberName = identity.name ?? identity.nickname ?? identity.email ?? "Human";
    await ctx.db.insert("members", { departmentId, tokenIdentifier: identity.tokenIdentifier, name: memberName, role: "admin" });
    await recordActivity(ctx, {
      departmentId,
      type: "member_joined",
      actor: { kind: "member", tokenIdentifier: identity.tokenIdentifier, name: memberName },
      data: { name: memberName, role: "admin" },
    });
    return departmentId;
  },
});
