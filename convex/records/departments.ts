/** Departments: a squad's board, chat and people live in one; its slug names it in addresses. */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "../lib/errors";
import { LIMITS, MAX_DEPARTMENTS_PER_MEMBER } from "../lib/limits";
import { slugify } from "../lib/names";
import { cleanText } from "../lib/validate";
import { addMember, departmentMembers, membershipsOf } from "./members";
import { redactForDepartment } from "./settings";

export async function departmentBySlug(ctx: QueryCtx, slug: string): Promise<Doc<"departments"> | null> {
  return await ctx.db
    .query("departments")
    .withIndex("by_slug", (q) => q.eq("slug", slug))
    .first();
}

/** A new department with a fresh #maestro session and no chat overrides yet (its copy of them: records/settings chatSettingsOf). */
export async function insertDepartment(ctx: MutationCtx, name: string, slug: string): Promise<Id<"departments">> {
  return await ctx.db.insert("departments", { name, slug, chatSessionId: crypto.randomUUID(), chat: {} });
}

/** A description as written: trimmed and within its limit (empty allowed: no description). */
function boundedDescription(raw: string): string {
  return cleanText("A description", raw, LIMITS.departmentDescriptionChars, { allowEmpty: true });
}

/** Sets (or, with an empty text, clears) a department's description: bounded, then scanned for secrets by its own settings. */
export async function setDescription(ctx: MutationCtx, departmentId: Id<"departments">, raw: string): Promise<void> {
  const description = await redactForDepartment(ctx, departmentId, "department description", boundedDescription(raw));
  await ctx.db.patch("departments", departmentId, { description: description === "" ? undefined : description });
}

/** Creates a department owned by `userId` (listed as `memberName`): the name must be free and the person under their limit. */
export async function createDepartmentOwnedBy(ctx: MutationCtx, userId: Id<"users">, memberName: string, rawName: string, rawDescription?: string): Promise<Id<"departments">> {
  const name = cleanText("Department name", rawName, LIMITS.departmentNameChars);
  // Refused before anything is written, like the name.
  if (rawDescription !== undefined) boundedDescription(rawDescription);
  const slug = slugify(name);
  if (slug === "") throw new MaestroError("INVALID_ARGUMENT", "A department name needs at least one letter or digit.");
  const clash = await departmentBySlug(ctx, slug);
  if (clash !== null) throw new MaestroError("CONFLICT", `A department called ${clash.name} already exists.`);
  if ((await membershipsOf(ctx, userId)).length >= MAX_DEPARTMENTS_PER_MEMBER) {
    throw new MaestroError("CONFLICT", `You belong to ${MAX_DEPARTMENTS_PER_MEMBER} departments already.`);
  }
  const departmentId = await insertDepartment(ctx, name, slug);
  await addMember(ctx, departmentId, userId, memberName, "owner");
  if (rawDescription !== undefined) await setDescription(ctx, departmentId, rawDescription);
  return departmentId;
}

/** The name of a department's first owner (the spec's project `owner`), or null when it has none. */
export async function ownerName(ctx: QueryCtx, departmentId: Id<"departments">): Promise<string | null> {
  return (await departmentMembers(ctx, departmentId)).find((m) => m.role === "owner")?.name ?? null;
}
