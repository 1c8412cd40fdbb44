/**
 * Password reset links (convex/passwordResets.ts, POST /auth/reset): an
 * owner or admin makes a one-time, expiring link for one member; it sets
 * that member's password only, ends every session they had, is stored as a
 * hash, is a secret to the scanner, and is rate limited. From the
 * attacker's side: a member or viewer cannot make one, nor an admin for
 * another department's member, an owner, or someone who also belongs
 * where the admin has no say; a used, replaced or expired link and a
 * wrong field do nothing.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { generateResetToken, hashResetToken, RESET_INVALID } from "../../convex/lib/accounts";
import { REDACTED, ruleScanner, scanUserText } from "../../convex/lib/secrets";
import { createOtherDepartment, expectError, setupTest, type TestConvex } from "./setup";

async function passwordSignIn(t: TestConvex, params: Record<string, string>) {
  const result = await t.action(api.auth.signIn, { provider: "password", params });
  if (!result.tokens) throw new Error("no tokens");
  return result.tokens;
}

function actorOf(t: TestConvex, token: string) {
  const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8")) as { sub: string; iss: string };
  return t.withIdentity({ subject: claims.sub, issuer: claims.iss });
}

async function reset(t: TestConvex, body: unknown, address = "10.0.0.7") {
  const response = await t.fetch("/auth/reset", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": address },
    body: JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get("Retry-After"), body: (await response.json()) as Record<string, string> };
}

/** The demo department with Ada (owner, by the first-run setup) and Grace (a member, by invite), both with real passwords. */
async function squad() {
  const t = setupTest();
  const departmentId = await t.mutation(internal.seed.demo, {});
  const ada = actorOf(t, (await passwordSignIn(t, { flow: "signUp", email: "ada@example.com", password: "ada password", name: "Ada" })).token);
  const invite = async (email: string, role: "admin" | "member" | "viewer") => {
    const { token } = await ada.mutation(api.invites.create, { departmentId, email, role });
    const name = email.split("@")[0];
    return actorOf(t, (await passwordSignIn(t, { flow: "signUp", email, password: `${name} password`, name, inviteToken: token })).token);
  };
  const grace = await invite("grace@example.com", "member");
  const memberId = async (email: string): Promise<Id<"members">> => (await ada.query(api.members.list, { departmentId })).find((m) => m.email === email)!._id;
  return { t, departmentId, ada, grace, invite, memberId };
}

