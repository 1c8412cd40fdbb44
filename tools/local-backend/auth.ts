/**
 * Local sign-in: with no Clerk offline, the WebUI password gates sign-in and
 * a correct one yields a signed, expiring JWT (HS256) that the React client
 * hands to Convex through `setAuth`. The backend verifies it on every
 * Authenticate and HTTP call and turns it into the identity functions see
 * through `ctx.auth.getUserIdentity()`.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { UserIdentity } from "convex/server";

export const LOCAL_ISSUER = "maestro-local";
export const DEFAULT_TOKEN_TTL_SECONDS = 12 * 60 * 60;
const MAX_NAME_LENGTH = 80;

export class AuthFailure extends Error {}

export interface LocalAuthOptions {
  /** The WebUI password; null means anyone may sign in (logged as a security warning). */
  password: string | null;
  secret: Buffer;
  tokenTtlSeconds?: number;
}

/** Reads the signing secret from `file`, creating it on first start. */
export function loadOrCreateSecret(file: string): Buffer {
  if (existsSync(file)) return Buffer.from(readFileSync(file, "utf8").trim(), "base64url");
  const secret = randomBytes(32);
  writeFileSync(file, secret.toString("base64url"), { mode: 0o600 });
  return secret;
}

export class LocalAuth {
  private readonly ttl: number;

  constructor(private readonly options: LocalAuthOptions) {
    this.ttl = options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  }

  get passwordRequired(): boolean {
    return this.options.password !== null;
  }

  /** Checks the password and returns a token for `name`; throws AuthFailure otherwise. */
  signIn(name: unknown, password: unknown, nowMs = Date.now()): { token: string; expiresAt: number } {
    const cleanName = typeof name === "string" ? name.trim() : "";
    if (cleanName === "") throw new AuthFailure("Enter your name.");
    if (cleanName.length > MAX_NAME_LENGTH) throw new AuthFailure(`Names are at most ${MAX_NAME_LENGTH} characters.`);
    if (this.options.password !== null) {
      if (typeof password !== "string" || !sameSecret(password, this.options.password)) {
        throw new AuthFailure("Wrong password.");
      }
    }
    return this.issue(cleanName, nowMs);
  }

  /** A fresh token for the holder of a still-valid one. */
  refresh(token: string, nowMs = Date.now()): { token: string; expiresAt: number } {
    const identity = this.verify(token, nowMs);
    return this.issue(identity.name ?? "Human", nowMs);
  }

  /** The identity a valid token carries; throws AuthFailure for a bad or expired one. */
  verify(token: string, nowMs = Date.now()): UserIdentity {
    const parts = token.split(".");
    if (parts.length !== 3) throw new AuthFailure("Malformed token.");
    const [header, payload, signature] = parts;
    const expected = this.sign(`${header}.${payload}`);
    if (!sameSecret(signature, expected)) throw new AuthFailure("Invalid token signature.");
    let claims: { iss?: string; sub?: string; name?: string; exp?: number; iat?: number };
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof claims;
    } catch {
      throw new AuthFailure("Malformed token.");
    }
    if (claims.iss !== LOCAL_ISSUER || typeof claims.sub !== "string") throw new AuthFailure("Token from an unknown issuer.");
    if (typeof claims.exp !== "number" || claims.exp * 1000 <= nowMs) throw new AuthFailure("Token expired.");
    return {
      issuer: LOCAL_ISSUER,
      subject: claims.sub,
      tokenIdentifier: `${LOCAL_ISSUER}|${claims.sub}`,
      name: claims.name,
    };
  }

  private issue(name: string, nowMs: number) {
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + this.ttl;
    const header = b64(JSON.stringify({ alg: "HS256", typ: "JWT" }));
    const payload = b64(JSON.stringify({ iss: LOCAL_ISSUER, sub: subjectFor(name), name, iat, exp, aud: "convex" }));
    const token = `${header}.${payload}.${this.sign(`${header}.${payload}`)}`;
    return { token, expiresAt: exp * 1000 };
  }

  private sign(data: string): string {
    return createHmac("sha256", this.options.secret).update(data).digest("base64url");
  }
}

/** One person per name (case- and space-insensitive) in password mode. */
export function subjectFor(name: string): string {
  return `user:${name.trim().toLowerCase().replace(/\s+/g, " ")}`;
}

function b64(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
