import { useMutation, useQuery } from "convex/react";
import { useMemo, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { PanelBoundary } from "../components/ErrorBoundary";
import { Button } from "../components/ui/Button";
import { userMessage } from "../lib/errors";
import { useWaiting, waitingByAgent } from "../shell/waiting";
import { AddA2aAgentModal } from "./AddA2aAgentModal";
import { CreateAgentModal } from "./CreateAgentModal";
import { RosterFrame, RosterList } from "./RosterList";

type Props = {
  departmentId: Id<"departments">;
  isAdmin: boolean;
  /** Where an agent's name links to (its page). */
  agentHref?: (agentSlug: string) => string;
};

/** Which agent modal is open: none, a new agent, or editing one (by id, so it shows the live agent). */
type Editing = null | { mode: "create" } | { mode: "a2a" } | { mode: "edit"; agentId: Id<"agents"> };

/**
 * The department's live roster. Admins can add agents and edit them; a failing
 * query shows in the panel with a retry, leaving the rest of the page alone.
 */
export function RosterPanel({ departmentId, isAdmin, agentHref }: Props) {
  return (
    <PanelBoundary key={departmentId} frame={(error) => <RosterFrame>{error}</RosterFrame>}>
      <LiveRoster departmentId={departmentId} isAdmin={isAdmin} agentHref={agentHref} />
    </PanelBoundary>
  );
}

function LiveRoster({ departmentId, isAdmin, agentHref }: Props) {
  const agents = useQuery(api.agents.list, { departmentId });
  const unreadRows = useQuery(api.inbox.agentUnread, { departmentId });
  const unread = useMemo(() => new Map((unreadRows ?? []).map((row) => [row.sessionKey, row])), [unreadRows]);
  const waitingItems = useWaiting(departmentId);
  const waiting = useMemo(() => waitingByAgent(waitingItems), [waitingItems]);
  const [editing, setEditing] = useState<Editing>(null);
  const close = () => setEditing(null);
  const editedAgent = editing?.mode === "edit" ? agents?.find((a) => a._id === editing.agentId) : undefined;

  return (
    <>
      <RosterList
        agents={agents}
        isAdmin={isAdmin}
        agentHref={agentHref}
        unread={unread}
        waiting={waiting}
        onNew={() => setEditing({ mode: "create" })}
        onAddA2a={() => setEditing({ mode: "a2a" })}
        onEdit={(agent) => setEditing({ mode: "edit", agentId: agent._id })}
        specialists={<AddSpecialists departmentId={departmentId} />}
      />
      {isAdmin && editing?.mode === "create" && <CreateAgentModal departmentId={departmentId} onClose={close} />}
      {isAdmin && editing?.mode === "a2a" && <AddA2aAgentModal departmentId={departmentId} onClose={close} />}
      {isAdmin && editedAgent && <CreateAgentModal departmentId={departmentId} agent={editedAgent} onClose={close} />}
    </>
  );
}

/** "Add the demo specialists": Dev Bot, Writer and Archie join a squad that has only its lead, in one click. */
function AddSpecialists({ departmentId }: { departmentId: Id<"departments"> }) {
  const add = useMutation(api.agents.addDemoSpecialists);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const onClick = () => {
    setPending(true);
    setFailure(null);
    add({ departmentId })
      .catch((error: unknown) => setFailure(userMessage(error)))
      .finally(() => setPending(false));
  };
  return (
    <div data-testid="add-specialists" className="flex flex-col items-start gap-2 border-t border-slate-100 px-4 py-3 dark:border-slate-800">
      <p className="text-xs text-slate-600 dark:text-slate-300">The lead delegates to specialists. Start with the demo ones: Dev Bot (engineer), Writer (copy) and Archie (architect).</p>
      <Button variant="secondary" onClick={onClick} disabled={pending} className="px-2 py-1 text-xs">
        {pending ? "Adding…" : "Add the demo specialists"}
      </Button>
      {failure !== null && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-300">
          {failure}
        </p>
      )}
    </div>
  );
}
