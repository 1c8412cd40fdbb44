import { useMutation, useQuery } from "convex/react";
import { useEffect } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { LIMITS } from "../../convex/lib/limits";
import { CloseIcon } from "../components/ui/icons";
import { Skeleton } from "../components/ui/Skeleton";
import { useNow } from "../lib/relativeTime";
import { MessageComposer } from "./MessageComposer";
import { MessageItem } from "./MessageItem";
import { withTaskLinks } from "./types";
import { useLinkedTasks } from "../composer/TaskChips";
import type { TaskLinkSupport } from "../composer/useCompletions";
import type { MentionCandidate } from "../task/mentions";

type Props = {
  /** For the titles of linked tasks. */
  departmentId?: Id<"departments">;
  channelId: Id<"channels">;
  messageId: Id<"channelMessages">;
  onClose: () => void;
  writable: boolean;
  /** Who `@` completes in the reply box. */
  candidates?: readonly MentionCandidate[];
  /** What `#` completes in the reply box. */
  tasks?: TaskLinkSupport;
};

/** A thread beside its channel: the first message, its replies oldest first, and a reply box. What it shows is marked read. */
export function ThreadPanel({ departmentId, channelId, messageId, onClose, writable, candidates, tasks }: Props) {
  const thread = useQuery(api.channelMessages.thread, { channelId, messageId });
  const linkedTasks = useLinkedTasks(departmentId, thread === undefined ? [] : [thread.root, ...thread.replies]);
  const reply = useMutation(api.channelMessages.reply);
  const markRead = useMutation(api.inbox.markRead);
  const newest = thread?.replies.at(-1)?._id;

  useEffect(() => {
    if (newest === undefined || thread === undefined) return;
    const shown = [thread.root._id, ...thread.replies.map((m) => m._id)];
    markRead({ channelId, messageIds: shown }).catch(() => undefined); // a badge that stays is the only cost
    // Only a new reply needs marking again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [channelId, newest, markRead]);
  const now = useNow(60_000);
  return (
    <aside data-testid="thread-panel" aria-label="Thread" className="flex w-full shrink-0 flex-col border-l border-slate-100 md:w-80 dark:border-slate-800">
      <header className="flex items-center border-b border-slate-100 px-3 py-2 dark:border-slate-800">
        <h3 className="text-sm font-semibold text-slate-900 dark:text-slate-100">Thread</h3>
        <button type="button" onClick={onClose} aria-label="Close thread" className="ml-auto rounded p-1 hover:bg-slate-100 dark:hover:bg-slate-800">
          <CloseIcon />
        </button>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        {thread === undefined ? (
          <Skeleton className="m-3 h-16" />
        ) : (
          <>
            <MessageItem message={thread.root} now={now} linkedTasks={linkedTasks} />
            <p className="border-y border-slate-100 px-3 py-1 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">
              {thread.replies.length} {thread.replies.length === 1 ? "reply" : "replies"}
            </p>
            {thread.replies.map((m) => (
              <MessageItem key={m._id} message={m} now={now} linkedTasks={linkedTasks} />
            ))}
            {thread.more && <p className="px-3 py-2 text-xs text-slate-500 dark:text-slate-400">Older replies are not shown.</p>}
          </>
        )}
      </div>
      {writable && (
        <MessageComposer
          placeholder="Reply in thread"
          maxChars={LIMITS.messageChars}
          channelId={channelId}
          candidates={candidates}
          tasks={tasks}
          onSend={({ body, importance, blocking, files, links, clientMessageId }) => reply({ channelId, messageId, body, importance, blocking, artifacts: withTaskLinks(files, links), clientMessageId })}
        />
      )}
    </aside>
  );
}
