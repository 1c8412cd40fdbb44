/**
 * Accounts on the offline backend, end to end over real sockets: Convex
 * Auth's tokens verified as a deployment verifies them, an invited person
 * signing in with their own password, a removed member's open WebSocket
 * losing the department's data at once, sign-out revoking the token, and
 * sign-in guesses limited with 429 + Retry-After.
 */
import path from "node:path";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { passwordRoute, PROJECT_ROOT, seedDemoSquad, signInWithPassword, startTestBackend, waitFor } from "./helpers";

type Backend = Awaited<ReturnType<typeof startTestBackend>>;

let backend: Backend;
let owner: ConvexHttpClient;
let departmentId: Id<"departments">;

beforeAll(async () => {
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  ({ member: owner, departmentId } = await seedDemoSquad(backend));
});

afterAll(async () => {
  await backend?.stop();
});

/** Invites `email` as `role` and signs them up through the invite; their token. */
async function invite(email: string, role: "member" | "viewer" | "admin", password = "their own password") {
  const { token } = await owner.mutation(api.invites.create, { departmentId, email, role });
  const result = await passwordRoute(backend.siteUrl, { flow: "signUp", email, password, name: email.split("@")[0], inviteToken: token });
  expect(result.status).toBe(200);
  return result.body.token;
}

describe("accounts over the offline backend", () => {
  test("a typed name without the password gets nobody in; the owner's own password does", async () => {
    expect((await passwordRoute(backend.siteUrl, { flow: "signIn", email: "ada@example.com", password: "Ada" })).status).toBe(401);
    expect((await passwordRoute(backend.siteUrl, { flow: "signUp", email: "eve@example.com", password: "eve password", name: "Ada" })).status).toBe(403);
    const client = new ConvexHttpClient(backend.url);
    client.setAuth("not-a-token");
    await expect(client.query(api.users.me, {})).rejects.toThrow();
  });

  test("a removed member's open socket loses the department's data within a second", async () => {
    const token = await invite("grace@example.com", "member");
    const grace = new ConvexClient(backend.url);
    grace.setAuth(async () => token);
    const seen: Array<"data" | "error"> = [];
    const unsubscribe = grace.onUpdate(
      api.tasks.list,
      { departmentId },
      () => seen.push("data"),
      () => seen.push("error"),
    );
    await waitFor(() => seen.includes("data"), 10_000, "Grace's board");
    const members = await owner.query(api.members.list, { departmentId });
    const started = performance.now();
    await owner.mutation(api.members.remove, { memberId: members.find((m) => m.email === "grace@example.com")!._id });
    await waitFor(() => seen.at(-1) === "error", 1_000, "Grace's board to be refused");
    expect(performance.now() - started).toBeLessThan(1_000);
    unsubscribe();
    await grace.close();
  });

  test("sign-out revokes the session on the server; a password change revokes the others", async () => {
    const token = await invite("ben@example.com", "member", "ben password 1");
    const ben = new ConvexHttpClient(backend.url);
    ben.setAuth(token);
    expect(await ben.query(api.users.me, {})).toMatchObject({ email: "ben@example.com" });
    await ben.action(api.auth.signOut, {});
    await expect(ben.query(api.users.me, {})).rejects.toThrow(/Sign in to continue/);

    const laptop = new ConvexHttpClient(backend.url);
    laptop.setAuth(await signInWithPassword(backend.siteUrl, "ben@example.com", "ben password 1"));
    const phone = new ConvexHttpClient(backend.url);
    phone.setAuth(await signInWithPassword(backend.siteUrl, "ben@example.com", "ben password 1"));
    await laptop.action(api.users.changePassword, { currentPassword: "ben password 1", newPassword: "ben password 2" });
    expect(await laptop.query(api.users.me, {})).toMatchObject({ email: "ben@example.com" });
    await expect(phone.query(api.users.me, {})).rejects.toThrow(/Sign in to continue/);
  });

  test("guesses beyond the limit get 429 with Retry-After", async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 8; i++) {
      const result = await passwordRoute(backend.siteUrl, { flow: "signIn", email: "target@example.com", password: `guess number ${i}` });
      statuses.push(result.status);
      retryAfter = result.retryAfter ?? retryAfter;
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
