import { useMutation, useQuery } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { InlineError } from "../components/ui/Field";
import { Dialog } from "../components/ui/Modal";
import { userMessage } from "../lib/errors";

type Props = { departmentId: Id<"departments">; selfKey: string | null; onClose: () => void; onOpened: (id: Id<"channels">) => void };

/** Pick people and agents; the DM with exactly them opens (created the first time). */
export function NewDmDialog({ departmentId, selfKey, onClose, onOpened }: Props) {
  const agents = useQuery(api.agents.list, { departmentId });
  const members = useQuery(api.members.list, { departmentId });
  const openDm = useMutation(api.channels.openDm);
  const id = useId();
  const [picked, setPicked] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const people = [
    ...(members ?? []).filter((m) => m.key !== selfKey).map((m) => ({ key: m.key, name: m.name, kind: "person" })),
    ...(agents ?? []).map((a) => ({ key: a.sessionKey, name: a.name, kind: "agent" })),
  ];
  const toggle = (key: string) => setPicked((p) => (p.includes(key) ? p.filter((k) => k !== key) : [...p, key]));
  return (
    <Dialog onClose={onClose} labelledBy={`${id}-title`}>
      <form
        data-testid="new-dm-form"
        className="flex flex-col gap-4 p-5"
        onSubmit={(event) => {
          event.preventDefault();
          setError(null);
          openDm({ departmentId, participantKeys: picked }).then(onOpened, (failure: unknown) => setError(userMessage(failure)));
        }}
      >
        <h2 id={`${id}-title`} className="text-base font-semibold text-slate-900">
          New direct message
        </h2>
        <fieldset className="flex max-h-64 flex-col gap-1 overflow-y-auto">
          <legend className="sr-only">Participants</legend>
          {people.map((p) => (
            <label key={p.key} className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={picked.includes(p.key)} onChange={() => toggle(p.key)} />
              {p.name} <span className="text-xs text-slate-400">{p.kind}</span>
            </label>
          ))}
        </fieldset>
        {error && <InlineError>{error}</InlineError>}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={picked.length === 0}>
            Open DM
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
