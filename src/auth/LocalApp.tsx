import { ConvexProviderWithAuth, useConvexAuth } from "convex/react";
import { Button } from "../components/ui/Button";
import { FullPageMessage } from "../components/FullPageMessage";
import { AUTH_ORIGIN } from "../config";
import { convex } from "../convexClient";
import { AppShell } from "../shell/AppShell";
import { makeUseLocalConvexAuth, signOutLocal, useLocalSession } from "./localAuth";
import { SignInScreen } from "./SignInScreen";

// Module-level so its identity is stable, as ConvexProviderWithAuth expects.
const useLocalConvexAuth = makeUseLocalConvexAuth(AUTH_ORIGIN);

/** Local password mode: sessions from the local backend's `/maestro/auth/*`. */
export default function LocalApp() {
  return (
    <ConvexProviderWithAuth client={convex} useAuth={useLocalConvexAuth}>
      <LocalGate />
    </ConvexProviderWithAuth>
  );
}

function LocalGate() {
  const session = useLocalSession();
  const { isLoading, isAuthenticated } = useConvexAuth();

  if (session === null) return <SignInScreen />;
  if (isLoading) {
    // Stays here while the server is unreachable (Convex keeps retrying), so offer a way out.
    return (
      <FullPageMessage>
        <p className="mb-4">Connecting to the Maestro server…</p>
        <Button variant="ghost" onClick={signOutLocal}>
          Sign out
        </Button>
      </FullPageMessage>
    );
  }
  if (!isAuthenticated) {
    // Stored token refreshed fine but the server still refused it (e.g. its key changed).
    return (
      <FullPageMessage>
        <p className="mb-4">The server did not accept your session.</p>
        <Button onClick={signOutLocal}>Sign in again</Button>
      </FullPageMessage>
    );
  }
  return <AppShell userName={session.name} onSignOut={signOutLocal} />;
}
