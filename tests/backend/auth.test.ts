/**
 * Tokens on the offline backend are verified as a Convex deployment verifies
 * them: against the providers in convex/auth.config.ts, with the keys from the
 * issuer's OpenID configuration (here the deployment's own HTTP actions, as
 * Convex Auth serves them). A socket's signed-in state ends when its token
 * expires, and one socket cannot hold unbounded subscriptions.
 */
import { generateKeyPairSync } from "node:crypto";
import { statSync } from "node:fs";
import path from "node:path";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ProviderVerifier, type AuthProvider } from "../../tools/local-backend/auth";
import { signTestToken, startTestBackend, waitFor } from "./helpers";

type Backend = Awaited<ReturnType<typeof startTestBackend>>;
let backend: Backend;
const clients: ConvexClient[] = [];

beforeAll(async () => {
  backend = await startTestBackend({ maxSubscriptionsPerSocket: 5 });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await backend?.stop();
});

const whoAmI = async (token: string) => {
  const client = new ConvexHttpClient(backend.url);
  client.setAuth(token);
  return await client.query(anyApi.notes.whoAmI, {});
};

describe("token verification against auth.config.ts's providers", () => {
  test("a token the deployment signed is accepted, with its claims as the identity", async () => {
    const token = await signTestToken(backend, { sub: "user-1|session-1", name: "Ada" });
    expect(await whoAmI(token)).toMatchObject({ name: "Ada" });
    const site = await fetch(`${backend.siteUrl}/whoami`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await site.json()).toEqual({ name: "Ada" });
  });

  test("wrong audience, wrong issuer, a foreign key, an expired or malformed token: refused with a clear error", async () => {
    const now = Math.floor(Date.now() / 1000);
    const { privateKey: foreignKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const sign = (key: Parameters<SignJWT["sign"]>[0], issuer: string, audience: string) =>
      new SignJWT({}).setProtectedHeader({ alg: "RS256" }).setSubject("x").setIssuer(issuer).setAudience(audience).setIssuedAt(now).setExpirationTime(now + 60).sign(key);
    const ownKey = (await import("jose")).importPKCS8(process.env.JWT_PRIVATE_KEY!.replace(/ (?!PRIVATE|KEY)/g, "\n"), "RS256");
    await expect(whoAmI(await sign(await ownKey, backend.siteUrl, "someone-else"))).rejects.toThrow(/Could not verify token/);
    await expect(whoAmI(await sign(await ownKey, "https://evil.example", "convex"))).rejects.toThrow(/No auth provider .* trusts the issuer https:\/\/evil.example/);
    await expect(whoAmI(await sign(foreignKey, backend.siteUrl, "convex"))).rejects.toThrow(/Could not verify token/);
    await expect(whoAmI(await signTestToken(backend, { sub: "late" }, -5))).rejects.toThrow(/Token expired/);
    await expect(whoAmI("not.a-token")).rejects.toThrow(/Malformed token/);
  });

  test("a verified token is remembered only while it is valid and the providers are the same", async () => {
    let providers: AuthProvider[] = [{ domain: backend.siteUrl, applicationID: "convex" }];
    const verifier = new ProviderVerifier(() => providers);
    const token = await signTestToken(backend, { sub: "user-2|session-2", name: "Ben" }, 2);
    const first = await verifier.verify(token);
    expect(first.identity).toMatchObject({ name: "Ben", subject: "user-2|session-2" });
    // The same token again: the same answer, without another signature check.
    expect(await verifier.verify(token)).toBe(first);
    // Once it expires it is refused, as a token never seen before would be.
    await waitFor(() => Date.now() >= first.expiresAt, 5_000, "the token to expire");
    await expect(verifier.verify(token)).rejects.toThrow(/Token expired/);
    // A reloaded auth.config.ts that no longer trusts the issuer: remembered tokens are forgotten.
    const fresh = await signTestToken(backend, { sub: "user-3|session-3" });
    await verifier.verify(fresh);
    providers = [];
    await expect(verifier.verify(fresh)).rejects.toThrow(/No auth provider/);
  });

  test("Convex Auth's signing keys are made on first start and kept private", () => {
    expect(statSync(path.join(backend.dataDir, "auth-keys.json")).mode & 0o777).toBe(0o600);
    expect(process.env.JWKS).toContain('"kty":"RSA"');
  });
});

describe("WebSocket auth", () => {
  test("a token that expires while connected ends the socket's signed-in state on time", async () => {
    const token = await signTestToken(backend, { sub: "short", name: "Brief" }, 2);
    const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
    clients.push(client);
    const states: boolean[] = [];
    // The fetcher keeps handing out the same token, as a client whose refresh failed would.
    client.setAuth(async () => token, (ok) => states.push(ok));
    const names: Array<string | null> = [];
    // whoAmI throws for a signed-out caller.
    client.onUpdate(anyApi.notes.whoAmI, {}, (value: { name: string | null }) => names.push(value.name), () => names.push(null));
    await waitFor(() => names.includes("Brief"), 10_000, "signed in");
    const started = Date.now();
    await waitFor(() => states.at(-1) === false, 5_000, "signed out at expiry");
    await waitFor(() => names.at(-1) === null, 5_000, "queries re-run without the identity");
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  test("one socket may hold a bounded number of subscriptions; the rest get a clear error", async () => {
    const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
    clients.push(client);
    const errors: string[] = [];
    const values: number[] = [];
    for (let i = 0; i < 7; i++) {
      client.onUpdate(anyApi.notes.list, { channel: `limit-${i}` }, () => values.push(i), (error: Error) => errors.push(error.message));
    }
    await waitFor(() => values.length + errors.length >= 7, 10_000, "all answered");
    expect(values.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/Too many subscriptions on one connection \(limit 5\)/);
  });
});
