/** HTTP calls to the local backend's `/maestro/auth/*` endpoints. */

export type AuthConfig = { passwordRequired: boolean };
export type IssuedToken = { token: string; expiresAt: number };

/** A sign-in the server refused or could not handle; `message` is fit to show. */
export class SignInError extends Error {}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return null;
  }
}

function isIssuedToken(body: unknown): body is IssuedToken {
  return (
    typeof body === "object" &&
    body !== null &&
    "token" in body &&
    typeof body.token === "string" &&
    "expiresAt" in body &&
    typeof body.expiresAt === "number"
  );
}

/** Whether this server wants a password; throws when it cannot be reached. */
export async function fetchAuthConfig(origin: string, signal?: AbortSignal): Promise<AuthConfig> {
  const response = await fetch(`${origin}/maestro/auth/config`, { signal });
  const body = await readJson(response);
  if (!response.ok || typeof body !== "object" || body === null || !("passwordRequired" in body)) {
    throw new Error(`Unexpected auth config response (${response.status})`);
  }
  return { passwordRequired: body.passwordRequired === true };
}

/** Exchanges a name and password for a token; throws `SignInError` with the server's reason. */
export async function requestSignIn(origin: string, name: string, password: string): Promise<IssuedToken> {
  let response: Response;
  try {
    response = await fetch(`${origin}/maestro/auth/signin`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name, password }),
    });
  } catch {
    throw new SignInError("Could not reach the Maestro server. Is it running?");
  }
  const body = await readJson(response);
  if (response.ok && isIssuedToken(body)) return body;
  const serverError =
    typeof body === "object" && body !== null && "error" in body && typeof body.error === "string"
      ? body.error
      : null;
  throw new SignInError(serverError ?? `Sign-in failed (HTTP ${response.status}).`);
}

/** Trades a token for a fresh one; throws when the server refuses it. */
export async function requestRefresh(origin: string, token: string): Promise<IssuedToken> {
  const response = await fetch(`${origin}/maestro/auth/refresh`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
  });
  const body = await readJson(response);
  if (response.ok && isIssuedToken(body)) return body;
  throw new Error(`Token refresh refused (HTTP ${response.status})`);
}
