import { useQuery } from "convex/react";
import { useId, useState, type ReactNode } from "react";
import { useLocation, useNavigate } from "react-router";
import { api } from "../../convex/_generated/api";
import { Button } from "../components/ui/Button";
import { SITE_URL } from "../config";
import { userMessage } from "../lib/errors";
import type { PasswordRequest } from "./authApi";
import { resetPasswordWithLink, signInWithPassword } from "./localAuth";
import { SignInLayout } from "./SignInLayout";
import { onSubmitted } from "../components/ui/Field";

const INPUT_CLASS =
  "block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-slate-900 ring-1 ring-slate-300 ring-inset placeholder:text-slate-400 focus:ring-2 focus:ring-indigo-600 dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-600";

/** The password rule the server enforces, checked here first for a quicker answer. */
const PASSWORD_MIN_CHARS = 8;

type Props = { siteUrl?: string; inviteToken?: string | null };

/** The reset token in the page's address (`?reset=…`), if any. */
export function resetTokenOf(search: string): string | null {
  return new URLSearchParams(search).get("reset");
}

/**
 * Signed out: the first-run owner setup while no account exists, the invite
 * sign-up when the address carries `?invite=…`, and sign-in otherwise.
 */
export function AuthScreen({ siteUrl = SITE_URL, inviteToken = null }: Props) {
  const status = useQuery(api.setup.status, {});
  if (inviteToken !== null) return <InviteSignUp siteUrl={siteUrl} token={inviteToken} />;
  if (status === undefined) return <SignInLayout className="w-full max-w-sm">{null}</SignInLayout>;
  if (status.needsOwner) return <OwnerSetup siteUrl={siteUrl} setupPasswordRequired={status.setupPasswordRequired} />;
  return <SignInScreen siteUrl={siteUrl} />;
}

/** Email and personal password. */
export function SignInScreen({ siteUrl = SITE_URL }: { siteUrl?: string }) {
  const { values, field } = useTextFields("email", "password");
  return (
    <PasswordForm testId="signin-form" title="Sign in" submitLabel="Sign in" busyLabel="Signing in…" request={() => ({ flow: "signIn", ...values })} siteUrl={siteUrl}>
      <TextField label="Email" type="email" autoComplete="username" {...field("email")} />
      <TextField label="Password" type="password" autoComplete="current-password" {...field("password")} />
    </PasswordForm>
  );
}

/** First run: the owner account, authorised by the WebUI password when one is set. */
export function OwnerSetup({ siteUrl = SITE_URL, setupPasswordRequired }: { siteUrl?: string; setupPasswordRequired: boolean }) {
  const { values, field } = useTextFields("name", "email", "password", "confirm", "setupPassword");
  const { name, email, password, confirm, setupPassword } = values;
  return (
    <PasswordForm
      testId="setup-form"
      title="Create the owner account"
      intro="Nobody has an account on this Maestro yet. You become its owner: you will own the demo department and invite the rest of the squad."
      submitLabel="Create owner account"
      busyLabel="Creating…"
      check={() => newPasswordProblem(password, confirm)}
      request={() => ({ flow: "signUp", name, email, password, ...(setupPasswordRequired ? { setupPassword } : {}) })}
      siteUrl={siteUrl}
    >
      <TextField label="Your name" autoComplete="name" {...field("name")} />
      <TextField label="Email" type="email" autoComplete="username" {...field("email")} />
      <NewPasswordFields field={field} />
      {setupPasswordRequired ? (
        <TextField
          label="Setup password"
          type="password"
          autoComplete="off"
          {...field("setupPassword")}
          hint="The WebUI password this Maestro was started with (webui.password or MAESTRO_WEBUI_PASSWORD)."
        />
      ) : (
        <p className="rounded-lg bg-amber-50 px-3 py-2 text-xs text-amber-800 ring-1 ring-amber-600/20 ring-inset dark:bg-amber-950/40 dark:text-amber-300 dark:ring-amber-400/30">
          No WebUI password is set on this server, so whoever opens it first becomes its owner.
        </p>
      )}
    </PasswordForm>
  );
}

/** An invite link opened while signed out: the invited person picks their name and password. */
export function InviteSignUp({ siteUrl = SITE_URL, token }: { siteUrl?: string; token: string }) {
  const preview = useQuery(api.invites.preview, { token });
  // Signed up: the invite leaves the address, in place.
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { values, field } = useTextFields("name", "password", "confirm");
  const { name, password, confirm } = values;
  if (preview === undefined) return <SignInLayout className="w-full max-w-sm">{null}</SignInLayout>;
  if (preview === null) {
    return (
      <SignInLayout className="w-full max-w-sm">
        <div className="flex flex-col gap-3 rounded-2xl border border-slate-200 bg-white p-6 text-sm shadow-sm dark:bg-slate-900 dark:border-slate-700">
          <p role="alert" className="text-rose-700 dark:text-rose-300">
            This invite link is not valid any more: it was used, revoked or has expired.
          </p>
          <a href={pathname} className="text-indigo-700 underline dark:text-indigo-300">
            Go to sign-in
          </a>
        </div>
      </SignInLayout>
    );
  }
  return (
    <PasswordForm
      testId="invite-form"
      title={`Join ${preview.departmentName}`}
      intro={`You are invited as ${preview.role}, with the email ${preview.email}. Choose your name and a password.`}
      submitLabel={`Join ${preview.departmentName}`}
      busyLabel="Joining…"
      check={() => newPasswordProblem(password, confirm)}
      request={() => ({ flow: "signUp", name, email: preview.email, password, inviteToken: token })}
      onDone={() => void navigate({ pathname }, { replace: true })}
      siteUrl={siteUrl}
    >
      <TextField label="Your name" autoComplete="name" {...field("name")} />
      <NewPasswordFields field={field} />
    </PasswordForm>
  );
}

