import { useState } from "react";

type Options = {
  /** The saved value, shown while not editing. */
  value: string;
  /** A problem with the draft (shown, nothing saved), or null. */
  validate?: (draft: string) => string | null;
  /** Saves the draft; rejects with the failure. */
  save: (draft: string) => Promise<unknown>;
  /** Told about a failed save (the optimistic value has already rolled back by then). */
  onError: (error: unknown) => void;
};

/**
 * Click-to-edit state for one field. While not editing, the live value shows
 * (so edits by others appear); committing an unchanged draft just closes the
 * editor; a save closes it at once, since the optimistic update shows the new
 * value, and a failure is reported to `onError`.
 */
export function useInlineEdit({ value, validate, save, onError }: Options) {
  const [draft, setDraft] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  return {
    editing: draft !== null,
    draft: draft ?? value,
    problem,
    start: () => {
      setProblem(null);
      setDraft(value);
    },
    change: (next: string) => {
      setProblem(null);
      setDraft(next);
    },
    cancel: () => {
      setProblem(null);
      setDraft(null);
    },
    commit: () => {
      if (draft === null) return;
      if (draft.trim() === value.trim()) {
        setDraft(null);
        return;
      }
      const invalid = validate?.(draft) ?? null;
      if (invalid !== null) {
        setProblem(invalid);
        return;
      }
      setDraft(null);
      save(draft).catch(onError);
    },
  };
}
