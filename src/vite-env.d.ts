/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Convex deployment URL; the local backend serves its auth endpoints here too. */
  readonly VITE_CONVEX_URL?: string;
  /** Set to use Clerk; without it the app signs in against the local backend. */
  readonly VITE_CLERK_PUBLISHABLE_KEY?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
