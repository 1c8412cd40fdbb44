import { Link, useNavigate } from "react-router";
import type { Id } from "../../convex/_generated/dataModel";
import { RunsList } from "../runs/RunsList";
import { RunView } from "../runs/RunView";
import { useNow } from "../task/relativeTime";
import { runsPath } from "./routes";

type Props = { departmentId: Id<"departments">; departmentSlug: string; runId?: Id<"runs"> };

/** The department's agent runs (`/d/:slug/runs`), or one run's timeline (`/d/:slug/runs/:runId`). */
export function RunsPage({ departmentId, departmentSlug, runId }: Props) {
  const navigate = useNavigate();
  const now = useNow(30_000);
  return (
    <section data-testid="runs-page" className="flex min-h-0 flex-1 flex-col gap-3 overflow-y-auto rounded-xl bg-white p-4 ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700">
      {runId === undefined ? (
        <>
          <h1 className="text-base font-semibold text-slate-900 dark:text-slate-100">Agent runs</h1>
          <RunsList departmentId={departmentId} now={now} onOpenRun={(id) => void navigate(runsPath(departmentSlug, id))} />
        </>
      ) : (
        <>
          <Link to={runsPath(departmentSlug)} className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
            ← All runs
          </Link>
          <RunView runId={runId} />
        </>
      )}
    </section>
  );
}
