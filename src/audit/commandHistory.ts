// How a recorded slash command reads in the history: where it was typed and what came of it.
import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";
import { BADGE_TONES } from "../components/ui/Badge";

export type CommandRecord = FunctionReturnType<typeof api.slashCommands.listCommandEvents>["page"][number];

/** Which records the history shows: the whole department's, or #maestro's alone. */
export type CommandScope = "department" | "chat";

export const COMMAND_SCOPE_OPTIONS: ReadonlyArray<{ value: CommandScope; label: string }> = [
  { value: "department", label: "Everywhere" },
  { value: "chat", label: "#maestro only" },
];

/** Where it was typed: the task's title, a task since deleted, or #maestro. */
export function commandPlace(record: Pick<CommandRecord, "taskId" | "taskTitle">): string {
  if (record.taskId === undefined) return "#maestro";
  return record.taskTitle ?? "a deleted task";
}

/** The outcome's badge, and the failure's reason when it failed. */
export function commandOutcome(payload: CommandRecord["payload"]): { label: string; className: string; detail?: string } {
  if (payload.type === "slash_command_failed") return { label: "Failed", className: BADGE_TONES.failure, detail: payload.error };
  return { label: "Done", className: BADGE_TONES.success };
}
