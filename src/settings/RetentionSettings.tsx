import { useMutation, useQuery } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { RetentionPolicy } from "../../convex/lib/retention";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Button } from "../components/ui/Button";
import { Field, FormActions, onSubmitted, TextInput } from "../components/ui/Field";
import { SkeletonStack } from "../components/ui/Skeleton";
import { useSave } from "../lib/useSave";
import { parseRetention, RETENTION_FIELDS, retentionDraft, retentionSummary, type RetentionDraft, type RetentionField } from "./retention";

type Props = {
  departmentId: Id<"departments">;
  departmentName: string;
  isAdmin: boolean;
};

/**
 * How long the department keeps its channel and DM messages, files and
 * history (messaging spec, "Retention"): admins set a message TTL, a
 * per-conversation cap, a file TTL and a history TTL, each empty by default
 * (keep everything). Members and
 * viewers see only that admins decide it: the policy is the admins' query.
 * A section of the settings dialog with its own divider and error boundary.
 */
export function RetentionSettings(props: Props) {
  return (
    <div className="border-t border-slate-100 pt-4 dark:border-slate-800">
      <ErrorBoundary>
        <RetentionSection {...props} />
      </ErrorBoundary>
    </div>
  );
}

function RetentionSection({ departmentId, departmentName, isAdmin }: Props) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2" data-testid="retention-settings">
      <h3 id={headingId} className="text-sm font-semibold text-slate-800 dark:text-slate-200">
        Retention
      </h3>
      {isAdmin ? (
        <LiveRetention departmentId={departmentId} departmentName={departmentName} />
      ) : (
        <p className="text-xs text-slate-500 dark:text-slate-400">How long {departmentName} keeps its messages, files and history is set by its owners and admins.</p>
      )}
    </section>
  );
}

function LiveRetention({ departmentId, departmentName }: Omit<Props, "isAdmin">) {
  const policy = useQuery(api.retention.get, { departmentId });
  const update = useMutation(api.retention.update);
  if (policy === undefined) return <SkeletonStack label="Loading retention…" blocks={["h-4", "h-14", "h-14", "h-14"]} />;
  return (
    <>
      <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="retention-summary">
        {departmentName}: {retentionSummary(policy)}
      </p>
      {/* Seeded once: a live change by another admin does not overwrite what is being typed. */}
      <RetentionForm initial={policy} onSubmit={(next) => update({ departmentId, policy: next })} />
    </>
  );
}

type FormProps = {
  initial: RetentionPolicy;
  onSubmit: (policy: RetentionPolicy) => Promise<unknown>;
};

/** The four limits as pure props; an empty field keeps everything of its kind. */
export function RetentionForm({ initial, onSubmit }: FormProps) {
  const id = useId();
  const [draft, setDraft] = useState<RetentionDraft>(() => retentionDraft(initial));
  const [errors, setErrors] = useState<Partial<Record<RetentionField, string>>>({});
  const [saved, setSaved] = useState(false);
  const { saving, failure, save } = useSave();

  function edit(key: RetentionField, value: string) {
    setDraft((current) => ({ ...current, [key]: value }));
    setErrors((current) => ({ ...current, [key]: undefined }));
    setSaved(false);
  }

  function handleSubmit() {
    if (saving) return;
    const parsed = parseRetention(draft);
    if ("errors" in parsed) {
      setErrors(parsed.errors);
      const first = RETENTION_FIELDS.find(({ key }) => parsed.errors[key] !== undefined);
      if (first) document.getElementById(`${id}-${first.key}`)?.focus();
      return;
    }
    setErrors({});
    save(onSubmit(parsed.policy).then(() => setSaved(true)));
  }

  return (
    <form noValidate onSubmit={onSubmitted(handleSubmit)} aria-label="Retention" className="flex flex-col gap-3">
      <div className="flex flex-col gap-3">
        {RETENTION_FIELDS.map(({ key, label, unit, min, max, about }) => (
          <Field
            key={key}
            label={`${label} (${unit})`}
            htmlFor={`${id}-${key}`}
            hint={`${about} ${min.toLocaleString("en")}–${max.toLocaleString("en")}; empty keeps everything.`}
            error={errors[key]}
          >
            {(control) => (
              <TextInput
                {...control}
                type="number"
                inputMode="numeric"
                min={min}
                max={max}
                step={1}
                placeholder="Keep everything"
                value={draft[key]}
                onChange={(event) => edit(key, event.target.value)}
              />
            )}
          </Field>
        ))}
      </div>
      {saved && (
        <p role="status" className="text-xs text-emerald-700 dark:text-emerald-300">
          Saved.
        </p>
      )}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Button
          variant="ghost"
          className="px-2 py-1 text-xs"
          onClick={() => {
            for (const { key } of RETENTION_FIELDS) edit(key, "");
          }}
        >
          Keep everything
        </Button>
        <div className="flex-1">
          <FormActions failure={failure} submitLabel="Save retention" busyLabel="Saving…" busy={saving} />
        </div>
      </div>
    </form>
  );
}
