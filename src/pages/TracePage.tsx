// The trace route (`/d/:slug/trace/:correlationId`): one delegation's steps, for the department's admins.
import { Link, useParams } from "react-router";
import { AdminOnly, AuditPage } from "../audit/AuditPage";
import { TraceView } from "../audit/TraceView";
import { eventsPath } from "../shell/addresses";
import { useDepartment } from "../shell/workspace";

export function TracePage() {
  const { _id: departmentId, slug } = useDepartment();
  const correlationId = useParams().correlationId ?? "";
  return (
    <AuditPage
      testId="trace-page"
      title="Delegation trace"
      aside={
        <Link to={eventsPath(slug)} className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
          Event log →
        </Link>
      }
    >
      <AdminOnly what="a delegation’s trace">
        <TraceView key={correlationId} departmentId={departmentId} slug={slug} correlationId={correlationId} />
      </AdminOnly>
    </AuditPage>
  );
}
