import { useMutation } from "convex/react";
import { useCallback, useEffect, useState } from "react";
import { api } from "../../convex/_generated/api";
import { userMessage } from "../lib/errors";

type MembershipState = { status: "pending" } | { status: "ready" } | { status: "error"; message: string };

/**
 * Runs `members.ensureMe` once per signed-in mount: it creates the caller's
 * memberships, which `departments.listMine` needs to return anything.
 * It is idempotent, so StrictMode's double effect run is harmless.
 */
export function useEnsureMembership(): MembershipState & { retry: () => void } {
  const ensureMe = useMutation(api.members.ensureMe);
  const [state, setState] = useState<MembershipState>({ status: "pending" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let active = true;
    ensureMe().then(
      () => {
        if (active) setState({ status: "ready" });
      },
      (error: unknown) => {
        if (active) setState({ status: "error", message: userMessage(error) });
      },
    );
    return () => {
      active = false;
    };
  }, [ensureMe, attempt]);

  const retry = useCallback(() => {
    setState({ status: "pending" });
    setAttempt((n) => n + 1);
  }, []);

  return { ...state, retry };
}
