// The settings dialog's way to the department's records: the event log, the webhook and the command history.
import { Link } from "react-router";
import { commandsPath, eventsPath, webhookPath } from "../shell/addresses";

const LINK = "rounded-md text-sm font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-indigo-300";

/** Links that close the dialog as they go. */
export function AuditLinks({ slug, onNavigate }: { slug: string; onNavigate: () => void }) {
  return (
    <section className="flex flex-col gap-2" data-testid="settings-audit-links">
      <h3 className="text-sm font-semibold text-slate-800 dark:text-slate-200">Records and webhook</h3>
      <p className="text-xs text-slate-600 dark:text-slate-300">Who did what in the department, where its events are sent, and the commands people typed.</p>
      <div className="flex flex-wrap gap-x-4 gap-y-1">
        <Link to={eventsPath(slug)} onClick={onNavigate} className={LINK}>
          Event log
        </Link>
        <Link to={webhookPath(slug)} onClick={onNavigate} className={LINK}>
          Webhook
        </Link>
        <Link to={commandsPath(slug)} onClick={onNavigate} className={LINK}>
          Command history
        </Link>
      </div>
    </section>
  );
}
