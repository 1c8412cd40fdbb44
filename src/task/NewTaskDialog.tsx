import { useMutation, useQuery } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { PRIORITY_OPTIONS } from "../board/options";
import type { RosterAgent } from "../board/types";
import { Field, FormActions, onSubmitted, Select, TextArea, TextInput } from "../components/ui/Field";
import { Dialog, ModalHeader } from "../components/ui/Modal";
import type { ChannelSummary } from "../channels/types";
import { AssigneePicker } from "./AssigneePicker";
import { followOptions } from "./FollowInChannel";
import { EMPTY_DRAFT, validateNewTask, type NewTaskDraft, type NewTaskErrors, type NewTaskValue } from "./newTask";
import { useSave } from "../lib/useSave";

type FormProps = {
  agents: readonly RosterAgent[];
  /** Creates the task; rejects with the failure to show. */
  onSubmit: (value: NewTaskValue) => Promise<unknown>;
  onCancel: () => void;
  /** Id for the form's heading, so a dialog around it can point at it. */
  headingId?: string;
  /** The channels the caller can read: offered to follow the task in (none offered while absent or empty). */
  channels?: readonly ChannelSummary[];
};

/**
 * The new-task form inside its dialog, as pure props: checks the fields as the
 * server would, shows problems next to them and a server failure above the
 * buttons, and leaves closing to the caller (after `onSubmit` resolves).
 */
export function NewTaskForm({ agents, onSubmit, onCancel, headingId, channels = [] }: FormProps) {
  const id = useId();
  const [draft, setDraft] = useState<NewTaskDraft>(EMPTY_DRAFT);
  const [errors, setErrors] = useState<NewTaskErrors>({});
  const { saving, failure, save } = useSave();
  const channelOptions = followOptions(channels, undefined);

  function set<K extends keyof NewTaskDraft>(key: K, value: NewTaskDraft[K]) {
    setDraft((current) => ({ ...current, [key]: value }));
  }

  function submit() {
    const result = validateNewTask(draft);
    if (!result.ok) {
      setErrors(result.errors);
      const first = (["title", "description", "tags"] as const).find((field) => result.errors[field]);
      if (first) document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    setErrors({});
    save(onSubmit(result.value));
  }

  return (
    <form
      noValidate
      className="flex min-h-0 flex-1 flex-col"
      onSubmit={onSubmitted(submit)}
    >
      <ModalHeader headingId={headingId ?? `${id}-heading`} title="New task" onClose={onCancel} />

      <div className="flex min-h-0 flex-1 flex-col gap-4 overflow-y-auto px-5 py-4">
        <Field label="Title" htmlFor={`${id}-title`} error={errors.title}>
          {(control) => <TextInput {...control} autoFocus value={draft.title} onChange={(event) => set("title", event.target.value)} placeholder="What needs doing?" />}
        </Field>
        <Field label="Description" htmlFor={`${id}-description`} error={errors.description} hint="Markdown works.">
          {(control) => (
            <TextArea {...control} rows={4} value={draft.description} onChange={(event) => set("description", event.target.value)} placeholder="Context, links, what done looks like" />
          )}
        </Field>
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-[10rem_1fr]">
          <Field label="Priority" htmlFor={`${id}-priority`}>
            <Select id={`${id}-priority`} value={draft.priority} options={PRIORITY_OPTIONS} onValueChange={(value) => set("priority", value)} />
          </Field>
          <Field label="Tags" htmlFor={`${id}-tags`} error={errors.tags} hint="Separate with commas.">
            {(control) => <TextInput {...control} value={draft.tags} onChange={(event) => set("tags", event.target.value)} placeholder="launch, web" />}
          </Field>
        </div>
        <div className="flex flex-col gap-1.5">
          <span id={`${id}-assignees`} className="text-sm font-medium text-slate-700 dark:text-slate-200">
            Assignees <span className="font-normal text-slate-500 dark:text-slate-400">(optional; assigned agents start work)</span>
          </span>
          <AssigneePicker
            agents={agents}
            selected={draft.assigneeSessionKeys}
            onChange={(keys) => set("assigneeSessionKeys", keys)}
            labelledBy={`${id}-assignees`}
          />
          {errors.assignees && <p className="text-xs text-rose-700 dark:text-rose-300">{errors.assignees}</p>}
        </div>
        {channelOptions.length > 1 && (
          <Field label="Follow in channel" htmlFor={`${id}-channel`} hint="Status changes and delegation updates are posted there too.">
            <Select id={`${id}-channel`} value={draft.channelId} options={channelOptions} onValueChange={(value) => set("channelId", value)} />
          </Field>
        )}
      </div>

      <footer className="flex flex-col gap-3 border-t border-slate-100 px-5 py-4 dark:border-slate-800">
        <FormActions failure={failure} onCancel={onCancel} submitLabel="Create task" busyLabel="Creating…" busy={saving} />
      </footer>
    </form>
  );
}

type DialogProps = {
  departmentId: Id<"departments">;
  agents: readonly RosterAgent[];
  onClose: () => void;
  /** Called with the new task's id after it was created (the dialog closes itself too). */
  onCreated?: (taskId: Id<"tasks">) => void;
};

/** "New task" dialog: `tasks.create` in the given department; closes on success. */
export function NewTaskDialog({ departmentId, agents, onClose, onCreated }: DialogProps) {
  const create = useMutation(api.tasks.create);
  const channels = useQuery(api.channels.list, { departmentId });
  const headingId = useId();
  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      <NewTaskForm
        headingId={headingId}
        agents={agents}
        channels={channels}
        onCancel={onClose}
        onSubmit={async (value) => {
          const taskId = await create({ departmentId, ...value });
          onClose();
          onCreated?.(taskId);
        }}
      />
    </Dialog>
  );
}
