/**
 * The local-mode session, kept in localStorage so a reload stays signed in.
 * A tiny external store: components read it with `useSyncExternalStore`, and
 * the Convex token fetcher reads it directly, so refreshing a token never
 * re-renders or re-authenticates the whole tree.
 */

export const SESSION_KEY = "maestro.session";

/** A Convex Auth session: its short-lived token, the one-time refresh token that renews it, and who signed in. */
export type LocalSession = {
  token: string;
  refreshToken: string;
  email: string;
};

/** Refresh this long before expiry so a request never leaves with a dying token. */
const EXPIRY_MARGIN_MS = 30_000;

const listeners = new Set<() => void>();
let cachedRaw: string | null = null;
let cachedSession: LocalSession | null = null;

function readRaw(): string | null {
  try {
    return localStorage.getItem(SESSION_KEY);
  } catch {
    return null; // Storage disabled: behave as signed out.
  }
}

function parse(raw: string | null): LocalSession | null {
  if (raw === null) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (
      typeof value === "object" &&
      value !== null &&
      "token" in value &&
      typeof value.token === "string" &&
      "refreshToken" in value &&
      typeof value.refreshToken === "string" &&
      "email" in value &&
      typeof value.email === "string"
    ) {
      return { token: value.token, refreshToken: value.refreshToken, email: value.email };
    }
  } catch {
    // Corrupt entry: treat as signed out.
  }
  return null;
}

function notify() {
  for (const listener of listeners) listener();
}

/** The stored session, or null. Returns the same object until storage changes. */
export function readSession(): LocalSession | null {
  const raw = readRaw();
  if (raw !== cachedRaw) {
    cachedRaw = raw;
    cachedSession = parse(raw);
  }
  return cachedSession;
}

/** Stores a session and tells subscribers. */
export function writeSession(session: LocalSession): void {
  try {
    localStorage.setItem(SESSION_KEY, JSON.stringify(session));
  } catch {
    // Storage full or disabled; the session then lasts only as long as nothing re-reads it.
  }
  notify();
}

/** Forgets the session (sign out) and tells subscribers. */
export function clearSession(): void {
  try {
    localStorage.removeItem(SESSION_KEY);
  } catch {
    // Nothing stored to remove.
  }
  notify();
}

/** Subscribes to session changes, including sign-in/out in other tabs. */
export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === SESSION_KEY || event.key === null) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

/** When the token expires (its JWT `exp`), in milliseconds; 0 when it cannot be read. */
export function tokenExpiresAt(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown };
    return typeof payload.exp === "number" ? payload.exp * 1000 : 0;
  } catch {
    return 0;
  }
}

/** True when the token is expired or about to be. */
export function isExpiring(session: LocalSession, now: number): boolean {
  return tokenExpiresAt(session.token) - EXPIRY_MARGIN_MS <= now;
}
