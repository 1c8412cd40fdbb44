import { useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";

/**
 * Which model the agents think with, in the header; and, when none is
 * configured, a plain banner saying agents will not act, and why.
 */
export function ModelStatus({ status }: { status: { configured: boolean; label: string | null; problem: string | null } | undefined }) {
  if (status === undefined) return null;
  if (status.configured) {
    return (
      <span
        // Shown whole where the header has room for it (1600 px and up: at 1440 it pushed Sign out off the row once
        // people were present), never cut; narrower, its title on the wordmark's row is gone, not half-shown.
        className="hidden shrink-0 text-xs whitespace-nowrap text-slate-500 min-[1600px]:inline-block dark:text-slate-400"
        data-testid="model-label"
        title={`The model agents think with: ${status.label}`}
      >
        Model: {status.label}
      </span>
    );
  }
  return null;
}

export function ModelProblemBanner({ status }: { status: { configured: boolean; problem: string | null } | undefined }) {
  if (status === undefined || status.configured) return null;
  return (
    <div role="status" data-testid="model-banner" className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900 sm:px-6 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-300">
      Agents are paused and will not answer: {status.problem ?? "no model is configured."}
    </div>
  );
}

/** The deployment's model status, live. */
export function useModelStatus() {
  return useQuery(api.runs.modelStatus, {});
}
