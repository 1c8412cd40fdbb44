import { useState } from "react";
import { userMessage } from "./errors";

/**
 * A form's save: `saving` while the promise given to `save` is out, and its
 * failure's message (see `userMessage`) in `failure` when it rejects.
 */
export function useSave() {
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  function save(promise: Promise<unknown>) {
    setFailure(null);
    setSaving(true);
    promise.then(
      () => setSaving(false),
      (error: unknown) => {
        setFailure(userMessage(error));
        setSaving(false);
      },
    );
  }

  return { saving, failure, save };
}
