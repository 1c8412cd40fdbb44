import { v } from "convex/values";
import { mutation, query } from "./_generated/server";
import { MAX_DEPARTMENTS_PER_MEMBER } from "./departments";
import { recordActivity } from "./lib/activity";
import { memberKey } from "./lib/actors";
import { getMembershipX, getViewerX } from "./lib/auth";
import { vMemberRole } from "./validators";

/** Most members a department lists (mention autocomplete, roster). */
export const MAX_MEMBERS_PER_DEPARTMENT = 500;

/**
 * On a person's first sign-in, makes them a member of every department.
 * Whoever gets past sign-in (the WebUI password offline, Clerk in production)
 * is on the squad; the first person in a department becomes its admin.
 * Departments created later belong to their creator only. Returns how many
 * memberships were created (0 for anyone who already has one).
 */
export const ensureMe = mutation({
  args: {},
  returns: v.number(),
  handler: async (ctx) => {
    const identity = await getViewerX(ctx);
    const known = await ctx.db
      .query("members")
      .withIndex("by_tokenIdentifier", (q) => q.eq("tokenIdentifier", identity.tokenIdentifier))
      .first();
    if (known !== null) return 0;
    const name = identity.name ?? identity.nickname ?? identity.email ?? "Human";
    const departments = await ctx.db.query("departments").take(MAX_DEPARTMENTS_PER_MEMBER);
    let created = 0;
    for (const department of departments) {
      const anyMember = await ctx.db
        .query("members")
        .withIndex("by_department_and_tokenIdentifier", (q) => q.eq("departmentId", department._id))
        .first();
      const role = anyMember === null ? "admin" : "member";
      await ctx.db.insert("members", { departmentId: department._id, tokenIdentifier: identity.tokenIdentifier, name, role });
      await recordActivity(ctx, {
        departmentId: department._id,
        type: "member_joined",
        actor: { kind: "member", tokenIdentifier: identity.tokenIdentifier, name },
        data: { name, role },
      });
      created += 1;
    }
    return created;
  },
});

/** The department's humans, for @mention autocomplete. */
export const list = query({
  args: { departmentId: v.id("departments") },
  returns: v.array(v.object({ _id: v.id("members"), name: v.string(), role: vMemberRole, key: v.string() })),
  handler: async (ctx, { departmentId }) => {
    await getMembershipX(ctx, departmentId);
    const members = await ctx.db
      .query("members")
      .withIndex("by_department_and_tokenIdentifier", (q) => q.eq("departmentId", departmentId))
      .take(MAX_MEMBERS_PER_DEPARTMENT);
    return members.map((m) => ({ _id: m._id, name: m.name, role: m.role, key: memberKey(m.tokenIdentifier) }));
  },
});
