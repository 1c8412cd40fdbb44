import { useId, useState } from "react";
import { Field, FormActions, onSubmitted, TextInput } from "../components/ui/Field";
import {
  changedSettings,
  NUMBER_FIELDS,
  parsePositiveInteger,
  SWITCH_FIELDS,
  type ChatSettingsChanges,
  type ChatSettingsValues,
  type NumberField,
  type SwitchField,
} from "./settings";
import { useSave } from "../lib/useSave";

type Props = {
  /** The settings in force when the form opened. */
  initial: ChatSettingsValues;
  /** Saves what changed (possibly nothing); a rejection's message shows above the buttons. */
  onSubmit: (changes: ChatSettingsChanges) => Promise<void>;
  onCancel?: () => void;
};

const CHECKBOX = "mt-0.5 size-4 shrink-0 rounded border-slate-300 text-indigo-600 focus:ring-indigo-600 dark:border-slate-600 dark:text-indigo-300";

/**
 * The chat settings as pure props: two switches and two limits. The limits
 * must be whole numbers from 1 to 1,000,000 (the server's rule, checked here
 * first so the admin sees which field is wrong).
 */
export function SettingsForm({ initial, onSubmit, onCancel }: Props) {
  const id = useId();
  const [switches, setSwitches] = useState<Record<SwitchField, boolean>>({ enabled: initial.enabled, scannerEnabled: initial.scannerEnabled });
  const [numbers, setNumbers] = useState<Record<NumberField, string>>({
    maxMessageChars: String(initial.maxMessageChars),
    scannerTimeoutMs: String(initial.scannerTimeoutMs),
  });
  const [errors, setErrors] = useState<Partial<Record<NumberField, string>>>({});
  const { saving, failure, save } = useSave();

  function handleSubmit() {
    if (saving) return;
    const parsed = {
      maxMessageChars: parsePositiveInteger(numbers.maxMessageChars),
      scannerTimeoutMs: parsePositiveInteger(numbers.scannerTimeoutMs),
    };
    const problems: Partial<Record<NumberField, string>> = {};
    for (const { key } of NUMBER_FIELDS) {
      const result = parsed[key];
      if ("error" in result) problems[key] = result.error;
    }
    setErrors(problems);
    if ("error" in parsed.maxMessageChars || "error" in parsed.scannerTimeoutMs) {
      const first = NUMBER_FIELDS.find(({ key }) => problems[key] !== undefined);
      if (first) document.getElementById(`${id}-${first.key}`)?.focus();
      return;
    }
    const next: ChatSettingsValues = { ...switches, maxMessageChars: parsed.maxMessageChars.value, scannerTimeoutMs: parsed.scannerTimeoutMs.value };
    save(onSubmit(changedSettings(initial, next)));
  }

  return (
    <form noValidate onSubmit={onSubmitted(handleSubmit)} aria-label="Chat settings" className="flex flex-col gap-4">
      {SWITCH_FIELDS.map(({ key, label, hint }) => (
        <Toggle
          key={key}
          id={`${id}-${key}`}
          label={label}
          hint={hint}
          checked={switches[key]}
          onChange={(on) => setSwitches((current) => ({ ...current, [key]: on }))}
        />
      ))}
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        {NUMBER_FIELDS.map(({ key, label, hint }) => (
          <Field key={key} label={label} htmlFor={`${id}-${key}`} hint={hint} error={errors[key]}>
            {(control) => (
              <TextInput
                {...control}
                type="number"
                inputMode="numeric"
                min={1}
                step={1}
                value={numbers[key]}
                onChange={(event) => setNumbers((current) => ({ ...current, [key]: event.target.value }))}
              />
            )}
          </Field>
        ))}
      </div>
      <FormActions failure={failure} onCancel={onCancel} submitLabel="Save" busyLabel="Saving…" busy={saving} />
    </form>
  );
}

export type ToggleProps = { id: string; label: string; hint: string; checked: boolean; onChange: (checked: boolean) => void };

export function Toggle({ id, label, hint, checked, onChange }: ToggleProps) {
  return (
    <div className="flex items-start gap-3">
      <input
        id={id}
        type="checkbox"
        role="switch"
        className={CHECKBOX}
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
        aria-describedby={`${id}-hint`}
      />
      <div className="text-sm">
        <label htmlFor={id} className="font-medium text-slate-700 dark:text-slate-200">
          {label}
        </label>
        <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      </div>
    </div>
  );
}
