// The figures page's delegation eval: starting it (admins), its progress, and the newest result stored for this department.
import { useMutation, useQuery } from "convex/react";
import { useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { evalSummaryRows } from "../../convex/lib/evalResults";
import { formatUsd } from "../../convex/lib/pricing";
import { Button } from "../components/ui/Button";
import { userMessage } from "../lib/errors";
import type { EvalResult } from "../../convex/validators";
import { Skeleton } from "../components/ui/Skeleton";
import { CONVEX_URL } from "../config";

/** The command that fills this section, as an admin types it at the project's root (the admin key is read from the data folder, or MAESTRO_ADMIN_KEY). */
export function evalCommand(slug: string): string {
  return `npm run eval -- --report-to ${CONVEX_URL} --department ${slug}`;
}

export function EvalFigures({ departmentId, slug, isAdmin }: { departmentId: Id<"departments">; slug: string; isAdmin: boolean }) {
  const result = useQuery(api.evals.latest, { departmentId });
  if (result === undefined) return <Skeleton className="h-32" />;
  return (
    <div className="flex flex-col gap-3">
      <EvalControls departmentId={departmentId} isAdmin={isAdmin} />
      <EvalResultView result={result} command={isAdmin ? evalCommand(slug) : null} />
    </div>
  );
}

/**
 * The eval run from here: its progress for everyone (n of N, on which model); for owners and admins a
 * Start that first says what it calls and may cost (the price table), and Cancel while it runs.
 */
function EvalControls({ departmentId, isAdmin }: { departmentId: Id<"departments">; isAdmin: boolean }) {
  const status = useQuery(api.evals.status, { departmentId });
  const start = useMutation(api.evals.start);
  const cancel = useMutation(api.evals.cancel);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (status === undefined) return null;
  const run = status.run;
  const act = (work: () => Promise<unknown>) => {
    setError(null);
    work().then(
      () => setConfirming(false),
      (e: unknown) => setError(userMessage(e)),
    );
  };
  const cost = status.estimate.costMicros === null ? "no price in the price table for this model" : `about ${formatUsd(status.estimate.costMicros)} by the price table`;
  return (
    <div data-testid="eval-controls" className="flex flex-col gap-2 text-sm">
      {run?.status === "running" ? (
        <div className="flex flex-wrap items-center gap-2" role="status" data-testid="eval-progress">
          <span>
            Eval running on {run.model}: {run.done} of {run.total} scenarios scored (started by {run.startedByName}).
          </span>
          {isAdmin && (
            <Button variant="secondary" onClick={() => act(() => cancel({ departmentId }))}>
              Cancel eval
            </Button>
          )}
        </div>
      ) : (
        <>
          {run !== null && run.status !== "done" && (
            <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="eval-ended">
              The last eval was {run.status === "cancelled" ? "cancelled" : `stopped: ${run.error ?? "it failed"}`} after {run.done} of {run.total} scenarios.
            </p>
          )}
          {isAdmin && status.problem !== null && <p className="text-xs text-slate-500 dark:text-slate-400">{status.problem}</p>}
          {isAdmin && status.problem === null && !confirming && (
            <div>
              <Button onClick={() => setConfirming(true)}>Run the eval</Button>
            </div>
          )}
          {isAdmin && status.model !== null && confirming && (
            <div role="group" aria-label="Confirm the eval" className="flex flex-col gap-2 rounded border border-slate-200 p-3 dark:border-slate-700" data-testid="eval-confirm">
              <p>
                This runs {status.scenarios} scenarios on {status.model}, each in a throwaway department: it calls the model at least {status.scenarios} times,
                about {status.estimate.modelCalls} ({cost}).
              </p>
              <div className="flex gap-2">
                <Button onClick={() => act(() => start({ departmentId }))}>Start the eval</Button>
                <Button variant="secondary" onClick={() => setConfirming(false)}>
                  Not now
                </Button>
              </div>
            </div>
          )}
        </>
      )}
      {error !== null && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {error}
        </p>
      )}
    </div>
  );
}

const CELL = "px-2 py-1 text-left align-top";

/**
 * The result as plain props: each model's figures side by side, then each failed scenario with why.
 * `command`: how to store one (for admins, who hold the admin key); null for everyone else.
 */
export function EvalResultView({ result, command }: { result: EvalResult | null; command: string | null }) {
  if (result === null) {
    return (
      <section data-testid="eval-figures" aria-label="Delegation eval" className="flex flex-col gap-2 text-sm text-slate-600 dark:text-slate-300">
        {command === null ? (
          <p>No eval has been stored for this department yet: an owner or admin runs one from here or from a terminal.</p>
        ) : (
          <>
            <p>
              No eval has been stored for this department yet. Run it from here, or from a terminal (to compare several models side by side) and
              store its result here:
            </p>
            <code className="rounded bg-slate-100 px-2 py-1 text-xs break-all dark:bg-slate-800">{command}</code>
          </>
        )}
      </section>
    );
  }
  const models = result.models.map((m) => m.model);
  const failures = result.scenarios.flatMap((s) => s.verdicts.filter((v) => !v.pass).map((v) => ({ id: s.id, kind: s.kind, ...v })));
  return (
    <section data-testid="eval-figures" aria-label="Delegation eval" className="flex flex-col gap-3 text-sm">
      <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="eval-when">
        Last run {new Date(result.ranAt).toLocaleString()} against {result.server} · {models.join(", ")} · {result.scenarios.length} scenarios in{" "}
        {(result.wallMs / 1000).toFixed(1)} s
      </p>
      <table data-testid="eval-summary" className="w-full text-xs tabular-nums">
        <thead>
          <tr className="border-b border-slate-200 dark:border-slate-700">
            <th className={CELL} scope="col">
              <span className="sr-only">Figure</span>
            </th>
            {models.map((model) => (
              <th key={model} className={CELL} scope="col">
                {model}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {evalSummaryRows(result.models).map(([label, ...cells]) => (
            <tr key={label} className="border-b border-slate-100 dark:border-slate-800">
              <th className={`${CELL} font-normal text-slate-500 dark:text-slate-400`} scope="row">
                {label}
              </th>
              {cells.map((cell, i) => (
                <td key={models[i]} className={CELL}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {failures.length === 0 ? (
        <p className="text-xs text-slate-500 dark:text-slate-400">Every scenario passed.</p>
      ) : (
        <ul data-testid="eval-failures" aria-label="Failed scenarios" className="flex flex-col gap-1 text-xs">
          {failures.map((f) => (
            <li key={`${f.model} ${f.id}`}>
              <span className="font-semibold text-rose-700 dark:text-rose-400">FAIL</span> {f.model} · {f.id} ({f.kind}){f.why.length > 0 ? ": " : ""}
              {f.why.join("; ")}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
