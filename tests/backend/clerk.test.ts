/**
 * A Clerk deployment's first sign-in, end to end over the offline backend:
 * a test issuer on loopback (OpenID configuration + JWKS) stands in for
 * Clerk, trusted through CLERK_JWT_ISSUER_DOMAIN as convex/auth.config.ts
 * reads it, and signs tokens locally with jose. The first person goes
 * through the owner setup (the setup password, as email accounts do) and
 * owns the demo department; the next has an account and no department;
 * a token from another key is refused.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { WRONG_SETUP_PASSWORD } from "../../convex/lib/accounts";
import { adminClient, PROJECT_ROOT, startTestBackend } from "./helpers";

const SETUP_PASSWORD = "clerk setup password";

type Backend = Awaited<ReturnType<typeof startTestBackend>>;

let issuerServer: Server;
let issuer: string;
let signingKey: KeyLike;
let backend: Backend;
const savedDomain = process.env.CLERK_JWT_ISSUER_DOMAIN;

/** Serves what a Clerk instance serves for token verification: its OpenID configuration and its key set. */
async function startIssuer(publicJwk: JWK): Promise<void> {
  issuerServer = createServer((request, response) => {
    const body =
      request.url === "/.well-known/openid-configuration" ? { issuer, jwks_uri: `${issuer}/.well-known/jwks.json` } : request.url === "/.well-known/jwks.json" ? { keys: [{ ...publicJwk, alg: "RS256", use: "sig", kid: "test" }] } : null;
    response.writeHead(body === null ? 404 : 200, { "Content-Type": "application/json" });
    response.end(JSON.stringify(body ?? { error: "not found" }));
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
}

/** A token as Clerk's "convex" JWT template signs it. */
async function clerkToken(subject: string, name: string, key: KeyLike = signingKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT({ name, email: `${name.toLowerCase()}@example.com` })
    .setProtectedHeader({ alg: "RS256", kid: "test" })
    .setIssuer(issuer)
    .setSubject(subject)
    .setAudience("convex")
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(key);
}

async function clientFor(token: string): Promise<ConvexHttpClient> {
  const client = new ConvexHttpClient(backend.url);
  client.setAuth(token);
  return client;
}

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  signingKey = privateKey;
  await startIssuer(await exportJWK(publicKey));
  // auth.config.ts reads it when the backend loads the providers.
  process.env.CLERK_JWT_ISSUER_DOMAIN = issuer;
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex"), password: SETUP_PASSWORD });
  await adminClient(backend.url, backend.adminKey).mutation(anyApi.seed.demo, {});
}, 120_000);

afterAll(async () => {
  if (savedDomain === undefined) delete process.env.CLERK_JWT_ISSUER_DOMAIN;
  else process.env.CLERK_JWT_ISSUER_DOMAIN = savedDomain;
  await backend?.stop();
  await new Promise((resolve) => issuerServer?.close(resolve));
});

describe("a Clerk deployment's first sign-in", () => {
  test("the first person goes through the owner setup with the setup password and owns the department", async () => {
    const olive = await clientFor(await clerkToken("user_olive", "Olive"));
    expect(await olive.query(api.setup.status, {})).toEqual({ needsOwner: true, setupPasswordRequired: true });
    await expect(olive.mutation(api.users.ensureExternal, {})).rejects.toThrow(WRONG_SETUP_PASSWORD);
    await olive.mutation(api.users.ensureExternal, { setupPassword: SETUP_PASSWORD });
    expect(await olive.query(api.departments.listMine, {})).toEqual([expect.objectContaining({ slug: "product", role: "owner" })]);
    expect(await olive.query(api.users.me, {})).toMatchObject({ name: "Olive", email: "olive@example.com" });
    expect(await olive.query(api.setup.status, {})).toMatchObject({ needsOwner: false });
  });

  test("the next person has an account and no department until invited; a token from another key is refused", async () => {
    const lars = await clientFor(await clerkToken("user_lars", "Lars"));
    await lars.mutation(api.users.ensureExternal, {});
    expect(await lars.query(api.departments.listMine, {})).toEqual([]);
    await expect(lars.mutation(api.departments.create, { name: "Shadow" })).rejects.toThrow(/ask one of them for an invite/);
    const { privateKey: otherKey } = await generateKeyPair("RS256");
    const forged = await clientFor(await clerkToken("user_olive", "Olive", otherKey));
    await expect(forged.query(api.departments.listMine, {})).rejects.toThrow();
  });
});
