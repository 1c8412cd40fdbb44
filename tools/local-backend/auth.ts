/**
 * Who is calling, decided as a Convex deployment decides it: a token is
 * accepted when it verifies against one of the providers listed in
 * `convex/auth.config.ts`. For an OIDC provider (`domain` + `applicationID`,
 * Convex Auth's own and Clerk's) the keys come from the domain's
 * `/.well-known/openid-configuration` → `jwks_uri`; for a `customJwt`
 * provider from its `jwks` URL. Convex Auth signs with the deployment's
 * JWT_PRIVATE_KEY and serves its JWKS from the deployment's own HTTP actions,
 * so the backend fetches its own site port for them.
 *
 * The key pair Convex Auth needs is made on first start and kept in
 * `<data>/auth-keys.json` (0600); the environment may set its own.
 */
import { generateKeyPairSync } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { UserIdentity } from "convex/server";
import { build } from "esbuild";
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { makeOwnedDir, pruneOrphanedDirs, releaseOwnedDir } from "./ownedDirs.js";

export class AuthFailure extends Error {}

/** A verified token: who it names and until when. */
export interface VerifiedToken {
  identity: UserIdentity;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export interface TokenVerifier {
  verify(token: string): Promise<VerifiedToken>;
}

/** One entry of auth.config.ts's `providers`, as Convex accepts them. */
export type AuthProvider =
  | { type?: undefined; domain: string; applicationID: string }
  | { type: "customJwt"; issuer: string; jwks: string; algorithm: string; applicationID?: string };

/** `convex/auth.config.ts`'s build, for the moment it is evaluated: `maestro-auth-config-<pid>-<random>` in the system's temporary folder. */
const AUTH_CONFIG_PREFIX = "maestro-auth-config-";

/**
 * Evaluates `convex/auth.config.ts` (bundled as Convex bundles it, with the
 * functions' environment) and returns its providers; none when the file is absent.
 */
export async function loadAuthProviders(convexDir: string): Promise<AuthProvider[]> {
  const source = ["auth.config.ts", "auth.config.js"].map((f) => path.join(convexDir, f)).find((f) => existsSync(f));
  if (source === undefined) return [];
  pruneOrphanedDirs(os.tmpdir(), AUTH_CONFIG_PREFIX);
  const outdir = makeOwnedDir(os.tmpdir(), AUTH_CONFIG_PREFIX);
  try {
    const outfile = path.join(outdir, "auth.config.mjs");
    await build({ entryPoints: [source], outfile, bundle: true, format: "esm", platform: "node", packages: "external", logLevel: "silent" });
    const config = ((await import(pathToFileURL(outfile).href)) as { default?: { providers?: unknown } }).default;
    const providers = config?.providers;
    if (!Array.isArray(providers)) throw new Error("convex/auth.config.ts must export default { providers: [...] }");
    return providers.filter((p): p is AuthProvider => isProvider(p));
  } finally {
    releaseOwnedDir(outdir);
  }
}

function isProvider(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  const p = value as Record<string, unknown>;
  if (p.type === "customJwt") return typeof p.issuer === "string" && typeof p.jwks === "string" && typeof p.algorithm === "string";
  // A provider whose domain comes from an unset variable is skipped, as it trusts nobody.
  return typeof p.domain === "string" && p.domain !== "" && typeof p.applicationID === "string";
}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/** The standard claims Convex copies from a token into `UserIdentity`. */
const CLAIMS: Array<[keyof UserIdentity, string]> = [
  ["name", "name"],
  ["givenName", "given_name"],
  ["familyName", "family_name"],
  ["nickname", "nickname"],
  ["preferredUsername", "preferred_username"],
  ["profileUrl", "profile"],
  ["pictureUrl", "picture"],
  ["email", "email"],
  ["emailVerified", "email_verified"],
  ["gender", "gender"],
  ["birthday", "birthdate"],
  ["timezone", "zoneinfo"],
  ["language", "locale"],
  ["phoneNumber", "phone_number"],
  ["phoneNumberVerified", "phone_number_verified"],
  ["address", "address"],
  ["updatedAt", "updated_at"],
];

function identityFrom(payload: JWTPayload): UserIdentity {
  if (typeof payload.iss !== "string" || typeof payload.sub !== "string") throw new AuthFailure("Token without an issuer or subject.");
  const identity: Record<string, unknown> = {
    issuer: payload.iss,
    subject: payload.sub,
    tokenIdentifier: `${payload.iss}|${payload.sub}`,
  };
  for (const [field, claim] of CLAIMS) if (payload[claim] !== undefined) identity[field] = payload[claim];
  return identity as unknown as UserIdentity;
}

/** Verified tokens remembered at once (each a few hundred bytes). */
export const MAX_VERIFIED_TOKENS = 10_000;

/** Verifies tokens against auth.config.ts's providers; key sets are fetched once and cached by jose. */
export class ProviderVerifier implements TokenVerifier {
  private readonly keySets = new Map<string, Promise<JWTVerifyGetKey>>();
  /**
   * Tokens already verified, until they expire: a signature check costs
   * about a millisecond of CPU, and every HTTP call of a client repeats its
   * token. Forgotten when auth.config.ts's providers change.
   */
  private readonly verified = new Map<string, VerifiedToken>();
  private verifiedFor: AuthProvider[] | null = null;

