import { useMutation, useQuery } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ToolCallMode } from "../../convex/validators";
import { Field, FormActions, onSubmitted, Select } from "../components/ui/Field";
import { SkeletonStack } from "../components/ui/Skeleton";
import { useSave } from "../lib/useSave";

type Props = { departmentId: Id<"departments">; departmentName: string; isAdmin: boolean };

/** The modes, as data: what each sends and reads (docs/agents-and-models.md, "Tool calls"). */
export const TOOL_CALL_CHOICES: ReadonlyArray<{ value: ToolCallMode; label: string; about: string }> = [
  { value: "auto", label: "Auto", about: "tools go as native functions, and [TOOL: …] lines in a reply are still read." },
  { value: "native", label: "Native", about: "tools go as native functions and only tool_calls are read (OpenAI, and servers with function calling)." },
  { value: "text", label: "Text", about: "tools are listed in the prompt and called with [TOOL: …] lines, for servers without function calling." },
];

/** The form's value for "no choice of the department's: the deployment's default". */
const DEPLOYMENT_DEFAULT = "default";
type Choice = ToolCallMode | typeof DEPLOYMENT_DEFAULT;

function choiceOf(mode: ToolCallMode) {
  return TOOL_CALL_CHOICES.find((c) => c.value === mode)!;
}

/**
 * How the department's agents call tools with its model: everyone reads the
 * mode in force; owners and admins choose one, or go back to the
 * deployment's default (MAESTRO_TOOL_CALLS).
 */
export function ToolCallSettings({ departmentId, departmentName, isAdmin }: Props) {
  const saved = useQuery(api.modelSettings.get, { departmentId });
  const setToolCalls = useMutation(api.modelSettings.setToolCalls);
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-3" data-testid="tool-call-settings">
      <h3 id={headingId} className="text-sm font-semibold text-slate-800 dark:text-slate-200">
        How agents call tools
      </h3>
      {saved === undefined ? (
        <SkeletonStack label="Loading the model settings…" blocks={["h-10"]} />
      ) : (
        <p className="text-sm text-slate-600 dark:text-slate-300" data-testid="tool-call-summary">
          {departmentName} uses <strong>{choiceOf(saved.toolCalls).label}</strong>
          {saved.chosen ? "" : " (the deployment's default)"}: {choiceOf(saved.toolCalls).about}
          {isAdmin ? "" : " Only owners and admins change it."}
        </p>
      )}
      {saved !== undefined && isAdmin && (
        // Keyed by what is saved: a save (or another admin's) starts the form from the new value.
        <ToolCallForm key={`${saved.chosen}-${saved.toolCalls}`} initial={saved.chosen ? saved.toolCalls : DEPLOYMENT_DEFAULT} onSubmit={(choice) => setToolCalls({ departmentId, toolCalls: choice === DEPLOYMENT_DEFAULT ? null : choice })} />
      )}
    </section>
  );
}

/** The mode as pure props: one select and a save. */
export function ToolCallForm({ initial, onSubmit }: { initial: Choice; onSubmit: (choice: Choice) => Promise<unknown> }) {
  const id = useId();
  const [choice, setChoice] = useState<Choice>(initial);
  const { saving, failure, save } = useSave();
  const options = [{ value: DEPLOYMENT_DEFAULT as Choice, label: "The deployment's default" }, ...TOOL_CALL_CHOICES.map(({ value, label }) => ({ value: value as Choice, label }))];
  return (
    <form noValidate aria-label="How agents call tools" onSubmit={onSubmitted(() => {
        if (!saving) save(onSubmit(choice));
      })} className="flex flex-col gap-3">
      <Field label="Tool calls" htmlFor={`${id}-mode`} hint="Auto suits most servers; choose Text when the model server has no function calling (docs: Agents and models).">
        {(control) => <Select {...control} value={choice} options={options} onValueChange={setChoice} />}
      </Field>
      <FormActions failure={failure} submitLabel="Save tool calls" busyLabel="Saving…" busy={saving} ready={choice !== initial} />
    </form>
  );
}
