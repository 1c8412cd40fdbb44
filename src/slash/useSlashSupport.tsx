import { useMutation, useQuery } from "convex/react";
import { useMemo } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { SlashPreview } from "./SlashPreview";
import type { SlashSupport } from "./slash";

/** Slash commands for a composer in a task's thread (`taskId`) or in #maestro; `departmentId` undefined while it loads. */
export function useSlashSupport(departmentId: Id<"departments"> | undefined, taskId?: Id<"tasks">): SlashSupport {
  const list = useQuery(api.slashCommands.getSlashCommands, departmentId === undefined ? "skip" : { departmentId });
  const resolve = useMutation(api.slashCommands.resolveSlashCommand);
  return useMemo(
    () => ({
      commands: list?.commands,
      agents: list?.agents,
      run: async (text: string) => {
        if (departmentId === undefined) return { ok: false as const, error: "Still loading; try again in a moment." };
        return await resolve({ departmentId, text, ...(taskId === undefined ? {} : { taskId }) });
      },
      renderPreview: (text: string) => (departmentId === undefined ? null : <SlashPreview departmentId={departmentId} taskId={taskId} text={text} />),
    }),
    [list?.commands, list?.agents, resolve, departmentId, taskId],
  );
}
