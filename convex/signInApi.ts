/**
 * Sign-in for the app: POST /auth/password (convex/http.ts lists the routes).
 * The app signs in and signs up here rather than through `auth:signIn`
 * directly, so guesses are limited per account and per client address
 * (X-Forwarded-For, which the offline backend sets from the socket) with a
 * clear 429 and Retry-After. Body: {flow: "signIn"|"signUp", email,
 * password, name?, inviteToken?, setupPassword?}; answers {token, refreshToken}.
 * Browsers may call it only from the app's origins (SITE_URL, MAESTRO_CORS_ORIGINS).
 */
import { api } from "./_generated/api";
import type { ActionCtx } from "./_generated/server";
import { errorData, MaestroError } from "./lib/errors";
import { appOriginsFromEnv } from "./lib/config";
import { clientAddress, corsFrom, json, jsonObjectBody, preflightFrom, RequestRefusal, type HttpRoute } from "./lib/httpJson";
import { checkSignInLimits, recordSignInFailure } from "./records/rateLimits";

const SIGN_IN_FLOWS = new Set(["signIn", "signUp"]);
const SIGN_IN_FIELDS = ["flow", "email", "password", "name", "inviteToken", "setupPassword"];
const MAX_FIELD_CHARS = 500;
const WRONG_PASSWORD = "Wrong email or password.";

/** The request's sign-in fields, checked before anything is looked up. */
async function signInFields(request: Request): Promise<Record<string, string>> {
  const body = await jsonObjectBody(request);
  if (body === null) throw new RequestRefusal("INVALID_ARGUMENT", "Send a JSON object: {flow, email, password}.");
  const fields: Record<string, string> = {};
  for (const key of SIGN_IN_FIELDS) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value.length > MAX_FIELD_CHARS) throw new RequestRefusal("INVALID_ARGUMENT", `"${key}" must be a string of at most ${MAX_FIELD_CHARS} characters.`);
    fields[key] = value;
  }
  if (!SIGN_IN_FLOWS.has(fields.flow ?? "")) throw new RequestRefusal("INVALID_ARGUMENT", '"flow" must be "signIn" or "signUp".');
  if (!fields.email || !fields.password) throw new RequestRefusal("INVALID_ARGUMENT", "Enter your email and password.");
  return fields;
}

async function passwordSignIn(ctx: ActionCtx, request: Request): Promise<Response> {
  const fields = await signInFields(request);
  const account = fields.email.trim().toLowerCase();
  const address = clientAddress(request);
  const limited = await checkSignInLimits(ctx, { account, address });
  if (limited !== null) {
    const seconds = Math.max(1, Math.ceil(limited.retryAfterMs / 1000));
    throw new MaestroError("RATE_LIMITED", `Too many sign-in attempts. Try again in ${seconds} s.`, seconds);
  }
  let tokens;
  try {
    tokens = (await ctx.runAction(api.auth.signIn, { provider: "password", params: fields })).tokens;
  } catch (error) {
    await recordSignInFailure(ctx, account);
    // Who may sign up, and what an email, name or password must be: said as it is (records/accounts).
    if (errorData(error) !== null) throw error;
    const message = error instanceof Error ? error.message : "";
    if (/TooManyFailedAttempts/.test(message)) throw new MaestroError("RATE_LIMITED", "Too many failed attempts for this account. Try again later.", 600);
    if (fields.flow === "signUp" && /already exists/.test(message)) throw new MaestroError("CONFLICT", "An account with this email exists already; sign in instead.");
    throw new MaestroError("UNAUTHENTICATED", WRONG_PASSWORD);
  }
  if (tokens == null) {
    await recordSignInFailure(ctx, account);
    throw new MaestroError("UNAUTHENTICATED", WRONG_PASSWORD);
  }
  return json(200, { token: tokens.token, refreshToken: tokens.refreshToken });
}

// No challenge on a refused sign-in: the app shows the message, the browser asks for nothing.
export const SIGN_IN_ROUTES: HttpRoute[] = [
  { path: "/auth/password", method: "OPTIONS", challenge: null, handler: preflightFrom(appOriginsFromEnv, "POST") },
  { path: "/auth/password", method: "POST", challenge: null, handler: passwordSignIn, cors: corsFrom(appOriginsFromEnv) },
];
