import { lazy, Suspense } from "react";
import { FullPageMessage } from "./components/FullPageMessage";
import { CLERK_PUBLISHABLE_KEY } from "./config";

// Each mode is its own chunk, so an offline build never downloads Clerk.
const ClerkApp = lazy(() => import("./auth/ClerkApp"));
const LocalApp = lazy(() => import("./auth/LocalApp"));

/** Picks the auth mode chosen at build time. */
export function App() {
  return (
    <Suspense fallback={<FullPageMessage>Loading…</FullPageMessage>}>
      {CLERK_PUBLISHABLE_KEY ? <ClerkApp publishableKey={CLERK_PUBLISHABLE_KEY} /> : <LocalApp />}
    </Suspense>
  );
}
