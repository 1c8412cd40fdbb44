/** Sign-in and sign-up at the deployment's `POST /auth/password` (convex/http.ts), which limits guesses. */
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
  let response: Response;
  try {
    response = await fetch(`${siteUrl}/auth/password`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
    });
  } catch {
    throw new SignInError("Could not reach the Maestro server. Is it running?");
  }
  const body = await readJson(response);
  if (response.ok && typeof body?.token === "string" && typeof body.refreshToken === "string") {
    return { token: body.token, refreshToken: body.refreshToken };
  }
  const message = typeof body?.error === "string" ? body.error : `Sign-in failed (HTTP ${response.status}).`;
  const retry = Number(response.headers.get("Retry-After"));
  throw new SignInError(message, response.status === 429 && retry > 0 ? retry : null);
}
