import { useMutation, useQuery } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { LIMITS } from "../../convex/lib/limits";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Field, FormActions, onSubmitted, TextArea } from "../components/ui/Field";
import { SkeletonStack } from "../components/ui/Skeleton";
import { useSave } from "../lib/useSave";

type Props = {
  departmentId: Id<"departments">;
  departmentName: string;
  isAdmin: boolean;
};

/**
 * The department's name and what it is for (the messaging spec's Project
 * `description`, which the HTTP API's Project carries too): everyone reads
 * it, owners and admins edit it. The first section of the settings dialog.
 */
export function DepartmentAbout(props: Props) {
  return (
    <ErrorBoundary>
      <AboutSection {...props} />
    </ErrorBoundary>
  );
}

function AboutSection({ departmentId, departmentName, isAdmin }: Props) {
  const headingId = useId();
  const about = useQuery(api.departments.about, { departmentId });
  const update = useMutation(api.departments.updateDescription);
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2" data-testid="department-about">
      <h3 id={headingId} className="text-sm font-semibold text-slate-800 dark:text-slate-200">
        {about?.name ?? departmentName}
      </h3>
      {about === undefined ? (
        <SkeletonStack label="Loading the description…" blocks={["h-10"]} />
      ) : isAdmin ? (
        // Seeded once: a live change by another admin does not overwrite what is being typed.
        <DescriptionForm initial={about.description ?? ""} onSubmit={(description) => update({ departmentId, description })} />
      ) : (
        <p className="whitespace-pre-wrap break-words text-sm text-slate-600 dark:text-slate-300" data-testid="department-description">
          {about.description ?? "No description yet. Owners and admins can add one."}
        </p>
      )}
    </section>
  );
}

type FormProps = {
  initial: string;
  onSubmit: (description: string) => Promise<unknown>;
};

/** The description as pure props: at most the server's limit, empty clears it. */
export function DescriptionForm({ initial, onSubmit }: FormProps) {
  const id = useId();
  const [draft, setDraft] = useState(initial);
  const [saved, setSaved] = useState(false);
  const { saving, failure, save } = useSave();
  const max = LIMITS.departmentDescriptionChars;
  const length = draft.trim().length;
  const tooLong = length > max;

  function handleSubmit() {
    if (saving || tooLong) return;
    save(onSubmit(draft.trim()).then(() => setSaved(true)));
  }

  return (
    <form noValidate onSubmit={onSubmitted(handleSubmit)} aria-label="Department description" className="flex flex-col gap-2">
      <Field
        label="Description"
        htmlFor={`${id}-description`}
        hint={`What this department is for; agents outside Maestro read it as the project's description. ${length.toLocaleString("en")} of ${max} characters.`}
        error={tooLong ? `A description is at most ${max} characters.` : undefined}
      >
        {(control) => (
          <TextArea
            {...control}
            rows={3}
            placeholder="What this department works on"
            value={draft}
            onChange={(event) => {
              setDraft(event.target.value);
              setSaved(false);
            }}
          />
        )}
      </Field>
      {saved && (
        <p role="status" className="text-xs text-emerald-700 dark:text-emerald-300">
          Saved.
        </p>
      )}
      <FormActions failure={failure} submitLabel="Save description" busyLabel="Saving…" busy={saving} ready={!tooLong} />
    </form>
  );
}
