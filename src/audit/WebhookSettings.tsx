// The department's outbound webhook for admins: its URL and signing secret, a test delivery, and the recent deliveries.
import { useMutation, useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Badge } from "../components/ui/Badge";
import { Button } from "../components/ui/Button";
import { Field, InlineError, onSubmitted, TextInput } from "../components/ui/Field";
import { RelativeTime } from "../components/ui/RelativeTime";
import { SkeletonStack } from "../components/ui/Skeleton";
import { userMessage } from "../lib/errors";
import { useNow } from "../lib/relativeTime";
import { attemptsLabel, deliveryStatus } from "./webhook";

type Webhook = FunctionReturnType<typeof api.webhooks.get>;

/** What the last action did, in words, or why it failed. */
type Outcome = { ok: true; text: string } | { ok: false; text: string } | null;

export function WebhookSettings({ departmentId }: { departmentId: Id<"departments"> }) {
  const webhook = useQuery(api.webhooks.get, { departmentId });
  const set = useMutation(api.webhooks.set);
  const remove = useMutation(api.webhooks.remove);
  const sendTest = useMutation(api.webhooks.sendTest);
  const [secret, setSecret] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);

  /** Runs one action; its words (or its refusal) show under the form. */
  const act = (work: () => Promise<string>) => {
    setBusy(true);
    setOutcome(null);
    work().then(
      (text) => {
        setBusy(false);
        setOutcome({ ok: true, text });
      },
      (error: unknown) => {
        setBusy(false);
        setOutcome({ ok: false, text: userMessage(error) });
      },
    );
  };

  if (webhook === undefined) return <SkeletonStack label="Loading the webhook…" blocks={["h-10", "h-24"]} />;
  return (
    <div className="flex flex-col gap-5">
      <UrlForm
        key={webhook?.url ?? ""}
        current={webhook}
        busy={busy}
        onSave={(url) =>
          act(async () => {
            const { secret: fresh } = await set({ departmentId, url });
            setSecret(fresh);
            return "Webhook saved. Copy its signing secret now: it is not shown again.";
          })
        }
      />
      {secret !== null && (
        <div data-testid="webhook-secret" className="flex flex-col gap-1 rounded-lg bg-amber-50 px-3 py-2 ring-1 ring-amber-200 ring-inset dark:bg-amber-950/40 dark:ring-amber-800">
          <p className="text-sm font-medium text-amber-900 dark:text-amber-100">Signing secret (shown once)</p>
          <code className="text-xs break-all text-amber-900 select-all dark:text-amber-100">{secret}</code>
          <p className="text-xs text-amber-800 dark:text-amber-200">
            Each delivery carries <code>X-Maestro-Signature: sha256=</code>HMAC-SHA256 of its body with this secret.
          </p>
        </div>
      )}
      {webhook !== null && (
        <div className="flex flex-wrap items-center gap-2">
          <Button variant="secondary" disabled={busy} data-testid="webhook-test" onClick={() => act(async () => (await sendTest({ departmentId }), "Test delivery sent: it shows below in a moment."))}>
            Send test delivery
          </Button>
          {confirmRemove ? (
            <>
              <span className="text-sm text-slate-700 dark:text-slate-200">Remove the webhook? Events stop being sent.</span>
              <Button
                variant="secondary"
                className="text-rose-700 dark:text-rose-300"
                disabled={busy}
                onClick={() => {
                  setConfirmRemove(false);
                  setSecret(null);
                  act(async () => (await remove({ departmentId }), "Webhook removed."));
                }}
              >
                Yes, remove
              </Button>
              <Button variant="ghost" onClick={() => setConfirmRemove(false)}>
                Keep it
              </Button>
            </>
          ) : (
            <Button variant="ghost" disabled={busy} onClick={() => setConfirmRemove(true)}>
              Remove webhook
            </Button>
          )}
        </div>
      )}
      {outcome !== null && !outcome.ok && <InlineError>{outcome.text}</InlineError>}
      <p role="status" aria-live="polite" data-testid="webhook-status" className="min-h-5 text-sm text-emerald-700 dark:text-emerald-300">
        {outcome?.ok ? outcome.text : null}
      </p>
      {webhook !== null && <Deliveries deliveries={webhook.deliveries} />}
    </div>
  );
}

function UrlForm({ current, busy, onSave }: { current: Webhook; busy: boolean; onSave: (url: string) => void }) {
  const id = useId();
  const [url, setUrl] = useState(current?.url ?? "");
  return (
    <form className="flex flex-col gap-2" onSubmit={onSubmitted(() => onSave(url))}>
      <Field
        label="Webhook URL"
        htmlFor={`${id}-url`}
        hint={
          current === null
            ? "Every event of the department is POSTed here as JSON, signed. Saving makes a new signing secret."
            : `Its signing secret starts ${current.secretHint}; saving again replaces the URL and makes a new secret.`
        }
      >
        {(control) => <TextInput {...control} type="url" inputMode="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/maestro" required />}
      </Field>
      <div className="flex justify-end">
        <Button type="submit" disabled={busy || url.trim() === ""}>
          {current === null ? "Set webhook" : "Save and make a new secret"}
        </Button>
      </div>
    </form>
  );
}

function Deliveries({ deliveries }: { deliveries: NonNullable<Webhook>["deliveries"] }) {
  const now = useNow(15_000);
  return (
    <section className="flex flex-col gap-2" aria-labelledby="webhook-deliveries-heading">
      <h2 id="webhook-deliveries-heading" className="text-sm font-semibold text-slate-800 dark:text-slate-200">
        Recent deliveries
      </h2>
      {deliveries.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">None yet. Send a test delivery, or wait for the next event.</p>
      ) : (
        <ul data-testid="webhook-deliveries" className="flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
          {deliveries.map((d) => {
            const status = deliveryStatus(d);
            return (
              <li key={d._id} data-testid="webhook-delivery" data-status={d.status} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2 text-sm">
                <Badge className={status.className}>{status.label}</Badge>
                <span className="font-mono text-xs text-slate-700 dark:text-slate-200">{d.eventType ?? "an event no longer kept"}</span>
                <RelativeTime at={d._creationTime} now={now} className="text-xs text-slate-500 dark:text-slate-400" />
                {attemptsLabel(d.attempts) !== null && <span className="text-xs text-slate-500 dark:text-slate-400">{attemptsLabel(d.attempts)}</span>}
                {d.status === "failed" && d.lastError !== undefined && <span className="w-full text-xs text-rose-700 dark:text-rose-300">{d.lastError}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
