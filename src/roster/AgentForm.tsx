import { useId, useState, type ReactNode } from "react";
import { LIMITS } from "../../convex/lib/limits";
import { Field, FormActions, onSubmitted, Select, TextArea, TextInput } from "../components/ui/Field";
import { APPROVAL_OPTIONS, approvalsToSave, effectiveApproval, EMPTY_AGENT, KIND_OPTIONS } from "./options";
import type { AgentFormValues, ApprovalPolicy, Tool } from "./types";
import { useSave } from "../lib/useSave";

type Props = {
  /** The registered tools, in the order the checklist shows them. */
  tools: ReadonlyArray<Tool>;
  /** Starting values: an existing agent's when editing. */
  initial?: AgentFormValues;
  submitLabel?: string;
  /** Saves the values; a rejection's message (see `userMessage`) shows above the buttons. */
  onSubmit: (values: AgentFormValues) => Promise<void>;
  onCancel?: () => void;
  /** Shown below the fields, inside the scrolling area (the edit modal's API keys). */
  children?: ReactNode;
};

/** The two text fields an agent must have, with their limits and examples. */
const REQUIRED_FIELDS = [
  { key: "name", label: "Name", maxLength: LIMITS.agentNameChars, placeholder: "e.g. Wordsmith", missing: "Give the agent a name." },
  { key: "role", label: "Role", maxLength: LIMITS.agentRoleChars, placeholder: "e.g. Copywriter", missing: "Give the agent a role." },
] as const;

type Errors = Partial<Record<(typeof REQUIRED_FIELDS)[number]["key"], string>>;

/** The tool a squad lead delegates with. */
const DELEGATE_TOOL = "delegate_task";

const CHECKBOX = "mt-0.5 size-4 shrink-0 rounded border-slate-300 text-indigo-600 focus:ring-indigo-600 dark:border-slate-600 dark:text-indigo-300";

/**
 * The agent editor, with no Convex in it: name, role, kind, model, system
 * prompt, squad lead, and the tools the agent may call as a checklist of
 * `tools`. Used for both creating and editing; closing is the caller's job.
 */
