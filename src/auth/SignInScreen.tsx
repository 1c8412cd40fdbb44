import { useEffect, useId, useState, type FormEvent } from "react";
import { Button } from "../components/ui/Button";
import { AUTH_ORIGIN } from "../config";
import { signInLocal } from "./localAuth";
import { SignInLayout } from "./SignInLayout";
import { fetchAuthConfig, SignInError } from "./localAuthApi";

/** Unknown until the server answers; the password field shows meanwhile, the safe guess. */
type ServerState = { kind: "checking" } | { kind: "ready"; passwordRequired: boolean } | { kind: "unreachable" };

const INPUT_CLASS =
  "block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-slate-900 ring-1 ring-slate-300 ring-inset placeholder:text-slate-400 focus:ring-2 focus:ring-indigo-600";

/** Local password mode's sign-in: a name (how the squad sees you) and, if the server wants one, its password. */
export function SignInScreen({ origin = AUTH_ORIGIN }: { origin?: string }) {
  const [server, setServer] = useState<ServerState>({ kind: "checking" });
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const nameId = useId();
  const passwordId = useId();

  useEffect(() => {
    const controller = new AbortController();
    fetchAuthConfig(origin, controller.signal).then(
      (config) => setServer({ kind: "ready", passwordRequired: config.passwordRequired }),
      () => {
        if (!controller.signal.aborted) setServer({ kind: "unreachable" });
      },
    );
    return () => controller.abort();
  }, [origin]);

  const showPassword = server.kind !== "ready" || server.passwordRequired;

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    setSubmitting(true);
    // On success the session store flips and this screen unmounts.
    signInLocal(origin, name.trim(), showPassword ? password : "")
      .catch((err: unknown) => {
        setError(err instanceof SignInError ? err.message : "Sign-in failed. Please try again.");
      })
      .finally(() => setSubmitting(false));
  }

  return (
    <SignInLayout className="w-full max-w-sm">
      <form
        data-testid="signin-form"
        onSubmit={handleSubmit}
        className="flex flex-col gap-4 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm"
      >
        <div className="flex flex-col gap-1.5">
          <label htmlFor={nameId} className="text-sm font-medium text-slate-700">
            Your name
          </label>
          <input
            id={nameId}
            name="name"
            autoComplete="username"
            required
            value={name}
            onChange={(e) => setName(e.target.value)}
            className={INPUT_CLASS}
          />
        </div>

        {showPassword ? (
          <div className="flex flex-col gap-1.5">
            <label htmlFor={passwordId} className="text-sm font-medium text-slate-700">
              Password
            </label>
            <input
              id={passwordId}
              name="password"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              className={INPUT_CLASS}
            />
          </div>
        ) : (
          <p className="rounded-lg bg-amber-50 px-3 py-2 text-xs text-amber-800 ring-1 ring-amber-600/20 ring-inset">
            No password is set on this server — anyone who can reach it can sign in.
          </p>
        )}

        {server.kind === "unreachable" && (
          <p className="text-xs text-slate-500">Could not reach the Maestro server at {origin}.</p>
        )}

        {error !== null && (
          <p role="alert" className="text-sm text-rose-700">
            {error}
          </p>
        )}

        <Button type="submit" disabled={submitting || name.trim() === ""}>
          {submitting ? "Signing in…" : "Sign in"}
        </Button>
      </form>
    </SignInLayout>
  );
}
