// The event log route (`/d/:slug/events`): the department's audit trail, for its admins.
import { Link } from "react-router";
import { EventLog } from "../audit/EventLog";
import { AdminOnly, AuditPage } from "../audit/AuditPage";
import { webhookPath } from "../shell/addresses";
import { useDepartment } from "../shell/workspace";

export function EventsPage() {
  const { _id: departmentId, slug } = useDepartment();
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
        <EventLog departmentId={departmentId} />
      </AdminOnly>
    </AuditPage>
  );
}
