import { useMutation, useQuery } from "convex/react";
import { useMemo } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { SlashPreview } from "./SlashPreview";
import type { SlashSupport } from "./slash";

/**
 * Slash commands for a composer in a task's thread (`taskId`), a channel or
 * DM (`channelId`), or #maestro; `departmentId` undefined while it loads.
 * The list holds only the commands that run where the composer is.
 */
export function useSlashSupport(departmentId: Id<"departments"> | undefined, taskId?: Id<"tasks">, channelId?: Id<"channels">): SlashSupport {
  const list = useQuery(api.slashCommands.getSlashCommands, departmentId === undefined ? "skip" : { departmentId });
  const resolve = useMutation(api.slashCommands.resolveSlashCommand);
  const place = taskId !== undefined ? "task" : channelId !== undefined ? "channel" : "chat";
  const commands = useMemo(() => list?.commands.filter((command) => command.places.includes(place)), [list?.commands, place]);
  return useMemo(
    () => ({
      commands,
      agents: list?.agents,
      run: async (text: string) => {
        if (departmentId === undefined) return { ok: false as const, error: "Still loading; try again in a moment." };
        return await resolve({ departmentId, text, ...(taskId === undefined ? {} : { taskId }), ...(channelId === undefined ? {} : { channelId }) });
      },
      renderPreview: (text: string) => (departmentId === undefined ? null : <SlashPreview departmentId={departmentId} taskId={taskId} channelId={channelId} text={text} />),
    }),
    [commands, list?.agents, resolve, departmentId, taskId, channelId],
  );
}
