/** Departments: the ones a person belongs to, and creating one (its creator owns it). */
import { v } from "convex/values";
import { userMutation, userQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { LIMITS, MAX_DEPARTMENTS_PER_MEMBER } from "./lib/limits";
import { slugify } from "./lib/names";
import { cleanText } from "./lib/validate";
import { departmentBySlug, insertDepartment } from "./records/departments";
import { hasRole } from "./lib/roles";
import { firstUserId, noDepartments } from "./records/accounts";
import { addMember, membershipsOf } from "./records/members";
import { vMemberRole } from "./validators";

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
    const result = [];
    for (const membership of await membershipsOf(ctx, ctx.viewer.user._id)) {
      const department = await ctx.db.get("departments", membership.departmentId);
      if (department === null) continue;
      result.push({ _id: department._id, name: department.name, slug: department.slug, role: membership.role });
    }
    return result;
  },
});

/**
 * Creates a department; its creator is its owner. Returns its id. For an
 * owner or admin of a department (or the deployment's owner while it has
 * none): anyone else gets in through an invite.
 */
export const create = userMutation({
  args: { name: v.string() },
  returns: v.id("departments"),
  handler: async (ctx, args) => {
    const memberships = await membershipsOf(ctx, ctx.viewer.user._id);
    const runsOne = memberships.some((m) => hasRole(m.role, "admin"));
    const firstOwner = (await noDepartments(ctx)) && (await firstUserId(ctx)) === ctx.viewer.user._id;
    if (!runsOne && !firstOwner) throw new MaestroError("FORBIDDEN", "Only owners and admins of a department can create one; ask one of them for an invite instead.");
    const name = cleanText("Department name", args.name, LIMITS.departmentNameChars);
    const slug = slugify(name);
    if (slug === "") throw new MaestroError("INVALID_ARGUMENT", "A department name needs at least one letter or digit.");
    const clash = await departmentBySlug(ctx, slug);
    if (clash !== null) throw new MaestroError("CONFLICT", `A department called ${clash.name} already exists.`);
    if (memberships.length >= MAX_DEPARTMENTS_PER_MEMBER) {
      throw new MaestroError("CONFLICT", `You belong to ${MAX_DEPARTMENTS_PER_MEMBER} departments already.`);
    }
    const departmentId = await insertDepartment(ctx, name, slug);
    await addMember(ctx, departmentId, ctx.viewer.user._id, ctx.viewer.name, "owner");
    return departmentId;
  },
});
