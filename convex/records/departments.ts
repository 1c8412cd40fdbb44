/** Departments: a squad's board, chat and people live in one; its slug names it in addresses. */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";

export async function departmentBySlug(ctx: QueryCtx, slug: string): Promise<Doc<"departments"> | null> {
  return await ctx.db
    .query("departments")
    .withIndex("by_slug", (q) => q.eq("slug", slug))
    .first();
}

/** A new department with a fresh #maestro session. */
export async function insertDepartment(ctx: MutationCtx, name: string, slug: string): Promise<Id<"departments">> {
  return await ctx.db.insert("departments", { name, slug, chatSessionId: crypto.randomUUID() });
}
