/**
 * Accounts and roles: the first-run owner setup, invites, sign-in with a
 * personal password (Convex Auth), roles per department and what each may
 * do, removal, sign-out and password change revoking sessions, and the
 * /auth/password route's rate limit.
 */
import { Scrypt } from "lucia";
import type { ConvexError } from "convex/values";
import { afterEach, describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { INVITE_INVALID, SIGN_UP_CLOSED, WRONG_SETUP_PASSWORD } from "../../convex/lib/accounts";
import { addToDepartment, createOtherDepartment, createTask, expectError, setupTest, TEST_ISSUER, type TestConvex } from "./setup";

afterEach(() => {
  delete process.env.MAESTRO_WEBUI_PASSWORD;
});

type Tokens = { token: string; refreshToken: string };

/** Signs in (or up) through Convex Auth's own action, as the /auth/password route does. */
async function passwordSignIn(t: TestConvex, params: Record<string, string>): Promise<Tokens> {
  const result = await t.action(api.auth.signIn, { provider: "password", params });
  if (!result.tokens) throw new Error("no tokens");
  return result.tokens;
}

/** The actor a token stands for, as the deployment would verify it. */
function actorOf(t: TestConvex, token: string) {
  const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8")) as { sub: string; iss: string };
  expect(claims.iss).toBe(TEST_ISSUER);
  return t.withIdentity({ subject: claims.sub, issuer: claims.iss });
}

async function route(t: TestConvex, body: unknown, address = "10.0.0.1") {
  const response = await t.fetch("/auth/password", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": address },
    body: JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get("Retry-After"), body: (await response.json()) as Record<string, unknown> };
}

describe("first-run owner setup", () => {
  test("the first account becomes owner of every department; later sign-ups need an invite", async () => {
    const t = setupTest();
    const departmentId = await t.mutation(internal.seed.demo, {});
    expect(await t.query(api.setup.status, {})).toEqual({ needsOwner: true, setupPasswordRequired: false });
    const tokens = await passwordSignIn(t, { flow: "signUp", email: "Ada@Example.com", password: "correct horse", name: "Ada" });
    const ada = actorOf(t, tokens.token);
    expect(await ada.query(api.users.me, {})).toMatchObject({ name: "Ada", email: "ada@example.com" });
    expect(await ada.query(api.departments.listMine, {})).toEqual([{ _id: departmentId, name: "Product Squad", slug: "product", role: "owner" }]);
    expect(await t.query(api.setup.status, {})).toMatchObject({ needsOwner: false });
    await expect(passwordSignIn(t, { flow: "signUp", email: "eve@example.com", password: "correct horse", name: "Eve" })).rejects.toThrow(SIGN_UP_CLOSED);
    expect(await t.run(async (ctx) => (await ctx.db.query("users").collect()).length)).toBe(1);
  });

  test("with a WebUI password, the setup needs it", async () => {
    process.env.MAESTRO_WEBUI_PASSWORD = "team-secret";
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    expect(await t.query(api.setup.status, {})).toEqual({ needsOwner: true, setupPasswordRequired: true });
    await expect(passwordSignIn(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" })).rejects.toThrow(WRONG_SETUP_PASSWORD);
    await expect(
      passwordSignIn(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada", setupPassword: "guess" }),
    ).rejects.toThrow(WRONG_SETUP_PASSWORD);
    expect(await t.query(api.setup.status, {})).toMatchObject({ needsOwner: true });
    await passwordSignIn(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada", setupPassword: "team-secret" });
    expect(await t.query(api.setup.status, {})).toMatchObject({ needsOwner: false });
  });

  test("Clerk: the first person of a deployment with no owner goes through the same setup (password when set) and owns it; the next has no department", async () => {
    process.env.MAESTRO_WEBUI_PASSWORD = "team-secret";
    const t = setupTest();
    const departmentId = await t.mutation(internal.seed.demo, {});
    const clerk = (subject: string, name: string) => t.withIdentity({ subject, issuer: "https://clerk.test", tokenIdentifier: `https://clerk.test|${subject}`, name, email: `${name.toLowerCase()}@example.com` });
    const olive = clerk("user_olive", "Olive");
    await expectError(olive.mutation(api.users.ensureExternal, {}), "FORBIDDEN", WRONG_SETUP_PASSWORD);
    await expectError(olive.mutation(api.users.ensureExternal, { setupPassword: "guess" }), "FORBIDDEN", WRONG_SETUP_PASSWORD);
    expect(await t.run(async (ctx) => await ctx.db.query("users").collect())).toEqual([]);
    const oliveId = await olive.mutation(api.users.ensureExternal, { setupPassword: "team-secret" });
    expect(await olive.mutation(api.users.ensureExternal, {})).toBe(oliveId);
    expect(await olive.query(api.departments.listMine, {})).toEqual([{ _id: departmentId, name: "Product Squad", slug: "product", role: "owner" }]);
    expect(await t.query(api.setup.status, {})).toMatchObject({ needsOwner: false });
    // The next Clerk person gets an account and no department: an invite is the way in.
    const lars = clerk("user_lars", "Lars");
    await lars.mutation(api.users.ensureExternal, {});
    expect(await lars.query(api.departments.listMine, {})).toEqual([]);
    await expectError(lars.mutation(api.departments.create, { name: "Mine" }), "FORBIDDEN");
  });

  test("typing someone's name or email without their password gets nobody in", async () => {
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    await passwordSignIn(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" });
    await expect(passwordSignIn(t, { flow: "signIn", email: "ada@example.com", password: "Ada" })).rejects.toThrow();
    await expect(passwordSignIn(t, { flow: "signIn", email: "ada@example.com", password: "" })).rejects.toThrow();
    // Signing up again as her is refused too: the account exists and sign-up is closed.
    await expect(passwordSignIn(t, { flow: "signUp", email: "ada@example.com", password: "my own one", name: "Ada" })).rejects.toThrow();
    const ok = await passwordSignIn(t, { flow: "signIn", email: "ada@example.com", password: "correct horse" });
    expect(await actorOf(t, ok.token).query(api.users.me, {})).toMatchObject({ name: "Ada" });
  });
});

describe("invites", () => {
  async function withOwner() {
    const t = setupTest();
    const departmentId = await t.mutation(internal.seed.demo, {});
    const owner = actorOf(t, (await passwordSignIn(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" })).token);
    const other = await createOtherDepartment(t);
    return { t, departmentId, other, owner };
  }

  test("an invited person joins only the department they were invited to, with the invited role, once", async () => {
    const { t, departmentId, other, owner } = await withOwner();
    const { token, expiresAt } = await owner.mutation(api.invites.create, { departmentId, email: "Grace@example.com", role: "member" });
    expect(expiresAt).toBeGreaterThan(Date.now());
    expect(await t.query(api.invites.preview, { token })).toEqual({ departmentName: "Product Squad", email: "grace@example.com", role: "member" });
    expect((await owner.query(api.invites.list, { departmentId })).map((i) => i.email)).toEqual(["grace@example.com"]);
    // Only the token's hash is stored.
    expect(JSON.stringify(await t.run(async (ctx) => await ctx.db.query("invites").collect()))).not.toContain(token);

    await expect(passwordSignIn(t, { flow: "signUp", email: "mallory@example.com", password: "pw-of-mallory", name: "M", inviteToken: token })).rejects.toThrow(
      "This invite is for grace@example.com.",
    );
    const grace = actorOf(t, (await passwordSignIn(t, { flow: "signUp", email: "grace@example.com", password: "grace's own", name: "Grace", inviteToken: token })).token);
    expect(await grace.query(api.departments.listMine, {})).toEqual([{ _id: departmentId, name: "Product Squad", slug: "product", role: "member" }]);
    await expectError(grace.query(api.tasks.list, { departmentId: other.departmentId }), "FORBIDDEN");
    // Used up.
    expect(await t.query(api.invites.preview, { token })).toBeNull();
    expect(await owner.query(api.invites.list, { departmentId })).toEqual([]);
    await expect(passwordSignIn(t, { flow: "signUp", email: "grace2@example.com", password: "another one", name: "G2", inviteToken: token })).rejects.toThrow(INVITE_INVALID);
  });

  test("an expired or revoked invite is refused; members and viewers cannot invite; only owners invite owners", async () => {
    const { t, departmentId, owner } = await withOwner();
    const expired = await owner.mutation(api.invites.create, { departmentId, email: "old@example.com", role: "member" });
    await t.run(async (ctx) => await ctx.db.patch("invites", expired.inviteId, { expiresAt: Date.now() - 1 }));
    await expect(passwordSignIn(t, { flow: "signUp", email: "old@example.com", password: "whatever1", name: "Old", inviteToken: expired.token })).rejects.toThrow(INVITE_INVALID);
    const revoked = await owner.mutation(api.invites.create, { departmentId, email: "rev@example.com", role: "member" });
    await owner.mutation(api.invites.revoke, { inviteId: revoked.inviteId });
    expect(await t.query(api.invites.preview, { token: revoked.token })).toBeNull();

    const admin = await addToDepartment(t, departmentId, "Ann", "admin");
    const member = await addToDepartment(t, departmentId, "Max", "member");
    await admin.mutation(api.invites.create, { departmentId, email: "new@example.com", role: "admin" });
    await expectError(admin.mutation(api.invites.create, { departmentId, email: "boss@example.com", role: "owner" }), "FORBIDDEN", "Only owners");
    await expectError(member.mutation(api.invites.create, { departmentId, email: "x@example.com", role: "member" }), "FORBIDDEN");
    await expectError(admin.mutation(api.invites.create, { departmentId, email: "not an email", role: "member" }), "INVALID_ARGUMENT");
  });

  test("someone already signed in (for example through Clerk) accepts an invite into another department", async () => {
    const { t, other, owner, departmentId } = await withOwner();
    const { token } = await owner.mutation(api.invites.create, { departmentId, email: "mallory@example.com", role: "viewer" });
    await other.member.mutation(api.invites.accept, { token });
    expect((await other.member.query(api.departments.listMine, {})).map((d) => [d.slug, d.role])).toEqual([
      ["other", "admin"],
      ["product", "viewer"],
    ]);
    await expectError(other.member.mutation(api.invites.accept, { token }), "INVALID_ARGUMENT", INVITE_INVALID);
    void t;
  });
});

describe("roles", () => {
  async function team() {
    const t = setupTest();
    const departmentId = await t.mutation(internal.seed.demo, {});
    const owner = await addToDepartment(t, departmentId, "Olive", "owner");
    const admin = await addToDepartment(t, departmentId, "Ada", "admin");
    const grace = await addToDepartment(t, departmentId, "Grace", "member");
    const members = await owner.query(api.members.list, { departmentId });
    const idOf = (name: string) => members.find((m) => m.name === name)!._id as Id<"members">;
    return { t, departmentId, owner, admin, grace, idOf };
  }

  test("an admin makes a member a viewer: they still read, but can no longer write", async () => {
    const { departmentId, admin, grace, idOf } = await team();
    const taskId = await createTask(grace, departmentId, { title: "Mine" });
    await admin.mutation(api.members.setRole, { memberId: idOf("Grace"), role: "viewer" });
    expect((await grace.query(api.tasks.list, { departmentId })).flatMap((c) => c.tasks).map((c) => c.title)).toContain("Mine");
    await expectError(grace.mutation(api.tasks.create, { departmentId, title: "No" }), "FORBIDDEN", "viewers can only read");
    await expectError(grace.mutation(api.messages.create, { taskId, content: "No" }), "FORBIDDEN");
    await expectError(grace.mutation(api.chat.postAsHuman, { departmentId, text: "No" }), "FORBIDDEN");
    await expectError(grace.mutation(api.members.setRole, { memberId: idOf("Grace"), role: "admin" }), "FORBIDDEN");
  });

  test("owners are changed only by owners, and a department keeps one owner", async () => {
    const { owner, admin, idOf } = await team();
    await expectError(admin.mutation(api.members.setRole, { memberId: idOf("Olive"), role: "member" }), "FORBIDDEN", "Only owners");
    await expectError(admin.mutation(api.members.setRole, { memberId: idOf("Grace"), role: "owner" }), "FORBIDDEN", "Only owners");
    await expectError(owner.mutation(api.members.setRole, { memberId: idOf("Olive"), role: "admin" }), "CONFLICT", "at least one owner");
    await owner.mutation(api.members.setRole, { memberId: idOf("Ada"), role: "owner" });
    await owner.mutation(api.members.setRole, { memberId: idOf("Olive"), role: "admin" });
  });

  test("a removed member loses access at once; the feed says who changed what", async () => {
    const { t, departmentId, admin, grace, idOf } = await team();
    await admin.mutation(api.members.remove, { memberId: idOf("Grace") });
    await expectError(grace.query(api.tasks.list, { departmentId }), "FORBIDDEN");
    expect(await grace.query(api.departments.listMine, {})).toEqual([]);
    const types = await t.run(async (ctx) => (await ctx.db.query("activities").collect()).map((a) => a.type));
    expect(types).toContain("member_removed");
  });

  test("the squad lead is a flag an admin sets: renaming Jarvis keeps it, and it can move to another agent", async () => {
    const { departmentId, admin } = await team();
    const roster = await admin.query(api.agents.list, { departmentId });
    const jarvis = roster.find((a) => a.name === "Jarvis")!;
    const writer = roster.find((a) => a.name === "Writer")!;
    const { _id, sessionKey: _s, status: _st, ...fields } = jarvis;
    await admin.mutation(api.agents.update, { agentId: _id, ...fields, name: "Jeeves" });
    expect((await admin.query(api.agents.list, { departmentId })).find((a) => a._id === _id)).toMatchObject({ name: "Jeeves", isSquadLead: true });
    const { _id: writerId, sessionKey: _w, status: _ws, ...writerFields } = writer;
    await admin.mutation(api.agents.update, { agentId: writerId, ...writerFields, isSquadLead: true });
    const after = await admin.query(api.agents.list, { departmentId });
    expect(after.filter((a) => a.isSquadLead).map((a) => a.name)).toEqual(["Writer"]);
  });
});

describe("sessions", () => {
  test("sign-out ends the session on the server: the same token reaches nothing", async () => {
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    const ada = actorOf(t, (await passwordSignIn(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" })).token);
    expect(await ada.query(api.users.me, {})).toMatchObject({ name: "Ada" });
    await ada.action(api.auth.signOut, {});
    await expectError(ada.query(api.users.me, {}), "UNAUTHENTICATED");
  });

  test("a password change ends every other session and the old password stops working", async () => {
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    await passwordSignIn(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" });
    const laptop = actorOf(t, (await passwordSignIn(t, { flow: "signIn", email: "ada@example.com", password: "correct horse" })).token);
    const phone = actorOf(t, (await passwordSignIn(t, { flow: "signIn", email: "ada@example.com", password: "correct horse" })).token);
    await expect(laptop.action(api.users.changePassword, { currentPassword: "wrong one", newPassword: "battery staple" })).rejects.toThrow(
      "Your current password is not right.",
    );
    await laptop.action(api.users.changePassword, { currentPassword: "correct horse", newPassword: "battery staple" });
    expect(await laptop.query(api.users.me, {})).toMatchObject({ name: "Ada" });
    await expectError(phone.query(api.users.me, {}), "UNAUTHENTICATED");
    await expect(passwordSignIn(t, { flow: "signIn", email: "ada@example.com", password: "correct horse" })).rejects.toThrow();
    await passwordSignIn(t, { flow: "signIn", email: "ada@example.com", password: "battery staple" });
  });
});

describe("POST /auth/password", () => {
  test("signs up and in, with clear errors for bad input", async () => {
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    expect((await route(t, null)).status).toBe(400);
    expect((await route(t, { flow: "steal", email: "a@b.c", password: "x" })).status).toBe(400);
    const up = await route(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" });
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ token: expect.any(String), refreshToken: expect.any(String) });
    expect((await route(t, { flow: "signUp", email: "eve@example.com", password: "correct horse", name: "Eve" })).body).toEqual({ error: SIGN_UP_CLOSED });
    expect(await route(t, { flow: "signIn", email: "ada@example.com", password: "nope nope" }, "10.0.0.2")).toMatchObject({ status: 401, body: { error: "Wrong email or password." } });
    expect((await route(t, { flow: "signIn", email: "ada@example.com", password: "correct horse" }, "10.0.0.3")).status).toBe(200);
  });

  test("guesses from one address at one account get 429 with Retry-After after 5; the real user elsewhere is not locked out", async () => {
    // The buckets refill with time: the clock stands still here, so slow scrypt on a busy machine refills nothing.
    vi.useFakeTimers({ toFake: ["Date"] });
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    await route(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" }, "10.9.9.9");
    // One address guessing one account: a burst of 5 failures, then refused, even with the right password.
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await route(t, { flow: "signIn", email: "ada@example.com", password: `guess ${i}` }, "10.1.0.1")).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const limited = await route(t, { flow: "signIn", email: "ada@example.com", password: "correct horse" }, "10.1.0.1");
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect(limited.body.error).toMatch(/Too many sign-in attempts/);
    // Ada herself, from her own address, still gets in.
    expect((await route(t, { flow: "signIn", email: "ada@example.com", password: "correct horse" }, "10.1.0.99")).status).toBe(200);
    vi.useRealTimers();
  });

  test("guesses spread over many addresses meet the account's ceiling", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    await route(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" }, "10.9.9.9");
    const spread = [];
    for (let i = 0; i < 21; i++) spread.push((await route(t, { flow: "signIn", email: "ada@example.com", password: "guess guess" }, `10.3.0.${i}`)).status);
    expect(spread).toEqual([...Array(20).fill(401), 429]);
    vi.useRealTimers();
  });

  test("one address trying many accounts meets its own ceiling, at 60 failures", { timeout: 120_000 }, async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    const byAddress = [];
    for (let i = 0; i < 62; i++) byAddress.push((await route(t, { flow: "signIn", email: `user${i}@example.com`, password: "guess guess" }, "10.2.0.1")).status);
    expect(byAddress.slice(0, 60).every((s) => s === 401)).toBe(true);
    expect(byAddress.slice(60)).toEqual([429, 429]);
    vi.useRealTimers();
  });

  test("an office behind one NAT: one person's 30 mistakes (and the WebUI password's 20 wrong guesses) lock only them; the right password from another person at the same address still works", { timeout: 120_000 }, async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    await route(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" }, "10.9.9.9");
    process.env.MAESTRO_WEBUI_PASSWORD = "s3cret";
    try {
      const office = "10.6.0.1";
      // Grace mistypes her email and password, over and over.
      for (let i = 0; i < 30; i++) await route(t, { flow: "signIn", email: `grace${i % 3}@example.com`, password: `oops ${i}` }, office);
      // Someone's script guesses the WebUI password on /api/chat from the same address.
      for (let i = 0; i < 20; i++) await t.fetch("/api/chat", { method: "GET", headers: { Authorization: `Basic ${btoa(`bot:wrong-${i}`)}`, "X-Forwarded-For": office } });
      // Grace herself is locked for her typos' account...
      expect((await route(t, { flow: "signIn", email: "grace0@example.com", password: "whatever" }, office)).status).toBe(429);
      // ...but Ada, at the same address, signs in with her right password.
      expect((await route(t, { flow: "signIn", email: "ada@example.com", password: "correct horse" }, office)).status).toBe(200);
    } finally {
      delete process.env.MAESTRO_WEBUI_PASSWORD;
      vi.useRealTimers();
    }
  });

  test("auth:signIn called directly meets the same limits: no address is vouched for, so all direct callers share one bucket", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    await route(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" }, "10.9.9.9");
    const outcomes: string[] = [];
    for (let i = 0; i < 21; i++) {
      // A forged ticket names an address of the caller's choosing: it is not believed.
      const params = { flow: "signIn", email: `user${i}@example.com`, password: "guess guess", signInTicket: `9999999999999.10.0.0.${i}.${"0".repeat(64)}` };
      outcomes.push(await t.action(api.auth.signIn, { provider: "password", params }).then(() => "ok", (error: unknown) => (error as ConvexError<{ code: string }>).data.code));
    }
    expect(outcomes.slice(0, 20)).toEqual(Array(20).fill("UNAUTHENTICATED"));
    expect(outcomes[20]).toBe("RATE_LIMITED");
    // The app's route is another address: Ada signs in there.
    expect((await route(t, { flow: "signIn", email: "ada@example.com", password: "correct horse" }, "10.1.0.7")).status).toBe(200);
    vi.useRealTimers();
  });

  test("answers do not tell a registered email from an unknown one, on the route or directly", async () => {
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    await route(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" }, "10.9.9.9");
    const known = await route(t, { flow: "signIn", email: "ada@example.com", password: "wrong horse" }, "10.4.0.1");
    const unknown = await route(t, { flow: "signIn", email: "nobody@example.com", password: "wrong horse" }, "10.4.0.2");
    expect(unknown).toEqual(known);
    expect(known).toMatchObject({ status: 401, body: { error: "Wrong email or password." } });
    // Sign-up without an invite: the same refusal for a registered email and a new one (no 409).
    const taken = await route(t, { flow: "signUp", email: "ada@example.com", password: "another one", name: "Ada" }, "10.4.0.3");
    const fresh = await route(t, { flow: "signUp", email: "eve@example.com", password: "another one", name: "Eve" }, "10.4.0.4");
    expect(taken).toEqual(fresh);
    expect(taken).toMatchObject({ status: 403, body: { error: SIGN_UP_CLOSED } });
    // Directly: the same error for both, not InvalidAccountId against InvalidSecret.
    const direct = async (email: string) =>
      await t.action(api.auth.signIn, { provider: "password", params: { flow: "signIn", email, password: "wrong horse" } }).then(
        () => "signed in",
        (error: unknown) => JSON.stringify((error as ConvexError<string>).data ?? String(error)),
      );
    expect(await direct("nobody@example.com")).toBe(await direct("ada@example.com"));
    expect(await direct("ada@example.com")).toMatch(/Wrong email or password/);
  });

  test("an uninvited sign-up is refused before its password is hashed", async () => {
    const t = setupTest();
    await t.mutation(internal.seed.demo, {});
    await route(t, { flow: "signUp", email: "ada@example.com", password: "correct horse", name: "Ada" }, "10.9.9.9");
    const hash = vi.spyOn(Scrypt.prototype, "hash");
    try {
      for (const email of ["eve@example.com", "ada@example.com"]) {
        expect((await route(t, { flow: "signUp", email, password: "correct horse", name: "Eve" }, "10.5.0.1")).body).toEqual({ error: SIGN_UP_CLOSED });
      }
      await expect(passwordSignIn(t, { flow: "signUp", email: "mallory@example.com", password: "correct horse", name: "Mallory", inviteToken: "made-up" })).rejects.toThrow(INVITE_INVALID);
      expect(hash).not.toHaveBeenCalled();
    } finally {
      hash.mockRestore();
    }
  });

  test("CORS: only the app's origin is granted", async () => {
    const t = setupTest();
    const allowed = await t.fetch("/auth/password", { method: "OPTIONS", headers: { Origin: "http://127.0.0.1:5173" } });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe("http://127.0.0.1:5173");
    const evil = await t.fetch("/auth/password", { method: "OPTIONS", headers: { Origin: "https://evil.example" } });
    expect(evil.status).toBe(403);
    expect(evil.headers.get("Access-Control-Allow-Origin")).toBeNull();
    const post = await t.fetch("/auth/password", { method: "POST", headers: { Origin: "https://evil.example" }, body: "{}" });
    expect(post.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});
