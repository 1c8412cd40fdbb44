import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { createContext, useContext, useMemo } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { WAITING_LABEL } from "../../convex/lib/waiting";

/** One approval, question or plan waiting for a person: who asks for what, on which task. */
export type WaitingItem = FunctionReturnType<typeof api.pauses.listWaiting>["items"][number];

export { WAITING_LABEL };

/** The department's waiting work, live (`undefined` while loading). The board, the bell and the roster share the one subscription. */
export function useWaiting(departmentId: Id<"departments">): WaitingItem[] | undefined {
  return useQuery(api.pauses.listWaiting, { departmentId })?.items;
}

/** Each task's oldest waiting item (a card shows one badge). */
export function waitingByTask(items: readonly WaitingItem[] | undefined): ReadonlyMap<string, WaitingItem> {
  const byTask = new Map<string, WaitingItem>();
  for (const item of items ?? []) if (!byTask.has(item.taskId)) byTask.set(item.taskId, item);
  return byTask;
}

/** Each agent's waiting items, oldest first. */
export function waitingByAgent(items: readonly WaitingItem[] | undefined): ReadonlyMap<string, WaitingItem[]> {
  const byAgent = new Map<string, WaitingItem[]>();
  for (const item of items ?? []) byAgent.set(item.agentId, [...(byAgent.get(item.agentId) ?? []), item]);
  return byAgent;
}

/** The sentence for one item: "Writer asks to run send_email (“press@…”)". */
export function waitingSentence(item: Pick<WaitingItem, "agentName" | "ask">): string {
  return `${item.agentName} ${item.ask}`;
}

/** Waiting items by task, for the board's cards (provided by the board, read by each card). */
export const WaitingTasksContext = createContext<ReadonlyMap<string, WaitingItem>>(new Map());

/** The waiting item of one task's card, if any. */
export function useTaskWaiting(taskId: string): WaitingItem | undefined {
  return useContext(WaitingTasksContext).get(taskId);
}

/** The board's map of waiting items, memoised on the query's result. */
export function useWaitingTasks(departmentId: Id<"departments">): ReadonlyMap<string, WaitingItem> {
  const items = useWaiting(departmentId);
  return useMemo(() => waitingByTask(items), [items]);
}
