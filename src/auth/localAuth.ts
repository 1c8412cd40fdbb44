import { ConvexHttpClient } from "convex/browser";
import { useCallback, useMemo, useSyncExternalStore } from "react";
import { api } from "../../convex/_generated/api";
import { requestPasswordReset, requestPasswordSession, type PasswordRequest } from "./authApi";
import { clearSession, isExpiring, readSession, subscribeSession, writeSession, type LocalSession } from "./session";

/** Signs in (or up) and stores the session; throws `SignInError`. */
export async function signInWithPassword(siteUrl: string, request: PasswordRequest): Promise<void> {
  const tokens = await requestPasswordSession(siteUrl, request);
  writeSession({ ...tokens, email: request.email.trim().toLowerCase() });
}

/** Sets a new password with a reset link and stores the fresh session (every other one of that person has ended); throws `SignInError`. */
export async function resetPasswordWithLink(siteUrl: string, token: string, email: string, password: string): Promise<void> {
  const tokens = await requestPasswordReset(siteUrl, token, password);
  writeSession({ ...tokens, email });
}

/**
 * Signs out here, then on the server (the session is deleted, so the token
 * stops working everywhere at once). A server that cannot be reached still
 * leaves this browser signed out.
 */
export async function signOutEverywhere(convexUrl: string, settled: () => Promise<void> = async () => {}): Promise<void> {
  const session = readSession();
  // The app lets go of its live queries first (the sign-in screen replaces it), and what it sends
  // as it goes (leaving the presence room) lands first, so nothing runs on a session the server
  // has just ended (each would log UNAUTHENTICATED).
  clearSession();
  await settled();
  if (session !== null) {
    const client = new ConvexHttpClient(convexUrl);
    client.setAuth(session.token);
    await client.action(api.auth.signOut, {}).catch(() => undefined);
  }
}

// One refresh at a time: a refresh token works once, and Convex may ask again while one is in flight.
let refreshing: Promise<string | null> | null = null;

async function refresh(convexUrl: string, session: LocalSession): Promise<string | null> {
  try {
    const result = await new ConvexHttpClient(convexUrl).action(api.auth.signIn, { refreshToken: session.refreshToken });
    // Signed out (or in as someone else) meanwhile: don't bring the old session back.
    if (readSession()?.refreshToken !== session.refreshToken) return readSession()?.token ?? null;
    if (!result.tokens) {
      clearSession();
      return null;
    }
    writeSession({ ...session, token: result.tokens.token, refreshToken: result.tokens.refreshToken });
    return result.tokens.token;
  } catch {
    // Unreachable server: keep the session, so a reconnect can try again.
    return null;
  }
}

/**
 * The token for Convex: the stored one while it is fresh, a refreshed one when
 * Convex asks for it (the server rejected the old one) or it is about to
 * expire. A refused refresh signs the user out and yields null.
 */
export async function getAccessToken(convexUrl: string, forceRefresh: boolean): Promise<string | null> {
  const session = readSession();
  if (session === null) return null;
  if (!forceRefresh && !isExpiring(session, Date.now())) return session.token;
  refreshing ??= refresh(convexUrl, session).finally(() => {
    refreshing = null;
  });
  return await refreshing;
}

/** The current local session, re-rendering on sign-in/out. */
export function useLocalSession(): LocalSession | null {
  return useSyncExternalStore(subscribeSession, readSession, readSession);
}

/**
 * Builds the `useAuth` hook for `ConvexProviderWithAuth`. `fetchAccessToken`
 * is stable and `isAuthenticated` only flips on sign-in/out, so a routine token
 * refresh does not make Convex re-authenticate.
 */
export function makeUseLocalConvexAuth(convexUrl: string) {
  return function useLocalConvexAuth() {
    const isAuthenticated = useLocalSession() !== null;
    const fetchAccessToken = useCallback(
      ({ forceRefreshToken }: { forceRefreshToken: boolean }) => getAccessToken(convexUrl, forceRefreshToken),
      [],
    );
    return useMemo(() => ({ isLoading: false, isAuthenticated, fetchAccessToken }), [isAuthenticated, fetchAccessToken]);
  };
}
