import { useMutation, useQuery } from "convex/react";
import { useId } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { SkeletonStack } from "../components/ui/Skeleton";
import { useSave } from "../lib/useSave";

type Props = { departmentId: Id<"departments">; departmentName: string; isAdmin: boolean };

/**
 * The squad as an A2A agent (docs/api-and-mcp.md, "A2A"): owners and admins
 * publish the department's agent card or stop, and read where it is and
 * which key scope a client needs. Off by default; others read only that
 * admins decide it (the settings are the admins' query).
 */
export function A2aServerSettings({ departmentId, departmentName, isAdmin }: Props) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-3" data-testid="a2a-server-settings">
      <h3 id={headingId} className="text-sm font-semibold text-slate-800 dark:text-slate-200">
        A2A: hand work to {departmentName} from another orchestrator
      </h3>
      {isAdmin ? (
        <LiveA2aServer departmentId={departmentId} departmentName={departmentName} />
      ) : (
        <p className="text-xs text-slate-500 dark:text-slate-400">Whether {departmentName} is published as an A2A agent is set by its owners and admins.</p>
      )}
    </section>
  );
}

function LiveA2aServer({ departmentId, departmentName }: Omit<Props, "isAdmin">) {
  const settings = useQuery(api.a2aServer.settings, { departmentId });
  const setEnabled = useMutation(api.a2aServer.setEnabled);
  const { saving, failure, save } = useSave();
  const checkboxId = useId();
  if (settings === undefined) return <SkeletonStack label="Loading the A2A settings…" blocks={["h-4", "h-10"]} />;
  const origin = settings.siteUrl ?? "";
  return (
    <>
      <label htmlFor={checkboxId} className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
        <input
          id={checkboxId}
          type="checkbox"
          checked={settings.enabled}
          disabled={saving}
          onChange={(event) => save(setEnabled({ departmentId, enabled: event.target.checked }))}
        />
        Publish {departmentName} as an A2A agent (its squad lead takes the work)
      </label>
      {failure !== null && (
        <p role="alert" className="text-xs text-red-600 dark:text-red-400">
          {failure}
        </p>
      )}
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs text-slate-600 dark:text-slate-300">
        <dt className="font-medium">Agent card</dt>
        <dd data-testid="a2a-card-url" className="break-all font-mono">
          {origin}
          {settings.cardPath}
        </dd>
        <dt className="font-medium">JSON-RPC</dt>
        <dd className="break-all font-mono">
          {origin}
          {settings.path}
        </dd>
        <dt className="font-medium">Key scope</dt>
        <dd>
          an API key of one of {departmentName}'s agents with the <code className="font-mono">{settings.scope}</code> scope (the roster → the agent → API keys)
        </dd>
      </dl>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        {settings.enabled ? "Published: another orchestrator's message puts a card on the board for the squad lead." : "Not published: the card's address answers 404."}
      </p>
    </>
  );
}
