import { useMutation, useQuery } from "convex/react";
import { useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { FormDialog } from "../components/ui/FormDialog";

type Props = { departmentId: Id<"departments">; selfKey: string | null; onClose: () => void; onOpened: (id: Id<"channels">) => void };

/** Pick people and agents; the DM with exactly them opens (created the first time). */
export function NewDmDialog({ departmentId, selfKey, onClose, onOpened }: Props) {
  const agents = useQuery(api.agents.list, { departmentId });
  const members = useQuery(api.members.list, { departmentId });
  const openDm = useMutation(api.channels.openDm);
  const [picked, setPicked] = useState<string[]>([]);
  const people = [
    ...(members ?? []).filter((m) => m.key !== selfKey).map((m) => ({ key: m.key, name: m.name, kind: "person" })),
    ...(agents ?? []).map((a) => ({ key: a.sessionKey, name: a.name, kind: "agent" })),
  ];
  const toggle = (key: string) => setPicked((p) => (p.includes(key) ? p.filter((k) => k !== key) : [...p, key]));
  return (
    <FormDialog
      testId="new-dm-form"
      title="New direct message"
      submitLabel="Open DM"
      ready={picked.length > 0}
      onClose={onClose}
      onSubmit={() => openDm({ departmentId, participantKeys: picked }).then(onOpened)}
    >
      <fieldset className="flex max-h-64 flex-col gap-1 overflow-y-auto">
        <legend className="sr-only">Participants</legend>
        {people.map((p) => (
          <label key={p.key} className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={picked.includes(p.key)} onChange={() => toggle(p.key)} />
            {p.name} <span className="text-xs text-slate-500 dark:text-slate-400">{p.kind}</span>
          </label>
        ))}
      </fieldset>
    </FormDialog>
  );
}
