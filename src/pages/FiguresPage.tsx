// The figures route (`/d/:slug/figures`): the department's messaging figures, what its agents cost, and the newest delegation eval.
import { MessagingStats } from "../channels/MessagingStats";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { CostFigures } from "../costs/CostFigures";
import { EvalFigures } from "../evals/EvalFigures";
import { isAdminRole } from "../shell/role";
import { useDepartment } from "../shell/workspace";

/** A failure shows in the page's place; the shell and the side panel stay. */
export function FiguresPage() {
  const { _id: departmentId, slug, role } = useDepartment();
  return (
    <ErrorBoundary>
      <section
        data-testid="figures-page"
        className="flex min-h-0 flex-1 flex-col gap-3 overflow-y-auto rounded-xl bg-white p-4 ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700"
      >
        <h1 className="text-base font-semibold text-slate-900 dark:text-slate-100">Messaging figures</h1>
        <MessagingStats departmentId={departmentId} />
        <h2 className="mt-4 text-base font-semibold text-slate-900 dark:text-slate-100">Costs</h2>
        <CostFigures departmentId={departmentId} canEdit={isAdminRole(role)} />
        <h2 className="mt-4 text-base font-semibold text-slate-900 dark:text-slate-100">Delegation eval</h2>
        <EvalFigures departmentId={departmentId} slug={slug} isAdmin={isAdminRole(role)} />
      </section>
    </ErrorBoundary>
  );
}
