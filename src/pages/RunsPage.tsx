// The runs route: the department's agent runs (`/d/:slug/runs`), or one run's timeline (`/d/:slug/runs/:runId`).
import { Link, useParams } from "react-router";
import type { Id } from "../../convex/_generated/dataModel";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { RunsList } from "../runs/RunsList";
import { RunView } from "../runs/RunView";
import { runsPath } from "../shell/addresses";
import { useDepartment } from "../shell/workspace";
import { useNow } from "../lib/relativeTime";

/** A failure shows in the page's place; the shell and the side panel stay. */
export function RunsPage() {
  return (
    <ErrorBoundary>
      <DepartmentRuns />
    </ErrorBoundary>
  );
}

function DepartmentRuns() {
  const { _id: departmentId, slug: departmentSlug } = useDepartment();
  const runId = useParams().runId as Id<"runs"> | undefined;
  const now = useNow(30_000);
  return (
    <section data-testid="runs-page" className="flex min-h-0 flex-1 flex-col gap-3 overflow-y-auto rounded-xl bg-white p-4 ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700">
      {runId === undefined ? (
        <>
          <h1 className="text-base font-semibold text-slate-900 dark:text-slate-100">Agent runs</h1>
          <RunsList departmentId={departmentId} now={now} runHref={(id) => runsPath(departmentSlug, id)} />
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
