// The event log route (`/d/:slug/events`, `?correlation=<id>` narrowing it to one delegation): the department's audit trail, for its admins.
import { Link, useSearchParams } from "react-router";
import { EventLog } from "../audit/EventLog";
import { AdminOnly, AuditPage } from "../audit/AuditPage";
import { CORRELATION_PARAM, webhookPath } from "../shell/addresses";
import { useDepartment } from "../shell/workspace";

export function EventsPage() {
  const { _id: departmentId, slug } = useDepartment();
  // `?correlation=<id>` (a trace's link) starts the log narrowed to that id.
  const correlationId = useSearchParams()[0].get(CORRELATION_PARAM) ?? "";
  return (
    <AuditPage
      testId="events-page"
      title="Event log"
      aside={
        <Link to={webhookPath(slug)} className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
          Webhook →
        </Link>
      }
    >
      <AdminOnly what="the event log">
        <EventLog key={correlationId} departmentId={departmentId} slug={slug} correlationId={correlationId} />
      </AdminOnly>
    </AuditPage>
  );
}
