import { useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { BoardSkeleton } from "./BoardSkeleton";
import { BoardView } from "./BoardView";

/** The live board for one department. Errors propagate to the enclosing error boundary. */
export function Board({ departmentId }: { departmentId: Id<"departments"> }) {
  const columns = useQuery(api.tasks.list, { departmentId });
  const agents = useQuery(api.agents.list, { departmentId });
  if (columns === undefined || agents === undefined) return <BoardSkeleton />;
  return <BoardView columns={columns} agents={agents} />;
}
