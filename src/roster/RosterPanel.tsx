import { useQuery } from "convex/react";
import { useMemo, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { PanelBoundary } from "../components/ErrorBoundary";
import { useWaiting, waitingByAgent } from "../shell/waiting";
import { CreateAgentModal } from "./CreateAgentModal";
import { RosterFrame, RosterList } from "./RosterList";

type Props = {
  departmentId: Id<"departments">;
  isAdmin: boolean;
  /** Where an agent's name links to (its page). */
  agentHref?: (agentSlug: string) => string;
};

/** Which agent modal is open: none, a new agent, or editing one (by id, so it shows the live agent). */
type Editing = null | { mode: "create" } | { mode: "edit"; agentId: Id<"agents"> };

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
        onEdit={(agent) => setEditing({ mode: "edit", agentId: agent._id })}
      />
      {isAdmin && editing?.mode === "create" && <CreateAgentModal departmentId={departmentId} onClose={close} />}
      {isAdmin && editedAgent && <CreateAgentModal departmentId={departmentId} agent={editedAgent} onClose={close} />}
    </>
  );
}
