import { ConvexProviderWithAuth, useConvexAuth, useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import { useState } from "react";
import { useLocation } from "react-router";
import { Button } from "../components/ui/Button";
import { FullPageMessage } from "../components/FullPageMessage";
import { CONVEX_URL } from "../config";
import { convex } from "../convexClient";
import { inviteTokenFromUrl } from "../members/InviteBanner";
import { useEarlyBoardPrefetch } from "../board/prefetch";
import { AppRoutes } from "../routes";
import { AppShell } from "../shell/AppShell";
import { makeUseLocalConvexAuth, signOutEverywhere, useLocalSession } from "./localAuth";
import { clearSession } from "./session";
import { AuthScreen, ResetPassword, resetTokenOf } from "./SignInScreen";

// Module-level so its identity is stable, as ConvexProviderWithAuth expects.
const useLocalConvexAuth = makeUseLocalConvexAuth(CONVEX_URL);

/** Until the client has nothing in flight (the app has unmounted and said goodbye), at most 2 s. */
async function clientSettled(): Promise<void> {
  const deadline = Date.now() + 2_000;
  do await new Promise((resolve) => setTimeout(resolve, 50));
  while (convex.connectionState().hasInflightRequests && Date.now() < deadline);
}

const signOut = () => void signOutEverywhere(CONVEX_URL, clientSettled);

/** Email and password accounts (Convex Auth), for the offline backend and any Convex deployment. */
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
  const [inviteToken] = useState(inviteTokenFromUrl);
  // Read from the address on every render, not kept in state: the board shows
  // only once the used link has left the address, so no redirect carries it along.
  const resetToken = resetTokenOf(useLocation().search);
  // Ended on the server (a reset or a password change elsewhere) while the token is still good.
  const sessionLive = useQuery(api.users.sessionLive, session !== null && isAuthenticated && resetToken === null ? {} : "skip");
  // The board's queries ride along with the token check, not a round trip after it.
  useEarlyBoardPrefetch(session !== null, isLoading);

  // A reset link is for the person it names, whoever this browser was signed in as.
  if (resetToken !== null) return <ResetPassword token={resetToken} />;
  if (session === null) return <AuthScreen inviteToken={inviteToken} />;
  if (isLoading) {
    // Stays here while the server is unreachable (Convex keeps retrying), so offer a way out.
    return (
      <FullPageMessage>
        <p className="mb-4">Connecting to the Maestro server…</p>
        <Button variant="ghost" onClick={clearSession}>
          Sign out
        </Button>
      </FullPageMessage>
    );
  }
  if (!isAuthenticated || sessionLive === false) {
    // The session could not be renewed (signed out elsewhere, password changed, server data reset).
    return (
      <FullPageMessage>
        <p className="mb-4">Your session has ended.</p>
        <Button onClick={clearSession}>Sign in again</Button>
      </FullPageMessage>
    );
  }
  // A Convex Auth account has its row from sign-up: nothing to create first.
  return (
    <AppShell userName={session.email} onSignOut={signOut} ensureAccount={false}>
      <AppRoutes />
    </AppShell>
  );
}
