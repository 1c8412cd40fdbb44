/** Build-time settings, read once so the rest of the app never touches `import.meta.env`. */

export const CONVEX_URL = import.meta.env.VITE_CONVEX_URL || "http://127.0.0.1:3210";

/** Where the local backend serves `/maestro/auth/*` (same origin as Convex). */
export const AUTH_ORIGIN = new URL(CONVEX_URL).origin;

/** Empty means local password mode. */
export const CLERK_PUBLISHABLE_KEY = import.meta.env.VITE_CLERK_PUBLISHABLE_KEY || "";
