import { useMutation } from "convex/react";
import { api } from "../../convex/_generated/api";
import { ChangeableMessage } from "../components/MessageChanges";
import { Avatar } from "../components/ui/Avatar";
import { Markdown } from "../components/ui/Markdown";
import { initials } from "../board/initials";
import { cn } from "../lib/cn";
import { TaskChips } from "../composer/TaskChips";
import type { TaskOption } from "../composer/taskLinks";
import { FileArtifacts } from "./FileArtifacts";
import { authorName, type ChannelMessage } from "./types";
import { RelativeTime } from "../components/ui/RelativeTime";

type Props = {
  message: ChannelMessage;
  now: number;
  onOpenThread?: () => void;
  /** Titles of the tasks messages link (useLinkedTasks); undefined while they load. */
  linkedTasks?: ReadonlyMap<string, TaskOption>;
};

/** One message: who, when, importance, the markdown body, its artifacts and its thread. */
export function MessageItem({ message, now, onOpenThread, linkedTasks }: Props) {
  const name = authorName(message.from);
  const edit = useMutation(api.channelMessages.edit);
  const remove = useMutation(api.channelMessages.remove);
  const files = message.artifacts.filter((a) => a.kind === "file");
  const links = message.artifacts.filter((a) => a.kind === "link");
  return (
    <article data-testid="channel-message" className="flex gap-3 px-3 py-2">
      <Avatar initials={initials(name)} tone={message.from.kind === "member" ? "member" : message.from.kind === "agent" ? "agent" : "muted"} className="size-8 shrink-0" />
      <div className="min-w-0 flex-1">
        <header className="flex flex-wrap items-baseline gap-2">
          <span className="text-sm font-semibold text-slate-900 dark:text-slate-100">{name}</span>
          <RelativeTime at={message._creationTime} now={now} className="text-xs text-slate-500 dark:text-slate-400" />
          {message.importance !== "normal" && (
            <span
              data-testid="importance"
              className={cn(
                "rounded px-1.5 text-xs font-medium",
                message.importance === "critical" ? "bg-rose-100 text-rose-800 dark:bg-rose-900/40 dark:text-rose-300" : "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-300",
              )}
            >
              {message.importance}
            </span>
          )}
          {message.blocking && <span className="rounded bg-slate-800 px-1.5 text-xs font-medium text-white">blocking</span>}
        </header>
        <ChangeableMessage
          author={message.from}
          text={message.body}
          editedAt={message.editedAt}
          deletedAt={message.deletedAt}
          onEdit={(body) => edit({ channelId: message.channelId, messageId: message._id, body })}
          onDelete={() => remove({ channelId: message.channelId, messageId: message._id })}
        >
          <Markdown className="text-sm text-slate-800 dark:text-slate-100" mentions={message.mentions.map((m) => m.name)}>
            {message.body}
          </Markdown>
        </ChangeableMessage>
        {links.length > 0 && (
          <ul className="mt-1 flex flex-wrap gap-2 text-xs">
            {links.map((a, i) => (
              <li key={i}>
                <a href={a.url} target="_blank" rel="noreferrer noopener" className="text-indigo-700 underline dark:text-indigo-300">
                  {a.title ?? a.url}
                </a>
              </li>
            ))}
          </ul>
        )}
        <TaskChips artifacts={message.artifacts} known={linkedTasks} />
        {files.length > 0 && <FileArtifacts channelId={message.channelId} messageId={message._id} files={files} />}
        {onOpenThread && (
          <button type="button" onClick={onOpenThread} className="mt-1 text-xs font-medium text-indigo-700 hover:underline dark:text-indigo-300">
            {message.replyCount === 0 ? "Reply in thread" : `${message.replyCount} ${message.replyCount === 1 ? "reply" : "replies"}`}
          </button>
        )}
      </div>
    </article>
  );
}
