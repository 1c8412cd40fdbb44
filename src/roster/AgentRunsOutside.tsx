import { useMutation } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import { PanelBoundary } from "../components/ErrorBoundary";
import { Button } from "../components/ui/Button";
import { InlineError } from "../components/ui/Field";
import { userMessage } from "../lib/errors";
import type { Agent } from "./types";

type Props = { agent: Pick<Agent, "_id" | "name" | "isSquadLead" | "runsOutside" | "endpointUrl"> };

/**
 * Whether Maestro runs the agent or a program outside it does (owners and
 * admins; `agents.setRunsOutside`). Outside, Maestro starts no runs of it:
 * its work waits in its inbox and, with an endpoint URL, is POSTed there
 * signed with a secret shown here once.
 */
export function AgentRunsOutside({ agent }: Props) {
  return (
    <PanelBoundary key={agent._id}>
      <RunsOutsideSettings agent={agent} />
    </PanelBoundary>
  );
}

function RunsOutsideSettings({ agent }: Props) {
  const headingId = useId();
  const urlId = useId();
  const setRunsOutside = useMutation(api.agents.setRunsOutside);
  const [url, setUrl] = useState(agent.endpointUrl ?? "");
  const [secret, setSecret] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const outside = agent.runsOutside === true;

  function save(runsOutside: boolean, endpointUrl: string | null | undefined) {
    if (busy) return;
    setBusy(true);
    setFailure(null);
    setRunsOutside({ agentId: agent._id, runsOutside, endpointUrl }).then(
      (answer) => {
        setSecret(answer.secret);
        setBusy(false);
      },
      (error: unknown) => {
        setFailure(userMessage(error));
        setBusy(false);
      },
    );
  }

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2">
      <h3 id={headingId} className="text-sm font-medium text-slate-700 dark:text-slate-200">
        Where it runs
      </h3>
      <label className="flex cursor-pointer items-start gap-2">
        <input
          type="checkbox"
          className="mt-0.5 size-4 shrink-0 rounded border-slate-300 text-indigo-600 focus:ring-indigo-600 dark:border-slate-600 dark:text-indigo-300"
          checked={outside}
          disabled={busy || (agent.isSquadLead && !outside)}
          onChange={(e) => save(e.target.checked, e.target.checked ? undefined : null)}
        />
        <span className="text-xs text-slate-600 dark:text-slate-300">
          Runs outside Maestro. Maestro starts no runs of {agent.name}: its assignments, delegations, @mentions and DMs wait in its inbox for a program holding
          its API key{agent.isSquadLead ? " (the squad lead always runs in Maestro)" : ""}.
        </span>
      </label>
      {outside && (
        // Not a <form>: this sits inside the agent form, and forms do not nest.
        <div className="flex flex-col gap-1">
          <label htmlFor={urlId} className="text-xs font-medium text-slate-700 dark:text-slate-200">
            Endpoint URL (optional): its work is also POSTed here, signed
          </label>
          <div className="flex gap-2">
            <input
              id={urlId}
              type="url"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="https://agents.example.com/dev-bot"
              className="min-w-0 flex-1 rounded-md px-2 py-1 text-xs ring-1 ring-slate-300 dark:bg-slate-900 dark:ring-slate-600"
            />
            <Button variant="secondary" aria-disabled={busy} className="px-2.5 py-1.5 text-xs" onClick={() => save(true, url.trim() === "" ? null : url.trim())}>
              Save endpoint
            </Button>
          </div>
        </div>
      )}
      {secret !== null && (
        <p role="status" className="text-xs text-slate-600 dark:text-slate-300">
          Signing secret (shown once; deliveries carry <code>X-Maestro-Signature: sha256=…</code>): <code className="break-all font-mono">{secret}</code>
        </p>
      )}
      {failure && <InlineError>{failure}</InlineError>}
    </section>
  );
}
