// The webhook route (`/d/:slug/webhook`): where the department's events are sent, for its admins.
import { Link } from "react-router";
import { AdminOnly, AuditPage } from "../audit/AuditPage";
import { WebhookSettings } from "../audit/WebhookSettings";
import { eventsPath } from "../shell/addresses";
import { useDepartment } from "../shell/workspace";

export function WebhookPage() {
  const { _id: departmentId, slug } = useDepartment();
  return (
    <AuditPage
      testId="webhook-page"
      title="Webhook"
      aside={
        <Link to={eventsPath(slug)} className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
          ← Event log
        </Link>
      }
    >
      <AdminOnly what="the webhook">
        <WebhookSettings departmentId={departmentId} />
      </AdminOnly>
    </AuditPage>
  );
}
