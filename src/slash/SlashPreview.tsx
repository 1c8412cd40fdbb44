import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";

export type SlashPreviewResult = FunctionReturnType<typeof api.slashCommands.previewSlashCommand>;

/** What sending the typed command would do, or why it cannot be sent. */
export function SlashPreviewView({ preview }: { preview: SlashPreviewResult | undefined }) {
  if (preview === undefined) {
    return <p className="text-xs text-slate-500 dark:text-slate-400">Checking the command…</p>;
  }
  if (!preview.ok) {
    return (
      <p role="alert" data-testid="slash-error" className="rounded-md bg-rose-50 px-2 py-1.5 text-xs text-rose-800 ring-1 ring-rose-200 ring-inset dark:bg-rose-950/40 dark:text-rose-300 dark:ring-rose-800">
        {preview.error}
      </p>
    );
  }
  return (
    <div data-testid="slash-preview" className="rounded-md bg-slate-50 px-2 py-1.5 text-xs text-slate-700 ring-1 ring-slate-200 ring-inset dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-700">
      <p className="font-medium text-slate-500 dark:text-slate-400">
        {preview.kind === "prompt" ? `Preview · sends to ${preview.target ?? "the thread"}` : "Preview · runs"}
      </p>
      <p className="max-h-32 overflow-y-auto whitespace-pre-wrap break-words font-mono">{preview.text}</p>
    </div>
  );
}

/** The live preview: slashCommands.previewSlashCommand as you type. */
export function SlashPreview({ departmentId, taskId, channelId, text }: { departmentId: Id<"departments">; taskId?: Id<"tasks">; channelId?: Id<"channels">; text: string }) {
  const preview = useQuery(api.slashCommands.previewSlashCommand, { departmentId, text, ...(taskId === undefined ? {} : { taskId }), ...(channelId === undefined ? {} : { channelId }) });
  return <SlashPreviewView preview={preview} />;
}
