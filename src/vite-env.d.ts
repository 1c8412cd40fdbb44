/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Convex deployment URL. */
  readonly VITE_CONVEX_URL?: string;
  /** The deployment's HTTP actions URL (sign-in lives there); derived from VITE_CONVEX_URL on Convex's cloud. */
  readonly VITE_CONVEX_SITE_URL?: string;
  /** Set to use Clerk; without it the app signs in with Convex Auth's email and password accounts. */
  readonly VITE_CLERK_PUBLISHABLE_KEY?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
