// "Add A2A agent" (owners and admins): an agent card URL, looked up to show the card's name, description and skills, then added to the squad.
import { useAction } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { Field, TextInput } from "../components/ui/Field";
import { FormDialog } from "../components/ui/FormDialog";
import { userMessage } from "../lib/errors";

type Preview = FunctionReturnType<typeof api.a2aRemoteCalls.preview>;

type Props = { departmentId: Id<"departments">; onClose: () => void };

export function AddA2aAgentModal({ departmentId, onClose }: Props) {
  const inputId = useId();
  const preview = useAction(api.a2aRemoteCalls.preview);
  const add = useAction(api.a2aRemoteCalls.add);
  const [cardUrl, setCardUrl] = useState("");
  const [card, setCard] = useState<Preview | null>(null);
  const [lookup, setLookup] = useState<{ busy: boolean; failure: string | null }>({ busy: false, failure: null });
  const url = cardUrl.trim();

  function lookUp() {
    setLookup({ busy: true, failure: null });
    setCard(null);
    preview({ departmentId, cardUrl: url }).then(
      (found) => {
        setCard(found);
        setLookup({ busy: false, failure: null });
      },
      (error: unknown) => setLookup({ busy: false, failure: userMessage(error) }),
    );
  }

  return (
    <FormDialog
      testId="add-a2a-agent"
      title="Add A2A agent"
      submitLabel="Add agent"
      ready={url !== ""}
      onClose={onClose}
      onSubmit={async () => {
        await add({ departmentId, cardUrl: url });
        onClose();
      }}
    >
      <p className="text-sm text-slate-600 dark:text-slate-300">
        An agent that speaks the Agent2Agent protocol joins the squad by its agent card. Jarvis delegates to it like any other agent; Maestro sends it the work and follows it on the card.
      </p>
      <Field label="Agent card URL" htmlFor={inputId} hint="For example https://agents.example.com/.well-known/agent-card.json. Public addresses only, no redirects." error={lookup.failure}>
        {(control) => (
          <div className="flex gap-2">
            <TextInput
              {...control}
              value={cardUrl}
              placeholder="https://"
              onChange={(event) => {
                setCardUrl(event.target.value);
                setCard(null);
              }}
            />
            <Button type="button" variant="secondary" onClick={lookUp} disabled={url === "" || lookup.busy} className="shrink-0">
              {lookup.busy ? "Looking up…" : "Look up"}
            </Button>
          </div>
        )}
      </Field>
      {card !== null && (
        <section data-testid="a2a-card-preview" aria-label="The agent card" className="rounded-lg bg-slate-50 p-3 text-sm dark:bg-slate-800/60">
          <p className="font-medium text-slate-900 dark:text-slate-100">{card.name}</p>
          {card.description !== "" && <p className="mt-1 text-slate-600 dark:text-slate-300">{card.description}</p>}
          {card.skills.length > 0 && (
            <ul aria-label="Skills" className="mt-2 flex flex-col gap-1">
              {card.skills.map((skill) => (
                <li key={`${skill.id}:${skill.name}`} className="text-xs text-slate-600 dark:text-slate-300">
                  <span className="font-medium text-slate-800 dark:text-slate-100">{skill.name || skill.id}</span>
                  {skill.description !== "" && ` — ${skill.description}`}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </FormDialog>
  );
}
