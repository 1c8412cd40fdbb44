import { useMutation, useQuery } from "convex/react";
import { useId } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Button } from "../components/ui/Button";
import { CloseIcon } from "../components/ui/icons";
import { Dialog } from "../components/ui/Modal";
import { Skeleton } from "../components/ui/Skeleton";
import { AgentApiKeys } from "./AgentApiKeys";
import { AgentForm } from "./AgentForm";
import { valuesFromAgent } from "./options";
import type { Agent, AgentFormValues } from "./types";

type Props = {
  departmentId: Id<"departments">;
  /** The agent to edit; without one the modal creates a new agent. */
  agent?: Agent;
  onClose: () => void;
};

/**
 * Creates or edits an agent (admins only; the server refuses anyone else, and
 * the form shows why). Closes once the save succeeds.
 */
export function CreateAgentModal({ departmentId, agent, onClose }: Props) {
  const headingId = useId();
  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      <header className="flex items-center justify-between gap-4 border-b border-slate-100 px-5 py-4 dark:border-slate-800">
        <h2 id={headingId} className="truncate text-base font-semibold text-slate-900 dark:text-slate-100">
          {agent ? `Edit ${agent.name}` : "New agent"}
        </h2>
        <Button variant="ghost" onClick={onClose} aria-label="Close" className="-mr-2 p-1.5">
          <CloseIcon />
        </Button>
      </header>
      <ErrorBoundary>
        <AgentFormWithTools departmentId={departmentId} agent={agent} onClose={onClose} />
      </ErrorBoundary>
    </Dialog>
  );
}

function AgentFormWithTools({ departmentId, agent, onClose }: Props) {
  const tools = useQuery(api.tools.registry.list, { departmentId });
  const approvals = useQuery(api.agents.toolApprovals, agent ? { agentId: agent._id } : "skip");
  const createAgent = useMutation(api.agents.create);
  const updateAgent = useMutation(api.agents.update);

  async function save(values: AgentFormValues) {
    if (agent) await updateAgent({ agentId: agent._id, ...values });
    else await createAgent({ departmentId, ...values });
    onClose();
  }

  if (tools === undefined || (agent !== undefined && approvals === undefined)) return <AgentFormSkeleton />;
  return (
    <AgentForm
      tools={tools}
      initial={agent ? { ...valuesFromAgent(agent), toolApprovals: approvals } : undefined}
      submitLabel={agent ? "Save changes" : "Create agent"}
      onSubmit={save}
      onCancel={onClose}
    >
      {agent && <AgentApiKeys agent={agent} />}
    </AgentForm>
  );
}

function AgentFormSkeleton() {
  return (
    <div role="status" className="flex flex-col gap-4 px-5 py-4">
      <span className="sr-only">Loading…</span>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        {Array.from({ length: 4 }, (_, i) => (
          <Skeleton key={i} className="h-14" />
        ))}
      </div>
      <Skeleton className="h-28" />
      <Skeleton className="h-40" />
    </div>
  );
}
