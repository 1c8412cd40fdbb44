import { useMutation } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Field, TextInput } from "../components/ui/Field";
import { FormDialog } from "../components/ui/FormDialog";

type Props = { onClose: () => void; onCreated: (id: Id<"departments">) => void };

/**
 * A new department: its name, then its (empty) board opens, where the
 * Squad panel's New agent adds its first agents. You own it.
 */
export function NewDepartmentDialog({ onClose, onCreated }: Props) {
  const create = useMutation(api.departments.create);
  const id = useId();
  const [name, setName] = useState("");
  return (
    <FormDialog
      testId="new-department-form"
      title="New department"
      submitLabel="Create department"
      ready={name.trim() !== ""}
      onClose={onClose}
      onSubmit={() => create({ name }).then(onCreated)}
    >
      <Field label="Name" htmlFor={`${id}-name`} hint="You will own it. Its board starts empty: add agents from the Squad panel, people from Members.">
        <TextInput id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} required autoFocus placeholder="Design Crew" maxLength={80} />
      </Field>
    </FormDialog>
  );
}
