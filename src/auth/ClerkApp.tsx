import { ClerkProvider, SignIn, useAuth, useClerk, useUser } from "@clerk/clerk-react";
import { useConvexAuth, useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import { ConvexProviderWithClerk } from "convex/react-clerk";
import { Button } from "../components/ui/Button";
import { FullPageMessage } from "../components/FullPageMessage";
import { convex } from "../convexClient";
import { AppRoutes } from "../routes";
import { AppShell } from "../shell/AppShell";
import { ExternalOwnerSetup } from "./ExternalOwnerSetup";
import { SignInLayout } from "./SignInLayout";

/** Clerk mode, loaded only when a publishable key was built in. */
export default function ClerkApp({ publishableKey }: { publishableKey: string }) {
  return (
    <ClerkProvider publishableKey={publishableKey} afterSignOutUrl="/">
      <ConvexProviderWithClerk client={convex} useAuth={useAuth}>
        <ClerkGate />
      </ConvexProviderWithClerk>
    </ClerkProvider>
  );
}

/** Signed in: the owner setup first when the deployment has no owner and a setup password guards it, else the app. */
function ClerkSignedIn({ name, onSignOut }: { name: string; onSignOut: () => void }) {
  const setup = useQuery(api.setup.status, {});
  if (setup === undefined) return <FullPageMessage>Connecting…</FullPageMessage>;
  if (setup.needsOwner && setup.setupPasswordRequired) return <ExternalOwnerSetup name={name} onSignOut={onSignOut} />;
  return (
    <AppShell userName={name} onSignOut={onSignOut}>
      <AppRoutes />
    </AppShell>
  );
}

function ClerkGate() {
  const { isLoading, isAuthenticated } = useConvexAuth();
  const { isSignedIn } = useAuth();
  const { user } = useUser();
  const clerk = useClerk();

  const signOut = () => {
    clerk.signOut().catch((error: unknown) => console.error("Sign-out failed", error));
  };

  if (isLoading) return <FullPageMessage>Connecting…</FullPageMessage>;
  if (isAuthenticated) {
    const name = user?.fullName ?? user?.username ?? user?.primaryEmailAddress?.emailAddress ?? "You";
    return <ClerkSignedIn name={name} onSignOut={signOut} />;
  }
  if (isSignedIn) {
    // Clerk is happy but Convex refused the token: usually a missing "convex" JWT template.
    return (
      <FullPageMessage>
        <p className="mb-4">Signed in, but the Maestro server did not accept your session.</p>
        <Button onClick={signOut}>Sign out</Button>
      </FullPageMessage>
    );
  }
  return (
    <SignInLayout className="flex flex-col items-center">
      <SignIn routing="hash" />
    </SignInLayout>
  );
}
