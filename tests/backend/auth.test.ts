import { randomBytes } from "node:crypto";
import { describe, expect, test } from "vitest";
import { AuthFailure, LocalAuth, LOCAL_ISSUER } from "../../tools/local-backend/auth";

const secret = randomBytes(32);

describe("local sign-in", () => {
  test("the right password yields a token carrying the identity; a wrong one is refused", () => {
    const auth = new LocalAuth({ password: "s3cret", secret });
    expect(() => auth.signIn("Ada", "nope")).toThrow(new AuthFailure("Wrong password."));
    expect(() => auth.signIn("Ada", undefined)).toThrow(AuthFailure);
    expect(() => auth.signIn("  ", "s3cret")).toThrow("Enter your name.");
    expect(() => auth.signIn("x".repeat(81), "s3cret")).toThrow("at most 80");
    const { token, expiresAt } = auth.signIn(" Ada  Lovelace ", "s3cret", 1_000_000);
    expect(expiresAt).toBe(1_000_000 + 12 * 3600 * 1000);
    expect(auth.verify(token, 1_000_000)).toEqual({
      issuer: LOCAL_ISSUER,
      subject: "user:ada lovelace",
      tokenIdentifier: "maestro-local|user:ada lovelace",
      name: "Ada  Lovelace",
    });
  });

  test("expired, tampered, foreign and malformed tokens are refused", () => {
    const auth = new LocalAuth({ password: "pw", secret, tokenTtlSeconds: 60 });
    const { token } = auth.signIn("Ada", "pw", 0);
    expect(() => auth.verify(token, 61_000)).toThrow("Token expired.");
    const [header, payload, signature] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ iss: LOCAL_ISSUER, sub: "user:admin", exp: 9e9 })).toString("base64url");
    expect(() => auth.verify(`${header}.${forged}.${signature}`, 0)).toThrow("Invalid token signature.");
    const other = new LocalAuth({ password: "pw", secret: randomBytes(32) });
    expect(() => other.verify(token, 0)).toThrow("Invalid token signature.");
    expect(() => auth.verify("a.b", 0)).toThrow("Malformed token.");
    expect(() => auth.verify(`${header}.${payload}`, 0)).toThrow("Malformed token.");
  });

  test("with no password anyone may sign in; refresh needs a valid token", () => {
    const auth = new LocalAuth({ password: null, secret, tokenTtlSeconds: 60 });
    expect(auth.passwordRequired).toBe(false);
    const { token } = auth.signIn("Grace", undefined, 0);
    const refreshed = auth.refresh(token, 30_000);
    expect(refreshed.expiresAt).toBe(90_000);
    expect(auth.verify(refreshed.token, 80_000).name).toBe("Grace");
    expect(() => auth.refresh(token, 61_000)).toThrow("Token expired.");
  });
});
