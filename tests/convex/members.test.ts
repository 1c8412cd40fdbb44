import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { createOtherDepartment, expectError, memberKeyOf, seedDemoWithAdmin, setupTest, signIn } from "./setup";

describe("members.ensureMe", () => {
  test("joins every department once, the first person as admin, and records each joining", async () => {
    const t = setupTest();
    const { departmentId, admin } = await seedDemoWithAdmin(t);
    const grace = await signIn(t, "Grace");
    expect(await grace.mutation(api.members.ensureMe, {})).toBe(0);
    const feed = await admin.query(api.activities.list, { departmentId, paginationOpts: { numItems: 10, cursor: null } });
    expect(feed.page.map((a) => [a.type, a.data])).toEqual([
      ["member_joined", { name: "Grace", role: "member" }],
      ["member_joined", { name: "Ada", role: "admin" }],
    ]);
  });

  test("an identity without a name falls back to its e-mail", async () => {
    const t = setupTest();
    const { departmentId, admin } = await seedDemoWithAdmin(t);
    await t.withIdentity({ subject: "user:nameless", issuer: "maestro-local", email: "nameless@example.com" }).mutation(api.members.ensureMe, {});
    expect((await admin.query(api.members.list, { departmentId })).map((m) => m.name)).toContain("nameless@example.com");
  });

  test("anonymous callers are refused", async () => {
    const t = setupTest();
    await expectError(t.mutation(api.members.ensureMe, {}), "UNAUTHENTICATED");
  });
});

describe("members.list", () => {
  test("the department's humans with their mention keys; anonymous callers and other departments are refused", async () => {
    const t = setupTest();
    const { departmentId, admin } = await seedDemoWithAdmin(t);
    await signIn(t, "Grace");
    const other = await createOtherDepartment(t);
    expect(await admin.query(api.members.list, { departmentId })).toEqual([
      { _id: expect.any(String), name: "Ada", role: "admin", key: memberKeyOf("Ada") },
      { _id: expect.any(String), name: "Grace", role: "member", key: memberKeyOf("Grace") },
    ]);
    await expectError(t.query(api.members.list, { departmentId }), "UNAUTHENTICATED");
    await expectError(other.member.query(api.members.list, { departmentId }), "FORBIDDEN");
    await expectError(admin.query(api.members.list, { departmentId: other.departmentId }), "FORBIDDEN");
  });
});
