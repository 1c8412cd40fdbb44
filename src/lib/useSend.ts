import { useState } from "react";
import { isFailureResult, userMessage } from "./errors";

/**
 * Sending from a composer: one send at a time, `sending` while it runs, the
 * failure's message in `error` when it fails (the draft is kept), and
 * `onSent` (clear the draft) when it succeeds. `onSend` fails by rejecting
 * (a thrown server error) or by resolving to a `FailureResult` (a slash
 * command's). Empty content is not sent.
 */
export function useSend(onSend: (content: string) => Promise<unknown>) {
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  function send(content: string, onSent: () => void) {
    if (content === "" || sending) return;
    setSending(true);
    setError(null);
    onSend(content).then(
      (outcome) => {
        if (isFailureResult(outcome)) setError(outcome.error);
        else onSent();
        setSending(false);
      },
      (failure: unknown) => {
        setError(userMessage(failure));
        setSending(false);
      },
    );
  }

  return { sending, error, send };
}
