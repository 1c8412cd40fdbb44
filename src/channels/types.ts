import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { Artifact } from "../../convex/validators";

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

/** A post's artifacts: its files, then the tasks its text links with `#`. */
export function withTaskLinks(files: readonly Artifact[], links: ReadonlyArray<Id<"tasks">> | undefined): Artifact[] {
  return [...files, ...(links ?? []).map((taskId) => ({ kind: "task" as const, taskId }))];
}
