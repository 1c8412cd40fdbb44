// A dialog that is one small form: title, fields, the failure, Cancel and the submit button.
import { useId, type ReactNode } from "react";
import { useSave } from "../../lib/useSave";
import { FormActions, onSubmitted } from "./Field";
import { Dialog } from "./Modal";

type Props = {
  testId: string;
  title: string;
  submitLabel: string;
  /** False while the form is incomplete: the submit button waits. */
  ready: boolean;
  onClose: () => void;
  /** Submits; a rejection's message shows above the buttons (what a success does is the caller's `then`). */
  onSubmit: () => Promise<unknown>;
  children: ReactNode;
};

export function FormDialog({ testId, title, submitLabel, ready, onClose, onSubmit, children }: Props) {
  const headingId = useId();
  const { saving, failure, save } = useSave();
  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      <form
        data-testid={testId}
        className="flex flex-col gap-4 p-5"
        onSubmit={onSubmitted(() => save(onSubmit()))}
      >
        <h2 id={headingId} className="text-base font-semibold text-slate-900 dark:text-slate-100">
          {title}
        </h2>
        {children}
        <FormActions failure={failure} onCancel={onClose} submitLabel={submitLabel} busy={saving} ready={ready} />
      </form>
    </Dialog>
  );
}
