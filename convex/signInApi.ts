/**
 * Sign-in for the app: POST /auth/password (convex/http.ts lists the routes).
 * The app signs in and signs up here rather than through `auth:signIn`
 * directly: the route vouches for the client's address (X-Forwarded-For,
 * which the offline backend sets from the socket) with a signed ticket, so
 * the sign-in gate (convex/auth.ts) limits guesses per address as well as
 * per account, with a clear 429 and Retry-After. Body: {flow: "signIn"|"signUp", email,
 * password, name?, inviteToken?, setupPassword?}; answers {token, refreshToken}.
 * Browsers may call it only from the app's origins (SITE_URL, MAESTRO_CORS_ORIGINS).
 */
import { api } from "./_generated/api";
import { env, type ActionCtx } from "./_generated/server";
import { signInTicket, WRONG_PASSWORD } from "./lib/accounts";
import { errorData, MaestroError } from "./lib/errors";
import { appOriginsFromEnv } from "./lib/config";
import { clientAddress, corsFrom, json, jsonObjectBody, preflightFrom, RequestRefusal, type HttpRoute } from "./lib/httpJson";

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

/** A ticket for the client's address, signed with the deployment's auth key. */
async function ticketFor(address: string): Promise<string | undefined> {
  const key = env.JWT_PRIVATE_KEY;
  return key === undefined || key === "" ? undefined : await signInTicket(address, Date.now(), key);
}

// No challenge on a refused sign-in: the app shows the message, the browser asks for nothing.
export const SIGN_IN_ROUTES: HttpRoute[] = [
  { path: "/auth/password", method: "OPTIONS", challenge: null, handler: preflightFrom(appOriginsFromEnv, "POST") },
  { path: "/auth/password", method: "POST", challenge: null, handler: passwordSignIn, cors: corsFrom(appOriginsFromEnv) },
];
