import { useMutation, useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Field, FormActions, onSubmitted, Select, TextInput } from "../components/ui/Field";
import { SkeletonStack } from "../components/ui/Skeleton";
import { useSave } from "../lib/useSave";
import { PII_RULES, summariserFields, summariserFromFields, type PiiRuleKey, type SummariserFields } from "./injection";
import { Toggle } from "./SettingsForm";

type Saved = FunctionReturnType<typeof api.injectionSettings.get>;
type Props = { departmentId: Id<"departments">; departmentName: string; isAdmin: boolean };

/**
 * What agents are shown of their messages: how long threads are summarised
 * (extractive, or a model with the extractive summary as fallback) and which
 * PII is hidden. Owners and admins change it; everyone else reads it.
 */
export function InjectionSettings({ departmentId, departmentName, isAdmin }: Props) {
  const saved = useQuery(api.injectionSettings.get, { departmentId });
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-3" data-testid="injection-settings">
      <h3 id={headingId} className="text-sm font-semibold text-slate-800 dark:text-slate-200">
        What agents are shown of messages
      </h3>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Long threads in {departmentName} are summarised before they reach an agent’s prompt, and the personal data below is hidden from it. Stored messages stay as written.
      </p>
      {saved === undefined ? (
        <SkeletonStack label="Loading message settings…" blocks={["h-10", "h-10"]} />
      ) : isAdmin ? (
        // Keyed by what is saved: a save (or another admin's) starts the form from the new values.
        <InjectionForm key={JSON.stringify(saved)} departmentId={departmentId} saved={saved} />
      ) : (
        <InjectionSummary saved={saved} />
      )}
    </section>
  );
}

function InjectionSummary({ saved }: { saved: Saved }) {
  const hidden = PII_RULES.filter((rule) => saved.pii[rule.key]).map((rule) => rule.noun);
  const { summariser } = saved;
  return (
    <dl className="grid grid-cols-1 gap-2 text-sm sm:grid-cols-[10rem_1fr]" data-testid="injection-summary">
      <dt className="font-medium text-slate-700 dark:text-slate-200">Thread summaries</dt>
      <dd className="text-slate-600 dark:text-slate-300">
        {summariser.kind === "extractive" ? "Extractive (offline)" : `By the model ${summariser.model}, extractive when it fails or is slow`}
      </dd>
      <dt className="font-medium text-slate-700 dark:text-slate-200">Hidden from agents</dt>
      <dd className="text-slate-600 dark:text-slate-300">{hidden.length > 0 ? hidden.join(", ") : "nothing"}</dd>
      <dd className="text-xs text-slate-500 sm:col-span-2 dark:text-slate-400">Only owners and admins change these.</dd>
    </dl>
  );
}

function InjectionForm({ departmentId, saved }: { departmentId: Id<"departments">; saved: Saved }) {
  const id = useId();
  const update = useMutation(api.injectionSettings.update);
  const [fields, setFields] = useState<SummariserFields>(() => summariserFields(saved.summariser));
  const [pii, setPii] = useState<Record<PiiRuleKey, boolean>>(saved.pii);
  const [apiKey, setApiKey] = useState("");
  const [removeKey, setRemoveKey] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<keyof SummariserFields, string>>>({});
  const { saving, failure, save } = useSave();
  const set = (changes: Partial<SummariserFields>) => setFields((current) => ({ ...current, ...changes }));

  function handleSubmit() {
    if (saving) return;
    const parsed = summariserFromFields(fields);
    if ("errors" in parsed) {
      setErrors(parsed.errors);
      const first = (["baseUrl", "model", "timeoutMs"] as const).find((key) => parsed.errors[key] !== undefined);
      if (first) document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    setErrors({});
    const key = apiKey.trim() !== "" ? { apiKey: apiKey.trim() } : removeKey ? { apiKey: null } : {};
    save(update({ departmentId, summariser: parsed.summariser, pii, ...key }));
  }

  const usesModel = fields.kind === "model";
  return (
    <form noValidate onSubmit={onSubmitted(handleSubmit)} aria-label="Message settings" className="flex flex-col gap-4">
      <Field label="Thread summaries" htmlFor={`${id}-kind`} hint="A model’s summary is used only when it answers in time with a short summary; the extractive one otherwise.">
        {(control) => (
          <Select
            {...control}
            value={fields.kind}
            onValueChange={(kind) => set({ kind })}
            options={[
              { value: "extractive", label: "Extractive (offline, built in)" },
              { value: "model", label: "A model (OpenAI-compatible)" },
            ]}
          />
        )}
      </Field>
      {usesModel && (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <Field label="Base URL" htmlFor={`${id}-baseUrl`} hint="The API root, e.g. http://127.0.0.1:11434/v1" error={errors.baseUrl} className="sm:col-span-2">
            {(control) => <TextInput {...control} type="url" inputMode="url" autoComplete="off" value={fields.baseUrl} onChange={(event) => set({ baseUrl: event.target.value })} />}
          </Field>
          <Field label="Model name" htmlFor={`${id}-model`} error={errors.model}>
            {(control) => <TextInput {...control} autoComplete="off" value={fields.model} onChange={(event) => set({ model: event.target.value })} />}
          </Field>
          <Field label="Timeout (ms)" htmlFor={`${id}-timeoutMs`} error={errors.timeoutMs}>
            {(control) => (
              <TextInput {...control} type="number" inputMode="numeric" min={100} step={100} value={fields.timeoutMs} onChange={(event) => set({ timeoutMs: event.target.value })} />
            )}
          </Field>
          <Field
            label="API key"
            htmlFor={`${id}-apiKey`}
            hint={saved.hasKey ? "A key is saved; type a new one to replace it. It is never shown again." : "Optional for local servers. It is never shown again."}
            className="sm:col-span-2"
          >
            {(control) => (
              <TextInput {...control} type="password" autoComplete="new-password" value={apiKey} placeholder={saved.hasKey ? "••••••••" : ""} onChange={(event) => setApiKey(event.target.value)} />
            )}
          </Field>
          {saved.hasKey && (
            <div className="sm:col-span-2">
              <Toggle id={`${id}-removeKey`} label="Remove the saved key" hint="Changing the base URL removes it too, unless a new key is typed." checked={removeKey} onChange={setRemoveKey} />
            </div>
          )}
        </div>
      )}
      <fieldset className="flex flex-col gap-3">
        <legend className="mb-2 text-sm font-medium text-slate-700 dark:text-slate-200">Hide from agents</legend>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          {PII_RULES.map((rule) => (
            <Toggle key={rule.key} id={`${id}-pii-${rule.key}`} label={rule.label} hint={rule.hint} checked={pii[rule.key]} onChange={(on) => setPii((current) => ({ ...current, [rule.key]: on }))} />
          ))}
        </div>
      </fieldset>
      <FormActions failure={failure} submitLabel="Save message settings" busyLabel="Saving…" busy={saving} />
    </form>
  );
}