/**
 * A password reset link (made by an owner or admin in Members): the person
 * it was made for chooses a new password and is signed in with it; every
 * other session of theirs has ended.
 */
export function ResetPassword({ siteUrl = SITE_URL, token }: { siteUrl?: string; token: string }) {
  const preview = useQuery(api.passwordResets.preview, { token });
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { values, field } = useTextFields("password", "confirm");
  const { password, confirm } = values;
  // Dropping `?reset=` from the address is what leaves this page (the gate reads it there).
  const done = () => void navigate({ pathname }, { replace: true });
  if (preview === undefined) return <SignInLayout className="w-full max-w-sm">{null}</SignInLayout>;
  if (preview === null) {
    return (
      <SignInLayout className="w-full max-w-sm">
        <div data-testid="reset-invalid" className="flex flex-col gap-3 rounded-2xl border border-slate-200 bg-white p-6 text-sm shadow-sm dark:bg-slate-900 dark:border-slate-700">
          <p role="alert" className="text-rose-700 dark:text-rose-300">
            This reset link is not valid any more: it was used, replaced or has expired. Ask an owner or admin of your department for a new one.
          </p>
          <button type="button" onClick={done} className="self-start text-indigo-700 underline dark:text-indigo-300">
            Go to sign-in
          </button>
        </div>
      </SignInLayout>
    );
  }
  return (
    <PasswordForm
      testId="reset-form"
      title="Choose a new password"
      intro={`For ${preview.email}. This link works once; using it signs you out everywhere else.`}
      submitLabel="Set password and sign in"
      busyLabel="Setting…"
      check={() => newPasswordProblem(password, confirm)}
      send={() => resetPasswordWithLink(siteUrl, token, preview.email, password)}
      onDone={done}
      siteUrl={siteUrl}
    >
      <input type="email" autoComplete="username" value={preview.email} readOnly hidden />
      <NewPasswordFields field={field} />
    </PasswordForm>
  );
}

/** The values of a form's text fields, named by `keys`, and `field(key)` to bind one to its TextField. */
function useTextFields<K extends string>(...keys: K[]) {
  const [values, setValues] = useState(() => Object.fromEntries(keys.map((key) => [key, ""])) as Record<K, string>);
  const field = (key: K) => ({ value: values[key], onChange: (value: string) => setValues((current) => ({ ...current, [key]: value })) });
  return { values, field };
}

/** A new password, typed twice (see `newPasswordProblem`). */
function NewPasswordFields({ field }: { field: (key: "password" | "confirm") => { value: string; onChange: (value: string) => void } }) {
  return (
    <>
      <TextField label="Password" type="password" autoComplete="new-password" {...field("password")} />
      <TextField label="Confirm password" type="password" autoComplete="new-password" {...field("confirm")} />
    </>
  );
}

function newPasswordProblem(password: string, confirm: string): string | null {
  if (password.length < PASSWORD_MIN_CHARS) return `A password needs at least ${PASSWORD_MIN_CHARS} characters.`;
  if (password !== confirm) return "The two passwords differ.";
  return null;
}

type FormProps = {
  testId: string;
  title: string;
  intro?: string;
  submitLabel: string;
  busyLabel: string;
  siteUrl: string;
  /** What the form sends: a sign-in or sign-up request, or (`send`) anything else that ends in a session. */
  request?: () => PasswordRequest;
  send?: () => Promise<void>;
  check?: () => string | null;
  onDone?: () => void;
  children: ReactNode;
};

function PasswordForm({ testId, title, intro, submitLabel, busyLabel, siteUrl, request, send, check, onDone, children }: FormProps) {
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  function handleSubmit() {
    const problem = check?.() ?? null;
    setError(problem);
    if (problem !== null) return;
    setSubmitting(true);
    // On success the session store flips and this screen unmounts.
    (send ?? (() => signInWithPassword(siteUrl, request!())))()
      .then(() => onDone?.())
      .catch((err: unknown) => setError(userMessage(err, "Sign-in failed. Please try again.")))
      .finally(() => setSubmitting(false));
  }

  return (
    <SignInLayout className="w-full max-w-sm">
      <form data-testid={testId} onSubmit={onSubmitted(handleSubmit)} className="flex flex-col gap-4 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm dark:bg-slate-900 dark:border-slate-700">
        <h1 className="text-base font-semibold text-slate-900 dark:text-slate-100">{title}</h1>
        {intro && <p className="text-sm text-slate-600 dark:text-slate-300">{intro}</p>}
        {children}
        {error !== null && (
          <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
            {error}
          </p>
        )}
        <Button type="submit" disabled={submitting}>
          {submitting ? busyLabel : submitLabel}
        </Button>
      </form>
    </SignInLayout>
  );
}

type FieldProps = {
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: string;
  autoComplete?: string;
  hint?: string;
};

function TextField({ label, value, onChange, type = "text", autoComplete, hint }: FieldProps) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-slate-700 dark:text-slate-200">
        {label}
      </label>
      <input id={id} type={type} autoComplete={autoComplete} required value={value} onChange={(e) => onChange(e.target.value)} className={INPUT_CLASS} />
      {hint && <p className="text-xs text-slate-500 dark:text-slate-400">{hint}</p>}
    </div>
  );
}
