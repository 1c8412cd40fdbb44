import { BoardColumn } from "./BoardColumn";
import { STATUS_OPTIONS } from "./options";
import { Roster } from "./Roster";
import type { BoardColumnData, RosterAgent } from "./types";

type Props = { columns: BoardColumnData[]; agents: RosterAgent[] };

/**
 * The board as pure props: columns in `STATUS_OPTIONS` order (a status the
 * query left out shows as empty) beside the roster. Wide screens keep both in
 * the viewport and scroll inside; narrow ones stack the roster underneath.
 */
export function BoardView({ columns, agents }: Props) {
  const agentsByKey = new Map(agents.map((agent) => [agent.sessionKey, agent]));
  const byStatus = new Map(columns.map((column) => [column.status, column]));

  return (
    <div className="flex min-h-0 flex-1 flex-col gap-4 lg:flex-row">
      <div data-testid="board" className="flex min-h-0 min-w-0 items-start gap-3 overflow-x-auto pb-2 lg:h-full lg:flex-1">
        {STATUS_OPTIONS.map((status) => {
          const column = byStatus.get(status.value);
          return (
            <BoardColumn
              key={status.value}
              status={status}
              tasks={column?.tasks ?? []}
              truncated={column?.truncated ?? false}
              agentsByKey={agentsByKey}
            />
          );
        })}
      </div>
      <Roster agents={agents} />
    </div>
  );
}
