// The frame of the event log, webhook and command history pages, and the line a non-admin sees in an admin's page's place.
import type { ReactNode } from "react";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { isAdminRole } from "../shell/role";
import { useDepartment } from "../shell/workspace";

type Props = { testId: string; title: string; aside?: ReactNode; children: ReactNode };

/** A page's card with its heading; a failure shows in the page's place, the shell and side panel stay. */
export function AuditPage({ testId, title, aside, children }: Props) {
  return (
    <ErrorBoundary>
      <section data-testid={testId} className="flex min-h-0 flex-1 flex-col gap-4 overflow-y-auto rounded-xl bg-white p-4 ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h1 className="text-base font-semibold text-slate-900 dark:text-slate-100">{title}</h1>
          {aside}
        </div>
        {children}
      </section>
    </ErrorBoundary>
  );
}

/** Its children for the department's owners and admins; for anyone else, what the page is and who reads it (the server refuses them too). */
export function AdminOnly({ what, children }: { what: string; children: ReactNode }) {
  const { role } = useDepartment();
  if (!isAdminRole(role)) {
    return (
      <p data-testid="admin-only" className="text-sm text-slate-600 dark:text-slate-300">
        Only the department’s owners and admins see {what}.
      </p>
    );
  }
  return <>{children}</>;
}