export function AgentForm({ tools, initial = EMPTY_AGENT, submitLabel = "Save", onSubmit, onCancel, children }: Props) {
  const id = useId();
  const [values, setValues] = useState(() => ({ ...initial, model: initial.model ?? "" }));
  const [checked, setChecked] = useState<ReadonlySet<string>>(() => new Set(initial.allowedTools));
  const [approvals, setApprovals] = useState<ReadonlyMap<string, ApprovalPolicy>>(
    () => new Map((initial.toolApprovals ?? []).map(({ tool, policy }) => [tool, policy])),
  );
  const [errors, setErrors] = useState<Errors>({});
  const { saving, failure, save } = useSave();
  const canDelegate = tools.some((tool) => tool.name === DELEGATE_TOOL);

  function set<K extends keyof typeof values>(key: K, value: (typeof values)[K]) {
    setValues((current) => ({ ...current, [key]: value }));
  }

  function toggleTool(name: string, on: boolean) {
    setChecked((current) => {
      const next = new Set(current);
      if (on) next.add(name);
      else next.delete(name);
      return next;
    });
  }

  function handleSubmit() {
    if (saving) return;
    const name = values.name.trim();
    const role = values.role.trim();
    const problems: Errors = {};
    for (const field of REQUIRED_FIELDS) if (values[field.key].trim() === "") problems[field.key] = field.missing;
    setErrors(problems);
    const first = REQUIRED_FIELDS.find((field) => problems[field.key] !== undefined);
    if (first) {
      document.getElementById(`${id}-${first.key}`)?.focus();
      return;
    }
    const model = values.model.trim();
    save(onSubmit({
      name,
      role,
      kind: values.kind,
      ...(model === "" ? {} : { model }),
      systemPrompt: values.systemPrompt,
      isSquadLead: values.isSquadLead,
      // Registry order, and only registered tools: one the registry has since
      // dropped would make the server refuse the whole save.
      allowedTools: tools.filter((tool) => checked.has(tool.name)).map((tool) => tool.name),
      toolApprovals: approvalsToSave(tools, checked, approvals),
    }));
  }

  return (
    <form noValidate onSubmit={onSubmitted(handleSubmit)} className="flex min-h-0 flex-1 flex-col">
      <div className="flex min-h-0 flex-1 flex-col gap-4 overflow-y-auto px-5 py-4">
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          {REQUIRED_FIELDS.map(({ key, label, maxLength, placeholder }) => (
            <Field key={key} label={label} htmlFor={`${id}-${key}`} error={errors[key]}>
              {(control) => (
                <TextInput
                  {...control}
                  autoFocus={key === "name"}
                  autoComplete="off"
                  maxLength={maxLength}
                  value={values[key]}
                  onChange={(e) => set(key, e.target.value)}
                  placeholder={placeholder}
                />
              )}
            </Field>
          ))}
          <Field label="Kind" htmlFor={`${id}-kind`}>
            <Select id={`${id}-kind`} value={values.kind} options={KIND_OPTIONS} onValueChange={(kind) => set("kind", kind)} />
          </Field>
          <Field
            label={
              <>
                Model <span className="font-normal text-slate-500 dark:text-slate-400">(optional)</span>
              </>
            }
            htmlFor={`${id}-model`}
          >
            <TextInput
              id={`${id}-model`}
              autoComplete="off"
              maxLength={LIMITS.agentModelChars}
              value={values.model}
              onChange={(e) => set("model", e.target.value)}
              placeholder="Department default"
            />
          </Field>
        </div>

        <Field label="System prompt" htmlFor={`${id}-prompt`}>
          <TextArea
            id={`${id}-prompt`}
            rows={5}
            maxLength={LIMITS.systemPromptChars}
            className="font-mono text-xs"
            value={values.systemPrompt}
            onChange={(e) => set("systemPrompt", e.target.value)}
            placeholder="You are Jarvis, the squad lead. Break requests down and delegate them…"
          />
        </Field>

        <label className="flex items-start gap-3">
          <input
            type="checkbox"
            className={CHECKBOX}
            checked={values.isSquadLead}
            onChange={(e) => {
              set("isSquadLead", e.target.checked);
              // A lead delegates: ticking it allows delegate_task too (untick the tool below to keep a lead that only answers).
              if (e.target.checked && canDelegate) toggleTool(DELEGATE_TOOL, true);
            }}
            aria-describedby={`${id}-lead-hint`}
          />
          <span className="text-sm">
            <span className="font-medium text-slate-700 dark:text-slate-200">Squad lead</span>
            <span id={`${id}-lead-hint`} className="block text-xs text-slate-500 dark:text-slate-400">
              A squad has one lead, who hands out work with <code className="font-mono">{DELEGATE_TOOL}</code>; this takes the role from the current one.
            </span>
            {values.isSquadLead && !checked.has(DELEGATE_TOOL) && (
              <span data-testid="lead-without-delegate" className="mt-1 block text-xs text-amber-700 dark:text-amber-300">
                {canDelegate
                  ? `Without ${DELEGATE_TOOL} this lead is told it may not delegate: it can only answer. Tick ${DELEGATE_TOOL} below to let it hand out work.`
                  : `${DELEGATE_TOOL} is not available here, so this lead can only answer.`}
              </span>
            )}
          </span>
        </label>

        <fieldset className="flex flex-col gap-1.5">
          <legend className="mb-1.5 text-sm font-medium text-slate-700 dark:text-slate-200">Allowed tools</legend>
          {tools.length === 0 ? (
            <p className="text-sm text-slate-500 dark:text-slate-400">No tools are registered.</p>
          ) : (
            <ul className="divide-y divide-slate-100 rounded-lg ring-1 ring-slate-200 dark:divide-slate-800 dark:ring-slate-700">
              {tools.map((tool) => (
                <li key={tool.name} className="flex flex-wrap items-start gap-x-3">
                  <label className="flex min-w-0 flex-1 cursor-pointer items-start gap-3 px-3 py-2 hover:bg-slate-50 dark:hover:bg-slate-800">
                    <input
                      type="checkbox"
                      data-testid={`tool-${tool.name}`}
                      className={CHECKBOX}
                      checked={checked.has(tool.name)}
                      onChange={(e) => toggleTool(tool.name, e.target.checked)}
                      aria-labelledby={`${id}-tool-${tool.name}`}
                      aria-describedby={`${id}-tool-${tool.name}-about`}
                    />
                    <span className="min-w-0 text-sm">
                      <code id={`${id}-tool-${tool.name}`} className="font-mono text-xs font-medium text-slate-800 dark:text-slate-200">
                        {tool.name}
                      </code>
                      <span id={`${id}-tool-${tool.name}-about`} className="block text-xs text-slate-500 dark:text-slate-400">
                        {tool.description}
                      </span>
                    </span>
                  </label>
                  {checked.has(tool.name) && (
                    <span className="flex items-center gap-2 px-3 py-2 text-xs text-slate-500 dark:text-slate-400">
                      <label htmlFor={`${id}-approval-${tool.name}`}>Needs approval</label>
                      <Select
                        id={`${id}-approval-${tool.name}`}
                        data-testid={`approval-${tool.name}`}
                        aria-label={`Approval for ${tool.name}`}
                        value={effectiveApproval(tool, approvals)}
                        options={APPROVAL_OPTIONS}
                        onValueChange={(policy) => setApprovals((current) => new Map(current).set(tool.name, policy))}
                        className="py-1 text-xs"
                      />
                    </span>
                  )}
                </li>
              ))}
            </ul>
          )}
        </fieldset>
        {children}
      </div>

      <footer className="flex flex-col gap-3 border-t border-slate-100 px-5 py-4 dark:border-slate-800">
        <FormActions failure={failure} onCancel={onCancel} submitLabel={submitLabel} busyLabel="Saving…" busy={saving} keepFocus />
      </footer>
    </form>
  );
}