  constructor(private readonly providers: () => AuthProvider[]) {}

  async verify(token: string): Promise<VerifiedToken> {
    const providers = this.providers();
    if (providers !== this.verifiedFor) {
      this.verified.clear();
      this.verifiedFor = providers;
    }
    const known = this.verified.get(token);
    if (known !== undefined) {
      if (Date.now() < known.expiresAt) return known;
      this.verified.delete(token);
    }
    const result = await this.verifyAgainst(providers, token);
    // Oldest first out: a Map iterates in insertion order.
    if (this.verified.size >= MAX_VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, result);
    return result;
  }

  private async verifyAgainst(providers: AuthProvider[], token: string): Promise<VerifiedToken> {
    const issuer = issuerOf(token);
    const candidates = providers.filter((p) => trimSlash(p.type === "customJwt" ? p.issuer : p.domain) === trimSlash(issuer));
    if (candidates.length === 0) throw new AuthFailure(`No auth provider in convex/auth.config.ts trusts the issuer ${issuer}.`);
    let last: unknown = null;
    for (const provider of candidates) {
      try {
        const keys = await this.keySet(provider);
        const { payload } = await jwtVerify(token, keys, {
          issuer: [trimSlash(issuer), `${trimSlash(issuer)}/`],
          audience: provider.applicationID,
          algorithms: provider.type === "customJwt" ? [provider.algorithm] : undefined,
        });
        if (typeof payload.exp !== "number") throw new AuthFailure("Token without an expiry.");
        return { identity: identityFrom(payload), expiresAt: payload.exp * 1000 };
      } catch (error) {
        last = error;
      }
    }
    if (last instanceof AuthFailure) throw last;
    const code = (last as { code?: string } | null)?.code;
    if (code === "ERR_JWT_EXPIRED") throw new AuthFailure("Token expired.");
    throw new AuthFailure(`Could not verify token: ${last instanceof Error ? last.message : String(last)}`);
  }

  private keySet(provider: AuthProvider): Promise<JWTVerifyGetKey> {
    const key = provider.type === "customJwt" ? `jwks:${provider.jwks}` : `oidc:${provider.domain}`;
    let keys = this.keySets.get(key);
    if (keys === undefined) {
      keys = (async () => {
        if (provider.type === "customJwt") return createRemoteJWKSet(new URL(provider.jwks));
        const response = await fetch(`${trimSlash(provider.domain)}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(10_000) });
        if (!response.ok) throw new AuthFailure(`${provider.domain} has no OpenID configuration (${response.status}).`);
        const discovery = (await response.json()) as { jwks_uri?: unknown };
        if (typeof discovery.jwks_uri !== "string") throw new AuthFailure(`${provider.domain}'s OpenID configuration names no jwks_uri.`);
        return createRemoteJWKSet(new URL(discovery.jwks_uri), { timeoutDuration: 10_000 });
      })();
      // A failed discovery is retried on the next token rather than remembered.
      keys.catch(() => this.keySets.delete(key));
      this.keySets.set(key, keys);
    }
    return keys;
  }
}

/** Three dot-separated parts, as every JWT has; anything else is refused as "Malformed token." by `verify`. */
export function isJwtShaped(token: string): boolean {
  return token.split(".").length === 3;
}

function issuerOf(token: string): string {
  const parts = token.split(".");
  if (parts.length !== 3) throw new AuthFailure("Malformed token.");
  try {
    const payload = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as { iss?: unknown };
    if (typeof payload.iss === "string") return payload.iss;
  } catch {
    // Fall through.
  }
  throw new AuthFailure("Malformed token.");
}

export interface AuthKeys {
  /** PKCS#8 PEM with its newlines as spaces, the form Convex Auth reads from JWT_PRIVATE_KEY. */
  privateKey: string;
  /** `{"keys":[<public JWK>]}` as Convex Auth serves it from JWKS. */
  jwks: string;
}

/** Reads Convex Auth's signing keys from `file`, creating them (0600) on first start. */
export function loadOrCreateAuthKeys(file: string): AuthKeys {
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, "utf8")) as Partial<AuthKeys>;
    if (typeof stored.privateKey === "string" && typeof stored.jwks === "string") return { privateKey: stored.privateKey, jwks: stored.jwks };
  }
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const keys: AuthKeys = {
    privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString().trimEnd().replace(/\n/g, " "),
    jwks: JSON.stringify({ keys: [{ use: "sig", alg: "RS256", ...publicKey.export({ format: "jwk" }) }] }),
  };
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}
