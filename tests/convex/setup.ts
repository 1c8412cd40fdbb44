/// <reference types="vite/client" />
import { convexTest } from "convex-test";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import schema from "../../convex/schema";

export const modules = import.meta.glob("../../convex/**/*.*s");

/** A fresh in-memory deployment. */
export function setupTest() {
  return convexTest(schema, modules);
}

export type TestConvex = ReturnType<typeof setupTest>;

/** An identity as the local sign-in or Clerk would present it. */
export function asUser(t: TestConvex, name: string) {
  return t.withIdentity({ name, subject: `user:${name.toLowerCase()}`, issuer: "maestro-local" });
}

/** Seeds the demo department and signs `name` in as its first member (an admin). */
export async function seedDemoWithAdmin(t: TestConvex, name = "Ada") {
  const departmentId = await t.mutation(internal.seed.demo, {});
  const admin = asUser(t, name);
  await admin.mutation(api.members.ensureMe, {});
  return { departmentId, admin };
}

/** A second department with one member of its own, to test that ids of other departments are refused. */
export async function createOtherDepartment(t: TestConvex, memberName = "Mallory") {
  const departmentId = await t.run(async (ctx) => {
    const id: Id<"departments"> = await ctx.db.insert("departments", { name: "Other", slug: "other", chatSessionId: "other-session" });
    await ctx.db.insert("members", { departmentId: id, tokenIdentifier: `maestro-local|user:${memberName.toLowerCase()}`, name: memberName, role: "admin" });
    return id;
  });
  return { departmentId, member: asUser(t, memberName) };
}
