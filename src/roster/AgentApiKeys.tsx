import { useMutation, useQuery } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { PanelBoundary } from "../components/ErrorBoundary";
import { Badge } from "../components/ui/Badge";
import { Button } from "../components/ui/Button";
import { InlineError } from "../components/ui/Field";
import { userMessage } from "../lib/errors";
import type { Agent } from "./types";
import { LiveList } from "../components/ui/LiveList";
import { API_SCOPES, DEFAULT_SCOPES, SCOPE_ABOUT, scopeChoiceError, scopeSummary, toggleScope, type ApiScope } from "./apiKeyScopes";

type Props = { agent: Pick<Agent, "_id" | "name" | "kind"> };

function formatDate(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/**
 * An agent's API keys, for the edit modal (admins): the keys an agent outside
 * Maestro gives an MCP host (`POST /mcp`, or the stdio server `npx maestro-mcp`) to take part in the squad's work.
 * A new key holds the scopes ticked when it is made (each HTTP route and MCP
 * tool needs one); its plaintext shows once, right after it is created.
 */
export function AgentApiKeys({ agent }: Props) {
  // Its own boundary: a failing key list must not take the agent form down with it.
  return (
    <PanelBoundary key={agent._id}>
      <LiveApiKeys agent={agent} />
    </PanelBoundary>
  );
}

function LiveApiKeys({ agent }: Props) {
  const headingId = useId();
  const keys = useQuery(api.agentApiKeys.list, { agentId: agent._id });
  const createKey = useMutation(api.agentApiKeys.create);
  const revokeKey = useMutation(api.agentApiKeys.revoke);
  const [fresh, setFresh] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The scopes being chosen for a new key; null while no key is being made.
  const [choosing, setChoosing] = useState<ApiScope[] | null>(null);
  const [scopeError, setScopeError] = useState<string | null>(null);
  const isArchitect = agent.kind === "architect";

  function run(work: () => Promise<void>) {
    if (busy) return;
    setBusy(true);
    setFailure(null);
    work().then(
      () => setBusy(false),
      (error: unknown) => {
        setFailure(userMessage(error));
        setBusy(false);
      },
    );
  }

  function startChoosing() {
    setChoosing([...DEFAULT_SCOPES]);
    setScopeError(null);
    setFailure(null);
  }

  function create(scopes: ApiScope[]) {
    const error = scopeChoiceError(scopes);
    setScopeError(error);
    if (error !== null) return;
    run(async () => {
      const { key } = await createKey({ agentId: agent._id, scopes });
      setChoosing(null);
      setCopied(false);
      setFresh(key);
    });
  }

  function revoke(keyId: Id<"agentApiKeys">) {
    run(async () => {
      await revokeKey({ keyId });
    });
  }

  function copy(key: string) {
    navigator.clipboard?.writeText(key).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  }

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2">
      <div className="flex items-center justify-between gap-3">
        <h3 id={headingId} className="text-sm font-medium text-slate-700 dark:text-slate-200">
          API keys
        </h3>
        {!isArchitect && choosing === null && (
          <Button variant="secondary" onClick={startChoosing} aria-disabled={busy} className="px-2.5 py-1.5 text-xs">
            Create key
          </Button>
        )}
      </div>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        {isArchitect
          ? "Architects take no part in chat, so they get no API keys."
          : `Lets ${agent.name} work from outside Maestro (tasks, chat, channels): give the key to an MCP host as a bearer token for <site>/mcp, or to the stdio server (npx maestro-mcp) as MAESTRO_AGENT_KEY.`}
      </p>

      {choosing !== null && (
        // Not a <form>: this sits inside the agent form, and forms do not nest.
        <fieldset className="flex flex-col gap-2 rounded-lg px-3 py-2 ring-1 ring-slate-200 dark:ring-slate-700" aria-describedby={scopeError ? `${headingId}-scope-error` : undefined}>
          <legend className="px-1 text-xs font-medium text-slate-700 dark:text-slate-200">What the new key may do</legend>
          <ul className="grid grid-cols-1 gap-x-4 gap-y-1.5 sm:grid-cols-2">
            {API_SCOPES.map((scope) => (
              <li key={scope}>
                <label className="flex cursor-pointer items-start gap-2">
                  <input
                    type="checkbox"
                    className="mt-0.5 size-4 shrink-0 rounded border-slate-300 text-indigo-600 focus:ring-indigo-600 dark:border-slate-600 dark:text-indigo-300"
                    checked={choosing.includes(scope)}
                    onChange={(e) => {
                      setChoosing(toggleScope(choosing, scope, e.target.checked));
                      setScopeError(null);
                    }}
                    aria-describedby={`${headingId}-${scope}-about`}
                  />
                  <span className="min-w-0 text-xs">
                    <code className="font-mono font-medium text-slate-800 dark:text-slate-200">{scope}</code>
                    <span id={`${headingId}-${scope}-about`} className="block text-slate-500 dark:text-slate-400">
                      {SCOPE_ABOUT[scope]}
                    </span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
          {scopeError && (
            <p id={`${headingId}-scope-error`} className="text-xs text-rose-700 dark:text-rose-300">
              {scopeError}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={() => setChoosing(null)} className="px-2.5 py-1 text-xs">
              Cancel
            </Button>
            <Button onClick={() => create(choosing)} aria-disabled={busy} className="px-2.5 py-1 text-xs">
              Create key
            </Button>
          </div>
        </fieldset>
      )}

      {fresh !== null && (
        <div role="status" className="flex flex-col gap-2 rounded-lg bg-amber-50 px-3 py-2 ring-1 ring-amber-200 ring-inset dark:bg-amber-950/40 dark:ring-amber-800">
          <p className="text-xs font-medium text-amber-900 dark:text-amber-300">Copy this key now: it won’t be shown again.</p>
          <code data-testid="new-api-key" className="block break-all rounded bg-white px-2 py-1 font-mono text-xs text-slate-900 select-all dark:bg-slate-900 dark:text-slate-100">
            {fresh}
          </code>
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={() => copy(fresh)} className="px-2.5 py-1 text-xs">
              {copied ? "Copied" : "Copy"}
            </Button>
            <Button variant="ghost" onClick={() => setFresh(null)} className="px-2.5 py-1 text-xs">
              Done
            </Button>
          </div>
        </div>
      )}

      {failure && <InlineError>{failure}</InlineError>}

      <LiveList items={keys} empty="No keys yet." className="divide-y divide-slate-100 rounded-lg ring-1 ring-slate-200 dark:divide-slate-800 dark:ring-slate-700">
        {(key) => (
          <li key={key._id} className="flex items-center justify-between gap-3 px-3 py-2">
            <span className="min-w-0 text-xs">
              <code className="font-mono font-medium text-slate-800 dark:text-slate-200">{key.prefix}…</code>
              <span className="block text-slate-500 dark:text-slate-400">
                Created {formatDate(key.createdAt)}
                {key.createdByName ? ` by ${key.createdByName}` : ""}
              </span>
              <span className="block break-words text-slate-500 dark:text-slate-400" data-testid="key-scopes">
                {scopeSummary(key.scopes)}
              </span>
            </span>
            {key.revokedAt !== null ? (
              <Badge className="bg-slate-100 text-slate-500 ring-slate-400/20 dark:bg-slate-800 dark:text-slate-400" title={`Revoked ${formatDate(key.revokedAt)}`}>
                Revoked
              </Badge>
            ) : (
              <Button
                variant="ghost"
                onClick={() => revoke(key._id)}
                aria-disabled={busy}
                aria-label={`Revoke key ${key.prefix}`}
                className="px-2 py-1 text-xs text-rose-700 hover:bg-rose-50 hover:text-rose-800 dark:text-rose-300 dark:hover:bg-rose-950/40 dark:hover:text-rose-300"
              >
                Revoke
              </Button>
            )}
          </li>
        )}
      </LiveList>
    </section>
  );
}
