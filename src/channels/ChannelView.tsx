import { useMutation, usePaginatedQuery, useQuery } from "convex/react";
import { useEffect, useRef, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { LIMITS } from "../../convex/lib/limits";
import { Button } from "../components/ui/Button";
import { Skeleton } from "../components/ui/Skeleton";
import { userMessage } from "../lib/errors";
import { canWrite, useRole, VIEWER_NOTE } from "../shell/role";
import { useNow } from "../lib/relativeTime";
import { ChannelDetailsButton } from "./ChannelDetails";
import { MessageComposer } from "./MessageComposer";
import { MessageItem } from "./MessageItem";
import { withTaskLinks } from "./types";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { useMentionCandidates } from "../composer/candidates";
import { useLinkedTasks } from "../composer/TaskChips";
import { useTaskLinkSupport } from "../composer/useCompletions";
import { cn } from "../lib/cn";
import { useSlashSupport } from "../slash/useSlashSupport";
import { ThreadPanel } from "./ThreadPanel";

const PAGE = 30;

/**
 * One channel or DM: its header (topic, follow, archive), the messages oldest
 * at the top with older pages on demand, a thread beside it, a composer.
 * What is on screen is marked read, so badges clear as you look.
 */
type Props = {
  departmentId: Id<"departments">;
  channelId: Id<"channels">;
  title: string;
  unread?: number;
  /** The open thread, when a route drives it (with `onThread`); kept here otherwise. */
  thread?: Id<"channelMessages"> | null;
  onThread?: (id: Id<"channelMessages"> | null) => void;
};

export function ChannelView({ departmentId, channelId, title, unread = 0, thread: routedThread, onThread }: Props) {
  const channel = useQuery(api.channels.get, { channelId });
  const { results, status, loadMore } = usePaginatedQuery(api.channelMessages.history, { channelId }, { initialNumItems: PAGE });
  const post = useMutation(api.channelMessages.post);
  const markRead = useMutation(api.inbox.markRead);
  const setSubscribed = useMutation(api.channels.setSubscribed);
  const setArchived = useMutation(api.channels.setArchived);
  const writable = canWrite(useRole());
  const now = useNow(60_000);
  const [ownThread, setOwnThread] = useState<Id<"channelMessages"> | null>(null);
  const thread = onThread === undefined ? ownThread : (routedThread ?? null);
  const setThread = onThread ?? setOwnThread;
  const candidates = useMentionCandidates(departmentId);
  const tasks = useTaskLinkSupport(departmentId);
  const slash = useSlashSupport(departmentId, undefined, channelId);
  const linkedTasks = useLinkedTasks(departmentId, results);
  const [failure, setFailure] = useState<string | null>(null);
  const bottom = useRef<HTMLDivElement>(null);
  const newest = results[0]?._id;

  useEffect(() => {
    if (newest === undefined) return;
    bottom.current?.scrollIntoView?.({ block: "end" });
  }, [channelId, newest]);
  // Whatever arrives while the conversation is open (a post, a reply in one of its threads) is read at once,
  // so its badge clears as you read rather than staying until you leave and come back.
  const hasUnread = unread > 0;
  useEffect(() => {
    if (newest === undefined) return;
    markRead({ channelId }).catch(() => undefined); // a badge that stays is the only cost
  }, [channelId, newest, hasUnread, markRead]);
  useEffect(() => setOwnThread(null), [channelId]);

  const act = (work: Promise<unknown>) => {
    setFailure(null);
    work.catch((error: unknown) => setFailure(userMessage(error)));
  };

  return (
    <div className="flex min-h-0 flex-1">
      {/* On a phone an open thread takes the whole width; the channel is Back (or Close) away. */}
      <section data-testid="channel-view" aria-label={title} className={cn("min-h-0 min-w-0 flex-1 flex-col", thread === null ? "flex" : "hidden md:flex")}>
        <header className="flex flex-wrap items-center gap-2 border-b border-slate-100 px-3 py-2 dark:border-slate-800">
          <h2 className="text-sm font-semibold text-slate-900 dark:text-slate-100">{title}</h2>
          {channel?.topic && <p className="truncate text-xs text-slate-500 dark:text-slate-400">{channel.topic}</p>}
          {channel?.archived && <span className="rounded bg-slate-100 px-1.5 text-xs text-slate-600 dark:bg-slate-800 dark:text-slate-300">archived</span>}
          <div className="ml-auto flex gap-2">
            {channel?.kind === "channel" && <ChannelDetailsButton channel={channel} title={title} />}
            {channel?.kind === "channel" && (
              <Button variant="secondary" onClick={() => act(setSubscribed({ channelId, subscribed: !channel.viewerSubscribed }))}>
                {channel.viewerSubscribed ? "Unfollow" : "Follow"}
              </Button>
            )}
            {channel?.canManage && (
              <Button variant="secondary" onClick={() => act(setArchived({ channelId, archived: !channel.archived }))}>
                {channel.archived ? "Unarchive" : "Archive"}
              </Button>
            )}
          </div>
        </header>
        {failure && (
          <p role="alert" className="bg-rose-50 px-3 py-1 text-xs text-rose-800 dark:bg-rose-950/40 dark:text-rose-300">
            {failure}
          </p>
        )}
        <div className="min-h-0 flex-1 overflow-y-auto" data-testid="channel-messages">
          {status === "CanLoadMore" && (
            <button type="button" onClick={() => loadMore(PAGE)} className="w-full py-2 text-xs text-indigo-700 hover:underline dark:text-indigo-300">
              Load older messages
            </button>
          )}
          {status === "LoadingFirstPage" ? (
            <div className="flex flex-col gap-2 p-3">
              <Skeleton className="h-10" />
              <Skeleton className="h-10" />
            </div>
          ) : results.length === 0 ? (
            <p className="p-6 text-center text-sm text-slate-500 dark:text-slate-400">No messages yet. Say hello.</p>
          ) : (
            [...results].reverse().map((m) => (
              <MessageItem key={m._id} message={m} now={now} linkedTasks={linkedTasks} onOpenThread={channel?.kind === "dm" ? undefined : () => setThread(m._id)} />
            ))
          )}
          <div ref={bottom} />
        </div>
        {writable && !channel?.archived ? (
          <MessageComposer
            placeholder={`Message ${title}`}
            maxChars={LIMITS.messageChars}
            channelId={channelId}
            candidates={candidates}
            tasks={tasks}
            slash={slash}
            onSend={({ body, importance, blocking, files, links, clientMessageId }) => post({ channelId, body, importance, blocking, artifacts: withTaskLinks(files, links), clientMessageId })}
          />
        ) : (
          <p className="border-t border-slate-100 px-4 py-3 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">{channel?.archived ? "This channel is archived." : VIEWER_NOTE}</p>
        )}
      </section>
      {thread !== null && (
        <ErrorBoundary key={thread} fallback={() => <ThreadNotFound onClose={() => setThread(null)} />}>
          <ThreadPanel
            departmentId={departmentId}
            channelId={channelId}
            messageId={thread}
            onClose={() => setThread(null)}
            writable={writable && !channel?.archived}
            candidates={candidates}
            tasks={tasks}
          />
        </ErrorBoundary>
      )}
    </div>
  );
}

/** In the thread's place when its address names no thread of this conversation (another's, a typo, deleted). */
function ThreadNotFound({ onClose }: { onClose: () => void }) {
  return (
    <aside data-testid="thread-not-found" aria-label="Thread" className="flex w-full shrink-0 flex-col gap-3 border-l border-slate-100 p-4 md:w-80 dark:border-slate-800">
      <p role="alert" className="text-sm font-medium text-slate-800 dark:text-slate-100">
        Thread not found
      </p>
      <p className="text-xs text-slate-600 dark:text-slate-300">There is no such thread in this conversation. The link may be wrong, or its first message deleted.</p>
      <Button variant="secondary" onClick={onClose} className="self-start">
        Back to the conversation
      </Button>
    </aside>
  );
}
