// How a recorded slash command reads in the history: where it was typed and what came of it.
import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { BADGE_TONES } from "../components/ui/Badge";

export type CommandRecord = FunctionReturnType<typeof api.slashCommands.listCommandEvents>["page"][number];

/** Which records the history shows: the whole department's, #maestro's alone, or one channel's (`channel:<id>`). */
export type CommandScope = "department" | "chat" | `channel:${string}`;

/** The places the history filters by: everywhere, #maestro, and each channel the caller reads, by name. */
export function commandScopeOptions(channels: ReadonlyArray<{ _id: string; kind: "channel" | "dm"; name: string }>): Array<{ value: CommandScope; label: string }> {
  return [
    { value: "department", label: "Everywhere" },
    { value: "chat", label: "#maestro only" },
    ...channels
      .filter((c) => c.kind === "channel")
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((c) => ({ value: `channel:${c._id}` as const, label: `#${c.name} only` })),
  ];
}

/** `listCommandEvents`' arguments for a scope. */
export function commandScopeArgs(scope: CommandScope): { scope: "department" | "chat" } | { channelId: Id<"channels"> } {
  return scope.startsWith("channel:") ? { channelId: scope.slice("channel:".length) as Id<"channels"> } : { scope: scope as "department" | "chat" };
}

/** Where it was typed: the task's title (or a task since deleted), the channel's name (or a channel since deleted), or #maestro. */
export function commandPlace(record: Pick<CommandRecord, "taskId" | "taskTitle" | "channelId" | "channelName">): string {
  if (record.taskId !== undefined) return record.taskTitle ?? "a deleted task";
  if (record.channelId !== undefined) return record.channelName ?? "a deleted channel";
  return "#maestro";
}

/** The outcome's badge, and the failure's reason when it failed. */
export function commandOutcome(payload: CommandRecord["payload"]): { label: string; className: string; detail?: string } {
  if (payload.type === "slash_command_failed") return { label: "Failed", className: BADGE_TONES.failure, detail: payload.error };
  return { label: "Done", className: BADGE_TONES.success };
}
