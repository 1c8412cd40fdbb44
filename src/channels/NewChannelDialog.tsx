import { useMutation } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { Field, InlineError, Select, TextInput } from "../components/ui/Field";
import { Dialog } from "../components/ui/Modal";
import { userMessage } from "../lib/errors";

const VISIBILITY = [
  { value: "project", label: "Everyone in the department" },
  { value: "private", label: "Private: only members I add" },
] as const;

type Props = { departmentId: Id<"departments">; onClose: () => void; onCreated: (id: Id<"channels">) => void };

export function NewChannelDialog({ departmentId, onClose, onCreated }: Props) {
  const create = useMutation(api.channels.create);
  const id = useId();
  const [name, setName] = useState("");
  const [topic, setTopic] = useState("");
  const [visibility, setVisibility] = useState<"project" | "private">("project");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Dialog onClose={onClose} labelledBy={`${id}-title`}>
      <form
        data-testid="new-channel-form"
        className="flex flex-col gap-4 p-5"
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(null);
          create({ departmentId, name, topic: topic.trim() === "" ? undefined : topic, visibility }).then(
            (channelId) => onCreated(channelId),
            (failure: unknown) => {
              setError(userMessage(failure));
              setBusy(false);
            },
          );
        }}
      >
        <h2 id={`${id}-title`} className="text-base font-semibold text-slate-900">
          New channel
        </h2>
        <Field label="Name" htmlFor={`${id}-name`} hint="Lower case; spaces become dashes.">
          <TextInput id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} required autoFocus placeholder="launch" />
        </Field>
        <Field label="Topic" htmlFor={`${id}-topic`}>
          <TextInput id={`${id}-topic`} value={topic} onChange={(e) => setTopic(e.target.value)} />
        </Field>
        <Field label="Who can read it" htmlFor={`${id}-visibility`}>
          <Select id={`${id}-visibility`} value={visibility} options={VISIBILITY} onValueChange={setVisibility} />
        </Field>
        {error && <InlineError>{error}</InlineError>}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy || name.trim() === ""}>
            Create channel
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
