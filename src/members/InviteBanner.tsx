import { useMutation, useQuery } from "convex/react";
import { useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { userMessage } from "../lib/errors";

/** The invite token in the page's address (`?invite=…`), if any. */
export function inviteTokenFromUrl(): string | null {
  return new URLSearchParams(window.location.search).get("invite");
}

/** Drops `?invite=…` from the address (in place, through the router) once it is used or dismissed. */
function useForgetInvite(): () => void {
  const navigate = useNavigate();
  const { pathname, search, hash } = useLocation();
  return () => {
    const params = new URLSearchParams(search);
    params.delete("invite");
    const rest = params.toString();
    void navigate({ pathname, search: rest === "" ? "" : `?${rest}`, hash }, { replace: true });
  };
}

/** For someone already signed in who opens an invite link: join that department with one click. */
export function InviteBanner({ token, onJoined }: { token: string; onJoined: (departmentId: Id<"departments">) => void }) {
  const preview = useQuery(api.invites.preview, { token });
  const accept = useMutation(api.invites.accept);
  const [error, setError] = useState<string | null>(null);
  const [dismissed, setDismissed] = useState(false);
  const forgetInvite = useForgetInvite();
  if (dismissed || preview === undefined) return null;

  return (
    <div role="status" className="flex flex-wrap items-center gap-3 border-b border-indigo-200 bg-indigo-50 px-4 py-2 text-sm text-indigo-900 sm:px-6 dark:border-indigo-800 dark:bg-indigo-950/40 dark:text-indigo-300">
      {preview === null ? (
        <p className="flex-1">This invite link is not valid any more: it was used, revoked or has expired.</p>
      ) : (
        <p className="flex-1">
          You are invited to join <strong>{preview.departmentName}</strong> as {preview.role}.
        </p>
      )}
      {error && <p className="text-rose-700 dark:text-rose-300">{error}</p>}
      {preview !== null && (
        <Button
          onClick={() => {
            setError(null);
            accept({ token }).then(
              (departmentId) => {
                forgetInvite();
                setDismissed(true);
                onJoined(departmentId);
              },
              (e: unknown) => setError(userMessage(e)),
            );
          }}
        >
          Join {preview.departmentName}
        </Button>
      )}
      <Button
        variant="ghost"
        onClick={() => {
          forgetInvite();
          setDismissed(true);
        }}
      >
        Dismiss
      </Button>
    </div>
  );
}
