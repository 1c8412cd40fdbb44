import { useAction } from "convex/react";
import { useId, useState, type FormEvent } from "react";
import { api } from "../../convex/_generated/api";
import { Button } from "../components/ui/Button";
import { Field, InlineError, TextInput } from "../components/ui/Field";
import { Dialog, ModalHeader } from "../components/ui/Modal";
import { userMessage } from "../lib/errors";

/** Changing one's password; every other session is signed out by the server. */
export function AccountDialog({ onClose }: { onClose: () => void }) {
  const change = useAction(api.users.changePassword);
  const headingId = useId();
  const currentId = useId();
  const nextId = useId();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await change({ currentPassword: current, newPassword: next });
      setDone(true);
      setCurrent("");
      setNext("");
    } catch (e) {
      setError(userMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      <ModalHeader headingId={headingId} title="Change password" onClose={onClose} />
      <form onSubmit={(e) => void submit(e)} className="flex flex-col gap-4 px-5 py-4">
        <Field label="Current password" htmlFor={currentId}>
          <TextInput id={currentId} type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
        </Field>
        <Field label="New password" htmlFor={nextId} hint="At least 8 characters.">
          <TextInput id={nextId} type="password" autoComplete="new-password" required minLength={8} value={next} onChange={(e) => setNext(e.target.value)} />
        </Field>
        {error && <InlineError>{error}</InlineError>}
        {done && <p className="text-sm text-emerald-700 dark:text-emerald-300">Password changed. Your other sessions were signed out.</p>}
        <Button type="submit" disabled={busy}>
          {busy ? "Changing…" : "Change password"}
        </Button>
      </form>
    </Dialog>
  );
}
