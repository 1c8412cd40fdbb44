import { useCallback, useMemo, useSyncExternalStore } from "react";
import { requestRefresh, requestSignIn } from "./localAuthApi";
import {
  clearSession,
  isExpiring,
  readSession,
  subscribeSession,
  writeSession,
  type LocalSession,
} from "./session";

/** Signs in against the local backend and stores the session; throws `SignInError`. */
export async function signInLocal(origin: string, name: string, password: string): Promise<void> {
  const issued = await requestSignIn(origin, name, password);
  writeSession({ token: issued.token, expiresAt: issued.expiresAt, name });
}

/** Signs out: the Convex provider sees `isAuthenticated` drop and clears the client's auth. */
export function signOutLocal(): void {
  clearSession();
}

// One refresh at a time: Convex may ask again while a refresh is in flight.
let refreshing: Promise<string | null> | null = null;

async function refreshToken(origin: string, session: LocalSession): Promise<string | null> {
  try {
    const issued = await requestRefresh(origin, session.token);
    // Signed out (or in as someone else) meanwhile: don't bring the old session back.
    if (readSession()?.token !== session.token) return readSession()?.token ?? null;
    writeSession({ ...session, token: issued.token, expiresAt: issued.expiresAt });
    return issued.token;
  } catch {
    if (readSession()?.token === session.token) clearSession();
    return null;
  }
}

/**
 * The token for Convex: the stored one while it is fresh, a refreshed one when
 * Convex asks for it (the server rejected the old one) or it is about to
 * expire. A failed refresh signs the user out and yields null.
 */
export async function getAccessToken(origin: string, forceRefresh: boolean): Promise<string | null> {
  const session = readSession();
  if (session === null) return null;
  if (!forceRefresh && !isExpiring(session, Date.now())) return session.token;
  refreshing ??= refreshToken(origin, session).finally(() => {
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
export function makeUseLocalConvexAuth(origin: string) {
  return function useLocalConvexAuth() {
    const isAuthenticated = useLocalSession() !== null;
    const fetchAccessToken = useCallback(
      ({ forceRefreshToken }: { forceRefreshToken: boolean }) => getAccessToken(origin, forceRefreshToken),
      [],
    );
    return useMemo(
      () => ({ isLoading: false, isAuthenticated, fetchAccessToken }),
      [isAuthenticated, fetchAccessToken],
    );
  };
}
