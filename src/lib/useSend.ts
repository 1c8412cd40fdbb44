import { useRef, useState } from "react";
import { isFailureResult, userMessage } from "./errors";

/**
 * Sending from a composer: one send at a time, `sending` while it runs, the
 * failure's message in `error` when it fails (the draft is kept), and
 * `onSent` (clear the draft) when it succeeds. `onSend` fails by rejecting
 * (a thrown server error) or by resolving to a `FailureResult` (a slash
 * command's). Empty content is not sent, unless `allowEmpty` (a message of
 * files only).
 *
 * Each message gets its own `clientMessageId`; sending the same draft again
 * after a failure reuses it, so a send that reached the server although its
 * answer was lost posts once (the server keeps one message per id).
 */
export function useSend(onSend: (content: string, clientMessageId: string) => Promise<unknown>) {
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const failed = useRef<{ content: string; id: string } | null>(null);

  function send(content: string, onSent: () => void, { allowEmpty = false }: { allowEmpty?: boolean } = {}) {
    if ((content === "" && !allowEmpty) || sending) return;
    setSending(true);
    setError(null);
    const id = failed.current?.content === content ? failed.current.id : crypto.randomUUID();
    failed.current = { content, id };
    onSend(content, id).then(
      (outcome) => {
        if (isFailureResult(outcome)) setError(outcome.error);
        else onSent();
        // Only a send that may have reached the server keeps its id for the retry; a refused command posts nothing.
        failed.current = null;
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
