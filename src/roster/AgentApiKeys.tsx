import { useMutation, useQuery } from "convex/react";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { PanelBoundary } from "../components/ErrorBoundary";
import { Badge } from "../components/ui/Badge";
import { Button } from "../components/ui/Button";
import { InlineError } from "../components/ui/Field";
import { Dialog, ModalHeader } from "../components/ui/Modal";
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
  const revokeKey = useMutation(api.agentApiKeys.revoke);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [making, setMaking] = useState(false);
  const isArchitect = agent.kind === "architect";

  function revoke(keyId: Id<"agentApiKeys">) {
    if (busy) return;
    setBusy(true);
    setFailure(null);
    revokeKey({ keyId }).then(
      () => setBusy(false),
      (error: unknown) => {
        setFailure(userMessage(error));
        setBusy(false);
      },
    );
  }

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2">
      <div className="flex items-center justify-between gap-3">
        <h3 id={headingId} className="text-sm font-medium text-slate-700 dark:text-slate-200">
          API keys
        </h3>
        {!isArchitect && (
          <Button variant="secondary" onClick={() => setMaking(true)} className="px-2.5 py-1.5 text-xs">
            Create key
          </Button>
        )}
      </div>
      <p data-testid="api-keys-about" className="text-xs text-slate-500 dark:text-slate-400">
        {isArchitect
          ? "Architects take no part in chat, so they get no API keys."
          : `Lets ${agent.name} work from outside Maestro, doing only what each key's scopes allow (listed under it): give a key to an MCP host as a bearer token for <site>/mcp, or to the stdio server (npx maestro-mcp) as MAESTRO_AGENT_KEY.`}
      </p>
      {making && <NewKeyDialog agent={agent} onClose={() => setMaking(false)} />}

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

/**
 * Making a key, in a dialog of its own: the scopes are chosen (what the key
 * will let the agent do reads from the ticks as they change), and only
 * Create key makes it. Once made, the key shows once, with what it lets the
 * agent do, and the dialog offers only Copy and Done: nothing left to cancel.
 */
function NewKeyDialog({ agent, onClose }: { agent: Props["agent"]; onClose: () => void }) {
  const headingId = useId();
  const createKey = useMutation(api.agentApiKeys.create);
  const [scopes, setScopes] = useState<ApiScope[]>([...DEFAULT_SCOPES]);
  const [scopeError, setScopeError] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<{ key: string; scopes: ApiScope[] } | null>(null);
  const [copied, setCopied] = useState(false);

  function create() {
    const error = scopeChoiceError(scopes);
    setScopeError(error);
    if (error !== null || busy) return;
    setBusy(true);
    setFailure(null);
    createKey({ agentId: agent._id, scopes }).then(
      ({ key }) => {
        setBusy(false);
        setMade({ key, scopes });
      },
      (e: unknown) => {
        setBusy(false);
        setFailure(userMessage(e));
      },
    );
  }

  function copy(key: string) {
    navigator.clipboard?.writeText(key).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  }

  const powers = (shown: readonly ApiScope[], id: string, lead: string) => (
    <div data-testid="key-powers" className="text-xs text-slate-600 dark:text-slate-300">
      <p id={id}>{lead}</p>
      {shown.length > 0 && (
        <ul aria-labelledby={id} className="mt-1 list-disc pl-5">
          {shown.map((scope) => (
            <li key={scope}>{SCOPE_ABOUT[scope]}</li>
          ))}
        </ul>
      )}
    </div>
  );

  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      {made === null ? (
        <>
          <ModalHeader headingId={headingId} title={`New API key for ${agent.name}`} onClose={onClose} truncate />
          {/* Not a <form>: the dialog is rendered from inside the agent form, and a portal's submit would reach it. */}
          <div className="flex min-h-0 flex-col gap-3 overflow-y-auto px-5 py-4">
            <fieldset className="flex flex-col gap-2" aria-describedby={scopeError ? `${headingId}-scope-error` : undefined}>
              <legend className="mb-1 text-xs font-medium text-slate-700 dark:text-slate-200">What the new key may do</legend>
              <ul className="grid grid-cols-1 gap-x-4 gap-y-1.5 sm:grid-cols-2">
                {API_SCOPES.map((scope) => (
                  <li key={scope}>
                    <label className="flex cursor-pointer items-start gap-2">
                      <input
                        type="checkbox"
                        className="mt-0.5 size-4 shrink-0 rounded border-slate-300 text-indigo-600 focus:ring-indigo-600 dark:border-slate-600 dark:text-indigo-300"
                        checked={scopes.includes(scope)}
                        onChange={(e) => {
                          setScopes(toggleScope(scopes, scope, e.target.checked));
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
            </fieldset>
            {powers(scopes, `${headingId}-will`, scopes.length === 0 ? `With no scope ticked, the key would let ${agent.name} do nothing.` : `This key will let ${agent.name}:`)}
            {failure && <InlineError>{failure}</InlineError>}
          </div>
          <footer className="flex justify-end gap-2 border-t border-slate-100 px-5 py-3 dark:border-slate-800">
            <Button variant="ghost" onClick={onClose} className="px-2.5 py-1 text-xs">
              Cancel
            </Button>
            <Button onClick={create} aria-disabled={busy} className="px-2.5 py-1 text-xs">
              {busy ? "Creating…" : "Create key"}
            </Button>
          </footer>
        </>
      ) : (
        <>
          <header className="border-b border-slate-100 px-5 py-4 dark:border-slate-800">
            <h2 id={headingId} className="truncate text-base font-semibold text-slate-900 dark:text-slate-100">
              API key for {agent.name}
            </h2>
          </header>
          <div role="status" className="flex min-h-0 flex-col gap-3 overflow-y-auto px-5 py-4">
            <p className="text-xs font-medium text-amber-900 dark:text-amber-300">Copy this key now: it won’t be shown again.</p>
            <code data-testid="new-api-key" className="block rounded bg-amber-50 px-2 py-1 font-mono text-xs break-all text-slate-900 select-all ring-1 ring-amber-200 ring-inset dark:bg-amber-950/40 dark:text-slate-100 dark:ring-amber-800">
              {made.key}
            </code>
            {powers(made.scopes, `${headingId}-lets`, `This key lets ${agent.name}:`)}
          </div>
          <footer className="flex justify-end gap-2 border-t border-slate-100 px-5 py-3 dark:border-slate-800">
            <Button variant="secondary" onClick={() => copy(made.key)} className="px-2.5 py-1 text-xs">
              {copied ? "Copied" : "Copy"}
            </Button>
            <Button onClick={onClose} className="px-2.5 py-1 text-xs">
              Done
            </Button>
          </footer>
        </>
      )}
    </Dialog>
  );
}
