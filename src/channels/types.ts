import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";

export type ChannelSummary = FunctionReturnType<typeof api.channels.list>[number];
export type ChannelMessage = FunctionReturnType<typeof api.channelMessages.history>["page"][number];
export type Importance = ChannelMessage["importance"];

export const IMPORTANCE_OPTIONS: ReadonlyArray<{ value: Importance; label: string }> = [
  { value: "normal", label: "Normal" },
  { value: "high", label: "High" },
  { value: "critical", label: "Critical" },
];

/** What a badge shows: exact up to 99, then "99+". */
export function unreadLabel(count: number): string {
  return count > 99 ? "99+" : String(count);
}

export function authorName(from: ChannelMessage["from"]): string {
  return from.kind === "system" ? "Maestro" : from.name;
}
