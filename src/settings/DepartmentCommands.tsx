import { useMutation, useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useId, useState, type FormEvent } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { SLASH_ACTIONS, type SlashAction } from "../../convex/lib/slashCommands";
import { Button } from "../components/ui/Button";
import { Field, InlineError, Select, TextArea, TextInput } from "../components/ui/Field";
import { userMessage } from "../lib/errors";
import { LiveList } from "../components/ui/LiveList";

type Command = FunctionReturnType<typeof api.slashCommands.listDepartmentCommands>[number];
type Draft = { name: string; description: string; argumentHint: string; action: SlashAction | ""; passArguments: boolean; template: string };

const EMPTY: Draft = { name: "", description: "", argumentHint: "", action: "", passArguments: false, template: "" };
const ACTION_OPTIONS: ReadonlyArray<{ value: SlashAction | ""; label: string }> = [
  { value: "", label: "None: send the template to the agent" },
  ...SLASH_ACTIONS.map((a) => ({ value: a, label: a })),
];

type Props = { departmentId: Id<"departments">; departmentName: string; isAdmin: boolean };

/**
 * The department's own slash commands: admins add, edit and delete them; a
 * command named like a global one overrides it for this department. Saved
 * commands reach every composer at once (they are part of getSlashCommands).
 */
export function DepartmentCommands({ departmentId, departmentName, isAdmin }: Props) {
  const commands = useQuery(api.slashCommands.listDepartmentCommands, { departmentId });
  const save = useMutation(api.slashCommands.saveDepartmentCommand);
  const remove = useMutation(api.slashCommands.deleteDepartmentCommand);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const headingId = useId();

  async function submit(values: Draft) {
    await save({
      departmentId,
      name: values.name,
      description: values.description,
      argumentHint: values.argumentHint,
      ...(values.action === "" ? {} : { action: values.action }),
      passArguments: values.passArguments,
      template: values.template,
    });
    setDraft(null);
  }

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2" data-testid="department-commands">
      <h3 id={headingId} className="text-sm font-semibold text-slate-800 dark:text-slate-200">
        Slash commands
      </h3>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        {departmentName}'s own commands. One named like a global command (/review, /standup…) replaces it here. Templates use $ARGUMENTS and $1…$9.
      </p>
      {failure && <InlineError>{failure}</InlineError>}
      <LiveList items={commands} empty="No department commands yet." className="flex flex-col divide-y divide-slate-100 rounded-lg ring-1 ring-slate-200 dark:divide-slate-800 dark:ring-slate-700">
        {(c) => (
          <li key={c._id} data-testid="department-command" className="flex items-center gap-2 px-3 py-2 text-sm">
            <span className="font-mono font-medium">/{c.name}</span>
            <span className="min-w-0 flex-1 truncate text-xs text-slate-500 dark:text-slate-400">{c.description}</span>
            {isAdmin && (
              <>
                <Button variant="ghost" className="px-2 py-1 text-xs" onClick={() => setDraft(toDraft(c))}>
                  Edit
                </Button>
                <Button
                  variant="ghost"
                  className="px-2 py-1 text-xs"
                  aria-label={`Delete /${c.name}`}
                  onClick={() => {
                    setFailure(null);
                    remove({ departmentId, commandId: c._id }).catch((error: unknown) => setFailure(userMessage(error)));
                  }}
                >
                  Delete
                </Button>
              </>
            )}
          </li>
        )}
      </LiveList>
      {!isAdmin ? (
        <p className="text-xs text-slate-500 dark:text-slate-400">Only admins of {departmentName} can change its commands.</p>
      ) : draft === null ? (
        <div>
          <Button variant="secondary" onClick={() => setDraft(EMPTY)}>
            Add command…
          </Button>
        </div>
      ) : (
        <CommandForm initial={draft} onSubmit={submit} onCancel={() => setDraft(null)} />
      )}
    </section>
  );
}

function toDraft(c: Command): Draft {
  return { name: c.name, description: c.description, argumentHint: c.argumentHint, action: c.action ?? "", passArguments: c.passArguments, template: c.template };
}

/** One command's fields; the server's refusal (a bad name, a built-in name, a size) shows above the buttons. */
export function CommandForm({ initial, onSubmit, onCancel }: { initial: Draft; onSubmit: (draft: Draft) => Promise<void>; onCancel: () => void }) {
  const id = useId();
  const [draft, setDraft] = useState(initial);
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setFailure(null);
    onSubmit(draft).then(
      () => setSaving(false),
      (error: unknown) => {
        setFailure(userMessage(error));
        setSaving(false);
      },
    );
  }

  return (
    <form onSubmit={submit} aria-label="Slash command" className="flex flex-col gap-3 rounded-lg p-3 ring-1 ring-slate-200 dark:ring-slate-700">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Name" htmlFor={`${id}-name`} hint="Lower-case letters, digits, - and _">
          <TextInput id={`${id}-name`} value={draft.name} onChange={(e) => set("name", e.target.value)} placeholder="triage" required />
        </Field>
        <Field label="Argument hint" htmlFor={`${id}-hint`}>
          <TextInput id={`${id}-hint`} value={draft.argumentHint} onChange={(e) => set("argumentHint", e.target.value)} placeholder="<area>" />
        </Field>
      </div>
      <Field label="Description" htmlFor={`${id}-description`}>
        <TextInput id={`${id}-description`} value={draft.description} onChange={(e) => set("description", e.target.value)} required />
      </Field>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Action" htmlFor={`${id}-action`}>
          <Select id={`${id}-action`} value={draft.action} options={ACTION_OPTIONS} onValueChange={(value) => set("action", value)} />
        </Field>
        <label className="mt-6 flex items-start gap-2 text-sm text-slate-700 dark:text-slate-200">
          <input type="checkbox" checked={draft.passArguments} onChange={(e) => set("passArguments", e.target.checked)} className="mt-0.5 size-4" />
          Pass the typed arguments to the action (else it gets the rendered template)
        </label>
      </div>
      <Field label="Template" htmlFor={`${id}-template`}>
        <TextArea id={`${id}-template`} rows={4} value={draft.template} onChange={(e) => set("template", e.target.value)} placeholder="Triage $1: list the open questions…" />
      </Field>
      {failure && <InlineError>{failure}</InlineError>}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onCancel} disabled={saving}>
          Cancel
        </Button>
        <Button type="submit" disabled={saving}>
          {saving ? "Saving…" : "Save command"}
        </Button>
      </div>
    </form>
  );
}
