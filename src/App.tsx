import { lazy, Suspense } from "react";
import { BrowserRouter } from "react-router";
import { FullPageMessage } from "./components/FullPageMessage";
import { CLERK_PUBLISHABLE_KEY } from "./config";

// Each mode is its own chunk, so an offline build never downloads Clerk.
const ClerkApp = lazy(() => import("./auth/ClerkApp"));
const LocalApp = lazy(() => import("./auth/LocalApp"));

/**
 * Picks the auth mode chosen at build time. The router is outside it, so an
 * address opened before signing in (a task, an agent) is where you land after.
 */
export function App() {
  return (
    <BrowserRouter>
      <Suspense fallback={<FullPageMessage>Loading…</FullPageMessage>}>
        {CLERK_PUBLISHABLE_KEY ? <ClerkApp publishableKey={CLERK_PUBLISHABLE_KEY} /> : <LocalApp />}
      </Suspense>
    </BrowserRouter>
  );
}
