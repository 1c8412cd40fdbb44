import { useMutation } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Field, Select, TextInput } from "../components/ui/Field";
import { FormDialog } from "../components/ui/FormDialog";

const VISIBILITY = [
  { value: "project", label: "Everyone in the department" },
  { value: "private", label: "Private: only members I add" },
] as const;

type Props = { departmentId: Id<"departments">; onClose: () => void; onCreated: (id: Id<"channels">) => void };

/** A new channel: its name, topic and who may read it; once created it opens. */
export function NewChannelDialog({ departmentId, onClose, onCreated }: Props) {
  const create = useMutation(api.channels.create);
  const id = useId();
  const [name, setName] = useState("");
  const [topic, setTopic] = useState("");
  const [visibility, setVisibility] = useState<"project" | "private">("project");
  return (
    <FormDialog
      testId="new-channel-form"
      title="New channel"
      submitLabel="Create channel"
      ready={name.trim() !== ""}
      onClose={onClose}
      onSubmit={() => create({ departmentId, name, topic: topic.trim() === "" ? undefined : topic, visibility }).then(onCreated)}
    >
      <Field label="Name" htmlFor={`${id}-name`} hint="Lower case; spaces become dashes.">
        <TextInput id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} required autoFocus placeholder="launch" />
      </Field>
      <Field label="Topic" htmlFor={`${id}-topic`}>
        <TextInput id={`${id}-topic`} value={topic} onChange={(e) => setTopic(e.target.value)} />
      </Field>
      <Field label="Who can read it" htmlFor={`${id}-visibility`}>
        <Select id={`${id}-visibility`} value={visibility} options={VISIBILITY} onValueChange={setVisibility} />
      </Field>
    </FormDialog>
  );
}
