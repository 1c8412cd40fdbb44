import { v } from "convex/values";
import { userMutation, userQuery } from "./functions";
import { addMember } from "./lib/accounts";
import { MaestroError } from "./lib/errors";
import { LIMITS } from "./lib/limits";
import { slugify } from "./lib/names";
import { cleanText } from "./lib/validate";
import { vMemberRole } from "./validators";

/** Upper bound on departments one person belongs to, so the switcher stays bounded. */
export const MAX_DEPARTMENTS_PER_MEMBER = 50;

/** The departments the caller belongs to, with their role in each, for the department switcher. */
export const listMine = userQuery({
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
    const memberships = await ctx.db
      .query("members")
      .withIndex("by_user", (q) => q.eq("userId", ctx.viewer.user._id))
      .take(MAX_DEPARTMENTS_PER_MEMBER);
    const result = [];
    for (const membership of memberships) {
      const department = await ctx.db.get("departments", membership.departmentId);
      if (department === null) continue;
      result.push({ _id: department._id, name: department.name, slug: department.slug, role: membership.role });
    }
    return result;
  },
});

/** Creates a department; its creator is its owner. Returns its id. */
export const create = userMutation({
  args: { name: v.string() },
  returns: v.id("departments"),
  handler: async (ctx, args) => {
    const name = cleanText("Department name", args.name, LIMITS.departmentNameChars);
    const slug = slugify(name);
    if (slug === "") throw new MaestroError("INVALID_ARGUMENT", "A department name needs at least one letter or digit.");
    const clash = await ctx.db
      .query("departments")
      .withIndex("by_slug", (q) => q.eq("slug", slug))
      .first();
    if (clash !== null) throw new MaestroError("CONFLICT", `A department called ${clash.name} already exists.`);
    const mine = await ctx.db
      .query("members")
      .withIndex("by_user", (q) => q.eq("userId", ctx.viewer.user._id))
      .take(MAX_DEPARTMENTS_PER_MEMBER);
    if (mine.length >= MAX_DEPARTMENTS_PER_MEMBER) {
      throw new MaestroError("CONFLICT", `You belong to ${MAX_DEPARTMENTS_PER_MEMBER} departments already.`);
    }
    const departmentId = await ctx.db.insert("departments", { name, slug, chatSessionId: crypto.randomUUID() });
    await addMember(ctx, departmentId, ctx.viewer.user._id, ctx.viewer.name, "owner");
    return departmentId;
  },
});
