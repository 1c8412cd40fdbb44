import { useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ErrorBoundary } from "../components/ErrorBoundary";
import type { StreamingRun } from "./runViews";

/** "Jarvis is typing…" with the reply as it streams in, one line per running agent. */
export function TypingIndicatorView({ streams }: { streams: readonly StreamingRun[] }) {
  if (streams.length === 0) return null;
  return (
    <ul aria-label="Agents typing" className="flex flex-col gap-2">
      {streams.map((stream) => (
        <li key={stream.runId} data-testid="typing" className="rounded-lg bg-indigo-50/60 px-3 py-2 text-sm dark:bg-indigo-950/40">
          <p role="status" aria-live="polite" className="text-xs font-medium text-indigo-700 dark:text-indigo-300">
            {stream.agentName} is typing…
          </p>
          {stream.text !== "" && <p className="mt-1 whitespace-pre-wrap break-words text-slate-700 dark:text-slate-200">{stream.text}</p>}
        </li>
      ))}
    </ul>
  );
}

function LiveTyping({ taskId }: { taskId: Id<"tasks"> }) {
  const streams = useQuery(api.runs.streamingForTask, { taskId });
  return streams === undefined ? null : <TypingIndicatorView streams={streams} />;
}

/** The task's agents typing, live; a failure here hides it and leaves the thread alone. */
export function TypingIndicator({ taskId }: { taskId: Id<"tasks"> }) {
  return (
    <ErrorBoundary key={taskId} fallback={() => null}>
      <LiveTyping taskId={taskId} />
    </ErrorBoundary>
  );
}
