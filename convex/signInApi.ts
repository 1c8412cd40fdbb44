/**
 * Sign-in for the app: POST /auth/password (convex/http.ts lists the routes).
 * The app signs in and signs up here rather than through `auth:signIn`
 * directly: the route vouches for the client's address (X-Forwarded-For,
 * which the offline backend sets from the socket) with a signed ticket, so
 * the sign-in gate (convex/auth.ts) limits guesses per address as well as
 * per account, with a clear 429 and Retry-After. Body: {flow: "signIn"|"signUp", email,
 * password, name?, inviteToken?, setupPassword?}; answers {token, refreshToken}.
 * Browsers may call it only from the app's origins (SITE_URL, MAESTRO_CORS_ORIGINS).
 *
 * POST /auth/reset uses a password reset link (convex/passwordResets.ts):
 * body {token, password}; the link is used once, the new password set, every
 * session the person had ended, and a fresh one answered as {token, refreshToken}.
 */
import { invalidateSessions, modifyAccountCredentials } from "@convex-dev/auth/server";
import { api, internal } from "./_generated/api";
import { env, type ActionCtx } from "./_generated/server";
import { passwordProblem, RESET_INVALID, signInTicket, WRONG_PASSWORD } from "./lib/accounts";
import { errorData, MaestroError } from "./lib/errors";
import { appOriginsFromEnv } from "./lib/config";
import { clientAddress, corsFrom, json, jsonObjectBody, preflightFrom, RequestRefusal, type HttpRoute } from "./lib/httpJson";
import { limitResetAttempt } from "./records/rateLimits";

const SIGN_IN_FLOWS = new Set(["signIn", "signUp"]);
const SIGN_IN_FIELDS = ["flow", "email", "password", "name", "inviteToken", "setupPassword"];
const MAX_FIELD_CHARS = 500;

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
  // The sign-in gate (convex/auth.ts) limits by this address; the ticket vouches for it, as a caller of auth:signIn cannot.
  const signInTicket = await ticketFor(clientAddress(request));
  let tokens;
  try {
    tokens = (await ctx.runAction(api.auth.signIn, { provider: "password", params: { ...fields, signInTicket } })).tokens;
  } catch (error) {
    // The gate's refusals (429 with Retry-After, 401, who may sign up) are said as they are.
    if (errorData(error) !== null) throw error;
    throw new MaestroError("UNAUTHENTICATED", WRONG_PASSWORD);
  }
  if (tokens == null) throw new MaestroError("UNAUTHENTICATED", WRONG_PASSWORD);
  return json(200, { token: tokens.token, refreshToken: tokens.refreshToken });
}

/** The reset request's fields: a token and a new password within the password rule, checked before the link is used. */
async function resetFields(request: Request): Promise<{ token: string; password: string }> {
  const body = await jsonObjectBody(request);
  const token = body?.token;
  const password = body?.password;
  if (typeof token !== "string" || typeof password !== "string" || token.length > MAX_FIELD_CHARS || password.length > MAX_FIELD_CHARS) {
    throw new RequestRefusal("INVALID_ARGUMENT", "Send a JSON object: {token, password}.");
  }
  const problem = passwordProblem(password);
  if (problem !== null) throw new RequestRefusal("INVALID_ARGUMENT", problem);
  return { token, password };
}

async function passwordReset(ctx: ActionCtx, request: Request): Promise<Response> {
  const address = clientAddress(request);
  const limited = await limitResetAttempt(ctx, address);
  if (limited !== null) {
    const seconds = Math.max(1, Math.ceil(limited.retryAfterMs / 1000));
    throw new MaestroError("RATE_LIMITED", `Too many reset attempts. Try again in ${seconds} s.`, seconds);
  }
  const { token, password } = await resetFields(request);
  const reset = await ctx.runMutation(internal.passwordResets.redeem, { token });
  if (reset === null) throw new MaestroError("INVALID_ARGUMENT", RESET_INVALID);
  await modifyAccountCredentials(ctx, { provider: "password", account: { id: reset.email, secret: password } });
  // Whoever was signed in as them (the person who forgot, or whoever learnt the old password) is signed out.
  await invalidateSessions(ctx, { userId: reset.userId });
  const signInTicket = await ticketFor(address);
  const tokens = (await ctx.runAction(api.auth.signIn, { provider: "password", params: { flow: "signIn", email: reset.email, password, signInTicket } })).tokens;
  if (tokens == null) throw new Error("Signing in with the new password failed");
  return json(200, { token: tokens.token, refreshToken: tokens.refreshToken });
}

/** A ticket for the client's address, signed with the deployment's auth key. */
async function ticketFor(address: string): Promise<string | undefined> {
  const key = env.JWT_PRIVATE_KEY;
  return key === undefined || key === "" ? undefined : await signInTicket(address, Date.now(), key);
}

// No challenge on a refused sign-in: the app shows the message, the browser asks for nothing.
export const SIGN_IN_ROUTES: HttpRoute[] = [
  { path: "/auth/password", method: "OPTIONS", challenge: null, handler: preflightFrom(appOriginsFromEnv, "POST") },
  { path: "/auth/password", method: "POST", challenge: null, handler: passwordSignIn, cors: corsFrom(appOriginsFromEnv) },
  { path: "/auth/reset", method: "OPTIONS", challenge: null, handler: preflightFrom(appOriginsFromEnv, "POST") },
  { path: "/auth/reset", method: "POST", challenge: null, handler: passwordReset, cors: corsFrom(appOriginsFromEnv) },
];
