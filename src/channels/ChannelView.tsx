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
import { ThreadPanel } from "./ThreadPanel";

const PAGE = 30;

/**
 * One channel or DM: its header (topic, follow, archive), the messages oldest
 * at the top with older pages on demand, a thread beside it, a composer.
 * What is on screen is marked read, so badges clear as you look.
 */
export function ChannelView({ channelId, title, unread = 0 }: { channelId: Id<"channels">; title: string; unread?: number }) {
  const channel = useQuery(api.channels.get, { channelId });
  const { results, status, loadMore } = usePaginatedQuery(api.channelMessages.history, { channelId }, { initialNumItems: PAGE });
  const post = useMutation(api.channelMessages.post);
  const markRead = useMutation(api.inbox.markRead);
  const setSubscribed = useMutation(api.channels.setSubscribed);
  const setArchived = useMutation(api.channels.setArchived);
  const writable = canWrite(useRole());
  const now = useNow(60_000);
  const [thread, setThread] = useState<Id<"channelMessages"> | null>(null);
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
  useEffect(() => setThread(null), [channelId]);

  const act = (work: Promise<unknown>) => {
    setFailure(null);
    work.catch((error: unknown) => setFailure(userMessage(error)));
  };

  return (
    <div className="flex min-h-0 flex-1">
      <section data-testid="channel-view" aria-label={title} className="flex min-h-0 min-w-0 flex-1 flex-col">
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
            [...results].reverse().map((m) => <MessageItem key={m._id} message={m} now={now} onOpenThread={channel?.kind === "dm" ? undefined : () => setThread(m._id)} />)
          )}
          <div ref={bottom} />
        </div>
        {writable && !channel?.archived ? (
          <MessageComposer
            placeholder={`Message ${title}`}
            maxChars={LIMITS.messageChars}
            channelId={channelId}
          onSend={({ body, importance, blocking, files, clientMessageId }) => post({ channelId, body, importance, blocking, artifacts: files, clientMessageId })}
          />
        ) : (
          <p className="border-t border-slate-100 px-4 py-3 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">{channel?.archived ? "This channel is archived." : VIEWER_NOTE}</p>
        )}
      </section>
      {thread !== null && <ThreadPanel channelId={channelId} messageId={thread} onClose={() => setThread(null)} writable={writable && !channel?.archived} />}
    </div>
  );
}