describe("password reset links", () => {
  test("an admin's link sets the member's new password once, ends her sessions and is stored only as a hash", async () => {
    const { t, departmentId, ada, grace, memberId } = await squad();
    const graceMember = await memberId("grace@example.com");
    const { token, email, expiresAt } = await ada.mutation(api.passwordResets.create, { departmentId, memberId: graceMember });
    expect(token).toMatch(/^mr_[a-z2-7]{52}$/);
    expect(email).toBe("grace@example.com");
    expect(expiresAt).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const stored = await t.run(async (ctx) => await ctx.db.query("passwordResets").collect());
    expect(stored).toHaveLength(1);
    expect(stored[0].tokenHash).toBe(hashResetToken(token));
    expect(JSON.stringify(stored)).not.toContain(token.slice(3));
    expect(await t.query(api.passwordResets.preview, { token })).toEqual({ email: "grace@example.com" });

    const laptop = actorOf(t, (await passwordSignIn(t, { flow: "signIn", email: "grace@example.com", password: "grace password" })).token);
    const done = await reset(t, { token, password: "grace new password" });
    expect(done.status).toBe(200);
    // Every session she had is over; the answer is a fresh one.
    await expect(grace.query(api.users.me, {})).rejects.toThrow(/Sign in to continue/);
    await expect(laptop.query(api.users.me, {})).rejects.toThrow(/Sign in to continue/);
    expect(await actorOf(t, done.body.token).query(api.users.me, {})).toMatchObject({ email: "grace@example.com" });
    await expect(passwordSignIn(t, { flow: "signIn", email: "grace@example.com", password: "grace password" })).rejects.toThrow();
    await passwordSignIn(t, { flow: "signIn", email: "grace@example.com", password: "grace new password" });

    // Once only.
    expect(await reset(t, { token, password: "another password" })).toMatchObject({ status: 400, body: { error: RESET_INVALID } });
    expect(await t.query(api.passwordResets.preview, { token })).toBeNull();
    await passwordSignIn(t, { flow: "signIn", email: "grace@example.com", password: "grace new password" });
  });

  test("the link sets only its own member's password, whatever the request names", async () => {
    const { t, departmentId, ada, memberId } = await squad();
    const { token } = await ada.mutation(api.passwordResets.create, { departmentId, memberId: await memberId("grace@example.com") });
    const done = await reset(t, { token, password: "taken over?", email: "ada@example.com", userId: "x" });
    expect(done.status).toBe(200);
    expect(await actorOf(t, done.body.token).query(api.users.me, {})).toMatchObject({ email: "grace@example.com" });
    await passwordSignIn(t, { flow: "signIn", email: "ada@example.com", password: "ada password" });
    await expect(passwordSignIn(t, { flow: "signIn", email: "ada@example.com", password: "taken over?" })).rejects.toThrow();
  });

  test("members and viewers cannot make one; nor an admin for another department's member, for an owner, or for someone who belongs where she has no say", async () => {
    const { t, departmentId, ada, invite, memberId } = await squad();
    const grace = actorOf(t, (await passwordSignIn(t, { flow: "signIn", email: "grace@example.com", password: "grace password" })).token);
    const vera = await invite("vera@example.com", "viewer");
    const bea = await invite("bea@example.com", "admin");
    const adaMember = await memberId("ada@example.com");
    const graceMember = await memberId("grace@example.com");
    await expectError(grace.mutation(api.passwordResets.create, { departmentId, memberId: adaMember }), "FORBIDDEN");
    await expectError(vera.mutation(api.passwordResets.create, { departmentId, memberId: graceMember }), "FORBIDDEN");
    // An admin cannot take over an owner.
    await expectError(bea.mutation(api.passwordResets.create, { departmentId, memberId: adaMember }), "FORBIDDEN", "Only owners can make a reset link for an owner.");
    // Another department's member, named through this department, is not found; through hers, Bea is no member.
    const other = await createOtherDepartment(t, "Mallory");
    const mallory = await t.run(async (ctx) => (await ctx.db.query("members").withIndex("by_department_and_user", (q) => q.eq("departmentId", other.departmentId)).first())!._id);
    await expectError(bea.mutation(api.passwordResets.create, { departmentId, memberId: mallory }), "NOT_FOUND");
    await expectError(bea.mutation(api.passwordResets.create, { departmentId: other.departmentId, memberId: mallory }), "FORBIDDEN");
    // Grace also belongs to Other, where Bea has no say: Bea cannot reset her; Mallory (admin there, not here) cannot either.
    const join = async (email: string, name: string, role: "owner" | "member") =>
      await t.run(async (ctx) => {
        const user = (await ctx.db.query("users").withIndex("email", (q) => q.eq("email", email)).unique())!;
        await ctx.db.insert("members", { departmentId: other.departmentId, userId: user._id, name, role });
      });
    await join("grace@example.com", "Grace", "member");
    await expectError(bea.mutation(api.passwordResets.create, { departmentId, memberId: graceMember }), "FORBIDDEN", /department you do not manage/);
    expect(await t.run(async (ctx) => await ctx.db.query("passwordResets").collect())).toEqual([]);
    // Ada, owner here and (made) owner there, may.
    await join("ada@example.com", "Ada", "owner");
    await ada.mutation(api.passwordResets.create, { departmentId, memberId: graceMember });
  });

  test("an expired or replaced link does nothing; a wrong one reads the same", async () => {
    const { t, departmentId, ada, memberId } = await squad();
    const graceMember = await memberId("grace@example.com");
    const first = await ada.mutation(api.passwordResets.create, { departmentId, memberId: graceMember });
    const second = await ada.mutation(api.passwordResets.create, { departmentId, memberId: graceMember });
    expect(await reset(t, { token: first.token, password: "replaced link" })).toMatchObject({ status: 400, body: { error: RESET_INVALID } });
    await t.run(async (ctx) => {
      const row = (await ctx.db.query("passwordResets").withIndex("by_tokenHash", (q) => q.eq("tokenHash", hashResetToken(second.token))).unique())!;
      await ctx.db.patch("passwordResets", row._id, { expiresAt: Date.now() - 1 });
    });
    expect(await reset(t, { token: second.token, password: "expired link" })).toMatchObject({ status: 400, body: { error: RESET_INVALID } });
    expect(await reset(t, { token: generateResetToken(), password: "made-up link" })).toMatchObject({ status: 400, body: { error: RESET_INVALID } });
    await passwordSignIn(t, { flow: "signIn", email: "grace@example.com", password: "grace password" });
    // A password outside the rule is refused before the link is used.
    const third = await ada.mutation(api.passwordResets.create, { departmentId, memberId: graceMember });
    expect((await reset(t, { token: third.token, password: "short" })).status).toBe(400);
    expect(await t.query(api.passwordResets.preview, { token: third.token })).toEqual({ email: "grace@example.com" });
  });

  test("making links and trying them are rate limited", async () => {
    const { t, departmentId, ada, memberId } = await squad();
    const graceMember = await memberId("grace@example.com");
    for (let i = 0; i < 5; i++) await ada.mutation(api.passwordResets.create, { departmentId, memberId: graceMember });
    await expectError(ada.mutation(api.passwordResets.create, { departmentId, memberId: graceMember }), "RATE_LIMITED", /Too many reset links/);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await reset(t, { token: generateResetToken(), password: "guessing away" }, "10.9.9.9")).status);
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // Another address is not slowed by it.
    expect((await reset(t, { token: generateResetToken(), password: "guessing away" }, "10.1.1.1")).status).toBe(400);
  });

  test("a pasted reset link is a secret to the scanner", () => {
    const link = `http://127.0.0.1:5173/?reset=${generateResetToken()}`;
    expect(ruleScanner.scan(`your link: ${link}`).map((f) => f.rule)).toContain("maestro-reset-token");
    expect(scanUserText(link, { maxChars: 4000, enabled: true, timeoutMs: 1000 }).text).toContain(REDACTED);
  });

  test("a signed-out caller learns nothing from a wrong token", async () => {
    const { t } = await squad();
    expect(await t.query(api.passwordResets.preview, { token: "mr_nothing" })).toBeNull();
  });
});
