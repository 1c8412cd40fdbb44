import { useMutation, useQuery } from "convex/react";
import { useId } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Dialog, ModalHeader } from "../components/ui/Modal";
import { LoadingStatus, Skeleton } from "../components/ui/Skeleton";
import { AgentApiKeys } from "./AgentApiKeys";
import { AgentForm } from "./AgentForm";
import { AgentRunsOutside } from "./AgentRunsOutside";
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
      <ModalHeader headingId={headingId} title={agent ? `Edit ${agent.name}` : "New agent"} onClose={onClose} truncate />
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
      {agent && <AgentRunsOutside agent={agent} />}
      {agent && <AgentApiKeys agent={agent} />}
    </AgentForm>
  );
}

function AgentFormSkeleton() {
  return (
    <LoadingStatus label="Loading…" className="flex flex-col gap-4 px-5 py-4">
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        {Array.from({ length: 4 }, (_, i) => (
          <Skeleton key={i} className="h-14" />
        ))}
      </div>
      <Skeleton className="h-28" />
      <Skeleton className="h-40" />
    </LoadingStatus>
  );
}
