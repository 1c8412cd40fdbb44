import { lazy, Suspense } from "react";
import { BrowserRouter } from "react-router";
import { FullPageMessage } from "./components/FullPageMessage";
import LocalApp from "./auth/LocalApp";
import { CLERK_PUBLISHABLE_KEY } from "./config";

// Clerk is its own chunk, so an offline build never downloads it. Password mode is in the
// entry chunk: a lazy chunk is only asked for once the entry has run, a round trip later,
// and the board's first render (and the Convex connection) waited for it.
const ClerkApp = lazy(() => import("./auth/ClerkApp"));

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
