import { useMutation } from "convex/react";
import { useCallback, useEffect, useState } from "react";
import { api } from "../../convex/_generated/api";
import { userMessage } from "../lib/errors";

type AccountState = { status: "pending" } | { status: "ready" } | { status: "error"; message: string };

/**
 * Runs `users.ensureExternal` once per signed-in mount: a person signed in
 * through Clerk gets their account row on the first visit. It is idempotent,
 * so StrictMode's double effect run is harmless. A Convex Auth account has
 * its row already (`needed` false): it is ready at once, so the shell's
 * queries don't wait a mutation's round trip behind the board's.
 */
export function useEnsureMembership(needed = true): AccountState & { retry: () => void } {
  const ensureAccount = useMutation(api.users.ensureExternal);
  const [state, setState] = useState<AccountState>({ status: needed ? "pending" : "ready" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!needed) return;
    let active = true;
    ensureAccount({}).then(
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
  }, [ensureAccount, attempt, needed]);

  const retry = useCallback(() => {
    setState({ status: "pending" });
    setAttempt((n) => n + 1);
  }, []);

  return { ...state, retry };
}
