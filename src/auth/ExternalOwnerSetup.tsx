import { useMutation } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import { Button } from "../components/ui/Button";
import { Field, InlineError, onSubmitted, TextInput } from "../components/ui/Field";
import { useSave } from "../lib/useSave";
import { SignInLayout } from "./SignInLayout";

/**
 * The owner setup for a person signed in through Clerk when the deployment
 * has no owner yet and a setup password is configured: the same door as the
 * email owner setup. Once it is accepted, the deployment has its owner and
 * the app opens on its own (the setup status is live).
 */
export function ExternalOwnerSetup({ name, onSignOut }: { name: string; onSignOut: () => void }) {
  const ensureAccount = useMutation(api.users.ensureExternal);
  const [setupPassword, setSetupPassword] = useState("");
  const { saving, failure, save } = useSave();
  const id = useId();
  return (
    <SignInLayout className="w-full max-w-sm">
      <form
        data-testid="external-setup-form"
        onSubmit={onSubmitted(() => save(ensureAccount({ setupPassword })))}
        className="flex flex-col gap-4 rounded-xl bg-white p-6 shadow-sm ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700"
      >
        <div className="flex flex-col gap-1">
          <h1 className="text-base font-semibold text-slate-900 dark:text-slate-100">Set up Maestro</h1>
          <p className="text-sm text-slate-600 dark:text-slate-300">
            {name}, you are the first person here: you will own this Maestro. Enter the setup password (the WebUI password, <code>webui.password</code> or{" "}
            <code>MAESTRO_WEBUI_PASSWORD</code>) to continue.
          </p>
        </div>
        <Field label="Setup password" htmlFor={`${id}-setup`}>
          <TextInput id={`${id}-setup`} type="password" value={setupPassword} onChange={(e) => setSetupPassword(e.target.value)} required autoFocus autoComplete="off" />
        </Field>
        {failure && <InlineError>{failure}</InlineError>}
        <div className="flex items-center justify-between gap-2">
          <Button type="button" variant="ghost" onClick={onSignOut}>
            Sign out
          </Button>
          <Button type="submit" disabled={saving || setupPassword === ""}>
            Become the owner
          </Button>
        </div>
      </form>
    </SignInLayout>
  );
}
