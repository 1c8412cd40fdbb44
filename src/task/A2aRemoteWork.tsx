// The card's work at A2A agents (issue 45): who is on it, where the remote task stands, and Stop, which cancels it there.
import { useMutation, useQuery } from "convex/react";
import { useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { userMessage } from "../lib/errors";
import { canWrite, useRole } from "../shell/role";

const PHASE_LABEL = { sending: "sending", following: "working", input_required: "waiting for an answer", completed: "done", failed: "failed", canceled: "canceled" } as const;

export function A2aRemoteWork({ taskId, agentName }: { taskId: Id<"tasks">; agentName: (agentId: Id<"agents">) => string }) {
  const open = useQuery(api.a2aRemote.openForTask, { taskId });
  const stop = useMutation(api.a2aRemote.stop);
  const writable = canWrite(useRole());
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (open === undefined || open.length === 0) return null;
  const onStop = () => {
    setPending(true);
    setError(null);
    stop({ taskId })
      .catch((e: unknown) => setError(userMessage(e)))
      .finally(() => setPending(false));
  };
  return (
    <div data-testid="a2a-remote-work" className="flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-300">
      <span>{open.map((row) => `${agentName(row.agentId)} (A2A): ${PHASE_LABEL[row.phase]}`).join(" · ")}</span>
      {writable && (
        <Button variant="secondary" onClick={onStop} disabled={pending} className="px-2 py-0.5 text-xs">
          {pending ? "Stopping…" : "Stop"}
        </Button>
      )}
      {error !== null && (
        <span role="alert" className="text-rose-700 dark:text-rose-300">
          {error}
        </span>
      )}
    </div>
  );
}
