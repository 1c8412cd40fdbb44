import { useId, useState } from "react";
import { Button } from "../components/ui/Button";
import { InlineError } from "../components/ui/Field";
import { userMessage } from "../lib/errors";

type Props = {
  /** The department whose chat starts over. */
  departmentName: string;
  /** Whether the viewer may (admins of that department); otherwise the section says who can. */
  allowed: boolean;
  /** Starts the new session; a rejection's message shows inline. */
  onConfirm: () => Promise<unknown>;
};

type Step = "idle" | "confirming" | "working" | "done";

/**
 * "New chat session" for the current department, behind a confirm step that
 * says what it costs: older messages leave the pane and the agents' view.
 */
export function NewChatSession({ departmentName, allowed, onConfirm }: Props) {
  const [step, setStep] = useState<Step>("idle");
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();
  const warningId = useId();

  function confirm() {
    setStep("working");
    setError(null);
    onConfirm().then(
      () => setStep("done"),
      (failure: unknown) => {
        setError(userMessage(failure));
        setStep("confirming");
      },
    );
  }

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2">
      <h3 id={headingId} className="text-sm font-semibold text-slate-800 dark:text-slate-200">
        New chat session
      </h3>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Starts #maestro over for <span className="font-medium text-slate-700 dark:text-slate-200">{departmentName}</span>.
      </p>
      {!allowed ? (
        <p className="text-xs text-slate-500 dark:text-slate-400">Only admins of {departmentName} can start a new session.</p>
      ) : step === "idle" || step === "done" ? (
        <div className="flex flex-wrap items-center gap-3">
          <Button variant="secondary" onClick={() => setStep("confirming")}>
            New chat session…
          </Button>
          {step === "done" && (
            <p role="status" className="text-xs text-emerald-700 dark:text-emerald-300">
              A new session has started.
            </p>
          )}
        </div>
      ) : (
        <div role="group" aria-describedby={warningId} className="flex flex-col gap-3 rounded-lg bg-amber-50 p-3 ring-1 ring-amber-200 ring-inset dark:bg-amber-950/40 dark:ring-amber-800">
          <p id={warningId} className="text-sm text-amber-900 dark:text-amber-300">
            Start a new chat session for {departmentName}? Older messages will no longer be visible to agents or in the #maestro
            pane.
          </p>
          {error && <InlineError>{error}</InlineError>}
          <div className="flex flex-wrap justify-end gap-2">
            {/* Focus lands on the safe choice. */}
            <Button variant="secondary" autoFocus onClick={() => setStep("idle")} disabled={step === "working"}>
              Keep this session
            </Button>
            <Button onClick={confirm} disabled={step === "working"}>
              {step === "working" ? "Starting…" : "Start new session"}
            </Button>
          </div>
        </div>
      )}
    </section>
  );
}
