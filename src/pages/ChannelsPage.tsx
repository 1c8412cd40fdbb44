// The channels routes (`/d/:slug/channels[/:channelId]`, `…/channels/:channelId/threads/:threadId`): channels and DMs, the one in the address open, with its thread.
import { useMemo } from "react";
import { useLocation, useNavigate, useParams } from "react-router";
import type { Id } from "../../convex/_generated/dataModel";
import { ChannelsView } from "../channels/ChannelsView";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { TaskLinkContext, type TaskLinkTarget } from "../composer/TaskChips";
import { channelsPath, taskPath, threadPath } from "../shell/addresses";
import { useDepartment } from "../shell/workspace";

/** Marks a thread's entry opened from its channel: closing it is Back. */
type ThreadEntryState = { overChannel: true } | null;

/**
 * Picking a channel or opening a thread is a new address (Back returns to
 * the last one); a linked task's chip opens the task's address. A failure
 * shows in the page's place.
 */
export function ChannelsPage() {
  const { _id: departmentId, slug } = useDepartment();
  const params = useParams();
  const channelId = (params.channelId ?? null) as Id<"channels"> | null;
  const threadId = (params.threadId ?? null) as Id<"channelMessages"> | null;
  const navigate = useNavigate();
  const location = useLocation();
  const overChannel = (location.state as ThreadEntryState)?.overChannel === true;
  const tasks = useMemo<TaskLinkTarget>(() => ({ href: (taskId) => taskPath(slug, taskId), open: (taskId) => void navigate(taskPath(slug, taskId)) }), [slug, navigate]);
  return (
    <ErrorBoundary>
      <TaskLinkContext.Provider value={tasks}>
        <ChannelsView
          departmentId={departmentId}
          channelId={channelId}
          onSelect={(id) => void navigate(channelsPath(slug, id ?? undefined))}
          threadId={threadId}
          onThread={(id) => {
            if (channelId === null) return;
            if (id !== null) void navigate(threadPath(slug, channelId, id), { state: { overChannel: true } satisfies ThreadEntryState });
            else if (overChannel) void navigate(-1);
            else void navigate(channelsPath(slug, channelId), { replace: true });
          }}
        />
      </TaskLinkContext.Provider>
    </ErrorBoundary>
  );
}
