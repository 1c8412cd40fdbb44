// The figures page's delegation eval: the newest `npm run eval` result stored for this department.
import { useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { evalSummaryRows } from "../../convex/lib/evalResults";
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
  return <EvalResultView result={result} command={isAdmin ? evalCommand(slug) : null} />;
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
          <p>No eval has been stored for this department yet: an owner or admin runs one from a terminal.</p>
        ) : (
          <>
            <p>
              No eval has been stored for this department yet. The eval runs the delegation scenarios against your model in throwaway departments of a
              backend of its own, so it is started from a terminal, not from here:
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
