import { useMutation, useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { api } from "../../convex/_generated/api";
import { ChangeableMessage } from "../components/MessageChanges";
import { Avatar } from "../components/ui/Avatar";
import { Badge } from "../components/ui/Badge";
import { Markdown } from "../components/ui/Markdown";
import { LoadingStatus, Skeleton } from "../components/ui/Skeleton";
import { ThreadIcon } from "../components/ui/icons";
import { initials } from "../board/initials";
import { cn } from "../lib/cn";
import { RelativeTime } from "../components/ui/RelativeTime";
import { LoadMore } from "../components/ui/LoadMore";
import { FileChips } from "../channels/FileArtifacts";
import { TaskChips } from "../composer/TaskChips";
import { taskLinkArtifacts, type TaskOption } from "../composer/taskLinks";

export type ThreadMessage = FunctionReturnType<typeof api.messages.list>["page"][number];

/** Mirrors `usePaginatedQuery`'s status. */
export type ThreadStatus = "LoadingFirstPage" | "CanLoadMore" | "LoadingMore" | "Exhausted";

type Props = {
  /** Oldest first. */
  messages: readonly ThreadMessage[];
  status: ThreadStatus;
  onLoadEarlier: () => void;
  /** The time relative times are measured from. */
  now: number;
  /** Each person's role in the department, by user id: a post is badged with it (an owner's says "Owner"). */
  roles?: ReadonlyMap<string, string>;
  /** Titles of the tasks messages link with `#` (useLinkedTasks); undefined while they load. */
  linkedTasks?: ReadonlyMap<string, TaskOption>;
};

/** A task's thread, oldest message first, with a "Load earlier" button when there is more. */
export function Thread({ messages, status, onLoadEarlier, now, roles, linkedTasks }: Props) {
  if (status === "LoadingFirstPage") {
    return (
      <LoadingStatus label="Loading the thread…" className="flex flex-col gap-4 py-2">
        {[0, 1, 2].map((i) => (
          <div key={i} className="flex gap-3">
            <Skeleton className="size-8 shrink-0 rounded-full" />
            <div className="flex flex-1 flex-col gap-2">
              <Skeleton className="h-3 w-32" />
              <Skeleton className={cn("h-10", i === 1 ? "w-2/3" : "w-full")} />
            </div>
          </div>
        ))}
      </LoadingStatus>
    );
  }

  return (
    <div className="flex flex-col gap-4">
      <LoadMore status={status} onLoadMore={onLoadEarlier} label="Load earlier messages" variant="secondary" className="py-1 text-xs" rowClassName="flex justify-center" />
      {messages.length === 0 ? (
        <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center dark:border-slate-600">
          <ThreadIcon className="size-6 text-slate-400" />
          <p className="text-sm font-medium text-slate-700 dark:text-slate-200">No messages yet</p>
          <p className="max-w-xs text-xs text-slate-500 dark:text-slate-400">Start the thread below. @mention an agent to wake it up and put it on this task.</p>
        </div>
      ) : (
        <ol aria-label="Messages" className="flex flex-col gap-4">
          {messages.map((message) => (
            <MessageItem key={message._id} message={message} now={now} roles={roles} linkedTasks={linkedTasks} />
          ))}
        </ol>
      )}
    </div>
  );
}

/** "owner" → "Owner": a person's badge. Someone no longer in the department is still a person who posted. */
function roleBadge(role: string | undefined): string {
  return role === undefined ? "Person" : `${role[0].toUpperCase()}${role.slice(1)}`;
}

function MessageItem({ message, now, roles, linkedTasks }: { message: ThreadMessage; now: number; roles?: ReadonlyMap<string, string>; linkedTasks?: ReadonlyMap<string, TaskOption> }) {
  const { author } = message;
  const edit = useMutation(api.messages.edit);
  const remove = useMutation(api.messages.remove);
  const time = <RelativeTime at={message._creationTime} now={now} className="text-xs text-slate-500 dark:text-slate-400" />;

  if (author.kind === "system") {
    return (
      <li data-testid="message" data-author-kind="system" className="flex flex-col items-center gap-1 px-6 text-center">
        <div className="flex items-center gap-2 text-xs text-slate-500 dark:text-slate-400">
          <span className="font-medium text-slate-600 dark:text-slate-300">Maestro</span>
          {time}
        </div>
        <Markdown className="text-xs text-slate-600 italic dark:text-slate-300">{message.content}</Markdown>
      </li>
    );
  }

  const isAgent = author.kind === "agent";
  return (
    <li data-testid="message" data-author-kind={author.kind} className="flex gap-3">
      <Avatar
        initials={initials(author.name)}
        label={`${author.name}${isAgent ? " (agent)" : ""}`}
        tone={isAgent ? "agent" : "member"}
        className="size-8 text-xs"
      />
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-0.5">
          <span className="text-sm font-semibold text-slate-900 dark:text-slate-100">{author.name}</span>
          <Badge className={isAgent ? "bg-indigo-50 text-indigo-700 ring-indigo-600/20 dark:bg-indigo-950/40 dark:text-indigo-300 dark:ring-indigo-400/30" : "bg-emerald-50 text-emerald-700 ring-emerald-600/20 dark:bg-emerald-950/40 dark:text-emerald-300 dark:ring-emerald-400/30"}>
            {author.kind === "agent" ? "Agent" : roleBadge(roles?.get(author.userId))}
          </Badge>
          {time}
        </div>
        <ChangeableMessage
          author={author}
          text={message.content}
          editedAt={message.editedAt}
          deletedAt={message.deletedAt}
          onEdit={(content) => edit({ taskId: message.taskId, messageId: message._id, content })}
          onDelete={() => remove({ taskId: message.taskId, messageId: message._id })}
        >
          {/* A message of files only has no text bubble. */}
          {message.content !== "" && (
            <div data-testid="message-text" className={cn("mt-1 rounded-lg rounded-tl-none px-3 py-2", isAgent ? "bg-indigo-50/60 ring-1 ring-indigo-100 dark:bg-indigo-950/40 dark:ring-indigo-800" : "bg-slate-50 ring-1 ring-slate-200 dark:bg-slate-800/60 dark:ring-slate-700")}>
              <Markdown mentions={message.mentions.map((mention) => mention.name)}>{message.content}</Markdown>
            </div>
          )}
        </ChangeableMessage>
        <TaskChips artifacts={taskLinkArtifacts(message.taskLinks)} known={linkedTasks} />
        {message.files !== undefined && message.files.length > 0 && <MessageFiles message={message} files={message.files} />}
      </div>
    </li>
  );
}

/** A thread message's files as download links; the URLs come from the server only for those who can read the task. */
function MessageFiles({ message, files }: { message: ThreadMessage; files: NonNullable<ThreadMessage["files"]> }) {
  const urls = useQuery(api.taskFiles.urls, { taskId: message.taskId, messageId: message._id });
  return <FileChips files={files} urls={urls} />;
}
