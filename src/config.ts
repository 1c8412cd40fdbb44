/** Build-time settings, read once so the rest of the app never touches `import.meta.env`. */

export const CONVEX_URL = import.meta.env.VITE_CONVEX_URL || "http://127.0.0.1:3210";

/**
 * The deployment's HTTP actions (sign-in at `/auth/password`): VITE_CONVEX_SITE_URL,
 * else Convex's own naming (`*.convex.cloud` → `*.convex.site`), else the local
 * backend's default port.
 */
export const SITE_URL =
  import.meta.env.VITE_CONVEX_SITE_URL ||
  (CONVEX_URL.includes(".convex.cloud") ? CONVEX_URL.replace(".convex.cloud", ".convex.site") : "http://127.0.0.1:3211");

/** Empty means local password mode. */
export const CLERK_PUBLISHABLE_KEY = import.meta.env.VITE_CLERK_PUBLISHABLE_KEY || "";
