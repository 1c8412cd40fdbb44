/** Sign-in and sign-up at the deployment's `POST /auth/password` (convex/http.ts), which limits guesses; a reset link at `POST /auth/reset`. */
import { ClientError } from "../lib/errors";

export type Tokens = { token: string; refreshToken: string };

export type PasswordRequest =
  | { flow: "signIn"; email: string; password: string }
  | { flow: "signUp"; email: string; password: string; name: string; setupPassword?: string; inviteToken?: string };

/** A refusal fit to show: the server's words, or why the server could not be asked. */
export class SignInError extends ClientError {
  constructor(
    message: string,
    /** Seconds to wait, when the server said so (429). */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

async function readJson(response: Response): Promise<Record<string, unknown> | null> {
  try {
    const body: unknown = await response.json();
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Signs in or up; the session's tokens, or a `SignInError` with the server's reason. */
export async function requestPasswordSession(siteUrl: string, request: PasswordRequest): Promise<Tokens> {
  return await postForTokens(`${siteUrl}/auth/password`, request);
}

/** Uses a reset link: sets the new password and answers a fresh session's tokens, or a `SignInError`. */
export async function requestPasswordReset(siteUrl: string, token: string, password: string): Promise<Tokens> {
  return await postForTokens(`${siteUrl}/auth/reset`, { token, password });
}

async function postForTokens(url: string, body: unknown): Promise<Tokens> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch {
    throw new SignInError("Could not reach the Maestro server. Is it running?");
  }
  const answer = await readJson(response);
  if (response.ok && typeof answer?.token === "string" && typeof answer.refreshToken === "string") {
    return { token: answer.token, refreshToken: answer.refreshToken };
  }
  const message = typeof answer?.error === "string" ? answer.error : `Sign-in failed (HTTP ${response.status}).`;
  const retry = Number(response.headers.get("Retry-After"));
  throw new SignInError(message, response.status === 429 && retry > 0 ? retry : null);
}
