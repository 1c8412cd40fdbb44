import { useMutation } from "convex/react";
import { useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { userMessage } from "../lib/errors";
import { canWrite, useRole } from "../shell/role";

/** Stops a queued or running run; says why when it cannot. A viewer, who may not stop runs, gets no button. */
export function StopRunButton({ taskId, runId }: { taskId: Id<"tasks">; runId: Id<"runs"> }) {
  const stop = useMutation(api.runs.stop);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const writable = canWrite(useRole());
  if (!writable) return null;
  const onClick = () => {
    setPending(true);
    setError(null);
    stop({ taskId, runId })
      .catch((e: unknown) => setError(userMessage(e)))
      .finally(() => setPending(false));
  };
  return (
    <span className="flex items-center gap-2">
      <Button variant="secondary" onClick={onClick} disabled={pending} className="px-2 py-0.5 text-xs">
        {pending ? "Stopping…" : "Stop"}
      </Button>
      {error !== null && (
        <span role="alert" className="text-xs text-rose-700 dark:text-rose-300">
          {error}
        </span>
      )}
    </span>
  );
}
