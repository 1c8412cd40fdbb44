import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";

/** Shapes the board renders, derived from the queries so they can't drift. */
export type BoardColumnData = FunctionReturnType<typeof api.tasks.list>[number];
export type TaskCardData = BoardColumnData["tasks"][number];
export type RosterAgent = FunctionReturnType<typeof api.agents.list>[number];
export type TaskStatus = BoardColumnData["status"];
export type Priority = TaskCardData["priority"];
export type AgentStatus = RosterAgent["status"];
