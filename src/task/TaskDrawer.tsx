import { useMutation, usePaginatedQuery, useQuery } from "convex/react";
import { useEffect, useId, useMemo, useRef, useState, type ReactNode } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { optionFor, STATUS_OPTIONS } from "../board/options";
import { patchTaskInStore, setStatusInStore } from "../board/optimistic";
import type { RosterAgent } from "../board/types";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Button } from "../components/ui/Button";
import { InlineError } from "../components/ui/Field";
import { CloseIcon } from "../components/ui/icons";
import { CloseButton, Drawer, ModalHeader } from "../components/ui/Modal";
import { Skeleton } from "../components/ui/Skeleton";
import { userMessage } from "../lib/errors";
import { Composer, type SendExtras } from "./Composer";
import { ModeBadges } from "../slash/ModeBadge";
import type { SlashSupport } from "../slash/slash";
import { useSlashSupport } from "../slash/useSlashSupport";
import { canWrite, useRole, VIEWER_NOTE } from "../shell/role";
import { PauseCards } from "./PauseCards";
import { mentionCandidates } from "../composer/candidates";
import { useLinkedTasks } from "../composer/TaskChips";
import { taskLinkArtifacts, type TaskOption } from "../composer/taskLinks";
import { useTaskLinkSupport, type TaskLinkSupport } from "../composer/useCompletions";
import { useNow } from "../lib/relativeTime";
import { useFollowThread } from "./useFollowThread";
import { FollowInChannel } from "./FollowInChannel";
import { A2aRemoteWork } from "./A2aRemoteWork";
import { AgentActivity, RunsNow } from "./RunsPanel";
import { TaskCleanup } from "./TaskCleanup";
import { TaskDetails, TaskTitle, type Member, type TaskDetail, type TaskEdits } from "./TaskDetails";
import { Thread, type ThreadMessage, type ThreadStatus } from "./Thread";

/** Messages in the first page of a thread, and in each "Load earlier". */
const PAGE_SIZE = 30;

type ViewProps = {
  task: TaskDetail;
  agents: readonly RosterAgent[];
  members: readonly Member[];
  /** Newest first, as `messages.list` pages them. */
  messages: readonly ThreadMessage[];
  threadStatus: ThreadStatus;
  onLoadEarlier: () => void;
  edits: TaskEdits;
  /** `extras`: the tasks the text links with `#` and the files attached (absent when none). */
  onSend: (content: string, clientMessageId: string, extras?: SendExtras) => Promise<unknown>;
  onOpenTask: (taskId: Id<"tasks">) => void;
  onClose: () => void;
  headingId: string;
  now: number;
  /** Shown above the thread; the container passes the live `AgentActivity`. */
  activity?: ReactNode;
  /** Shown above the composer; the container passes the live `RunsNow` (thinking, the streaming reply, Stop). */
  live?: ReactNode;
  /** Slash commands in the composer. */
  slash?: SlashSupport;
  /** `#` task links in the composer, and the titles of the tasks messages link. */
  tasks?: TaskLinkSupport;
  linkedTasks?: ReadonlyMap<string, TaskOption>;
  /** Archive and delete, under the details; the container passes the live `TaskCleanup`. */
  cleanup?: ReactNode;
};

/**
 * The drawer's contents as pure props: heading with the editable title, the
 * task's details, the agent activity slot, its thread (oldest first) and the
 * composer pinned below.
 */
export function TaskDrawerView({
  task,
  agents,
  members,
  messages,
  threadStatus,
  onLoadEarlier,
  edits,
  onSend,
  onOpenTask,
  onClose,
  headingId,
  now,
  activity,
  live,
  slash,
  cleanup,
  tasks,
  linkedTasks,
}: ViewProps) {
  const [failure, setFailure] = useState<string | null>(null);
  const report = (error: unknown) => setFailure(userMessage(error));
  const oldestFirst = useMemo(() => [...messages].reverse(), [messages]);
  const candidates = useMemo(() => mentionCandidates(agents, members), [agents, members]);
  const roles = useMemo(() => new Map(members.map((member) => [member.userId as string, member.role as string])), [members]);
  const status = optionFor(STATUS_OPTIONS, task.status);

  // Follow the conversation: a newer message scrolls into view when the reader
  // is at the bottom (or just sent it); otherwise a "New messages" jump appears.
  const scrollRef = useRef<HTMLDivElement>(null);
  const writable = canWrite(useRole());
  const follow = useFollowThread(scrollRef, messages[0]?._id, threadStatus !== "LoadingFirstPage");

  return (
    <div data-testid="task-drawer" className="flex min-h-0 flex-1 flex-col">
      <header className="flex items-start gap-3 border-b border-slate-100 px-5 pt-4 pb-3 dark:border-slate-800">
        <div className="flex min-w-0 flex-1 flex-col gap-1">
          <span className="inline-flex items-center gap-1.5 text-xs font-medium text-slate-500 dark:text-slate-400">
            <span aria-hidden="true" className={`size-2 rounded-full ${status.className}`} />
            {status.label}
            <ModeBadges leadMode={task.leadMode} model={task.model} />
          </span>
          <TaskTitle task={task} headingId={headingId} edits={edits} onError={report} />
        </div>
        <CloseButton onClose={onClose} label="Close task" large className="shrink-0" />
      </header>

      <div className="relative flex min-h-0 flex-1 flex-col">
      <div
        ref={scrollRef}
        data-testid="task-drawer-scroller"
        // Reachable by keyboard, so a viewer (who has no control inside to tab to) can scroll it too.
        tabIndex={0}
        className="flex min-h-0 flex-1 flex-col gap-6 overflow-y-auto px-5 py-4 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-inset"
        onScroll={follow.onScroll}
      >
        {failure && (
          <div className="flex items-start gap-2">
            <InlineError className="flex-1">{failure}</InlineError>
            <Button variant="ghost" onClick={() => setFailure(null)} aria-label="Dismiss" className="p-1.5">
              <CloseIcon />
            </Button>
          </div>
        )}
        <TaskDetails task={task} agents={agents} members={members} edits={edits} onError={report} onOpenTask={onOpenTask} now={now} />
        <FollowInChannel task={task} />
        {cleanup}
        {activity}
        <section aria-label="Thread" className="flex flex-col gap-3 border-t border-slate-100 pt-5 dark:border-slate-800">
          <h3 className="text-sm font-semibold text-slate-700 dark:text-slate-200">Thread</h3>
          <PauseCards taskId={task._id} now={now} show="decided" />
          <Thread messages={oldestFirst} status={threadStatus} onLoadEarlier={onLoadEarlier} now={now} roles={roles} linkedTasks={linkedTasks} />
        </section>
      </div>
      {follow.unseen && (
        <Button
          variant="secondary"
          onClick={follow.jumpToNewest}
          data-testid="new-messages"
          className="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full px-3 py-1 text-xs shadow-md"
        >
          ↓ New messages
        </Button>
      )}
      </div>

      <div className="border-t border-slate-200 bg-white px-5 py-3 dark:bg-slate-900 dark:border-slate-700">
        {/* What waits for a person, and what agents are doing now, stay beside the composer, however long the thread. */}
        <div data-testid="pending-cards" className="-mx-5 mb-3 max-h-[45vh] overflow-y-auto px-5 empty:hidden">
          <PauseCards taskId={task._id} now={now} show="pending" />
        </div>
        {live && <div className="mb-3 empty:hidden">{live}</div>}
        <div className="mb-3 empty:hidden">
          <A2aRemoteWork taskId={task._id} agentName={(id) => agents.find((a) => a._id === id)?.name ?? "An agent"} />
        </div>
        {writable ? (
          <Composer
            taskId={task._id}
            candidates={candidates}
            slash={slash}
            tasks={tasks}
            onSend={async (content, clientMessageId, extras) => {
              follow.followNext();
              await onSend(content, clientMessageId, extras);
            }}
          />
        ) : (
          <p className="text-xs text-slate-500 dark:text-slate-400">{VIEWER_NOTE}</p>
        )}
      </div>
    </div>
  );
}

function DrawerSkeleton({ headingId, onClose }: { headingId: string; onClose: () => void }) {
  return (
    <div role="status" className="flex flex-1 flex-col">
      <header className="flex items-start gap-3 border-b border-slate-100 px-5 pt-4 pb-3 dark:border-slate-800">
        <div className="flex flex-1 flex-col gap-2">
          <Skeleton className="h-3 w-20" />
          <h2 id={headingId} className="sr-only">
            Loading task…
          </h2>
          <Skeleton className="h-6 w-3/4" />
        </div>
        <CloseButton onClose={onClose} label="Close task" large />
      </header>
      <div className="flex flex-col gap-3 px-5 py-4">
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className="grid grid-cols-[6.5rem_1fr] gap-3">
            <Skeleton className="h-4 w-16" />
            <Skeleton className="h-8" />
          </div>
        ))}
        <Skeleton className="mt-4 h-24" />
      </div>
    </div>
  );
}

type DrawerProps = {
  taskId: Id<"tasks">;
  onClose: () => void;
  onOpenTask: (taskId: Id<"tasks">) => void;
  /** Told the task's department once it loads (the address may name another one). */
  onDepartment?: (taskId: Id<"tasks">, departmentId: Id<"departments">) => void;
  /** The address of a run's own page, for the runs panel's links. */
  runHref?: (runId: Id<"runs">) => string;
};

/**
 * The side panel for one task. Opening it marks the viewer's notifications on
 * the task read (again whenever a newer message lands while it is open).
 * Failures to load show inside the panel, which stays closable.
 */
export function TaskDrawer({ taskId, onClose, onOpenTask, onDepartment, runHref }: DrawerProps) {
  const headingId = useId();
  return (
    <Drawer onClose={onClose} labelledBy={headingId}>
      <ErrorBoundary
        key={taskId}
        fallback={(error, retry) => (
          <div className="flex flex-1 flex-col">
            <ModalHeader headingId={headingId} title="Task unavailable" onClose={onClose} closeLabel="Close task" large />
            <div role="alert" className="m-5 flex flex-col items-start gap-3 rounded-xl border border-rose-200 bg-rose-50 p-4 dark:border-rose-800 dark:bg-rose-950/40">
              <p className="text-sm font-medium text-rose-800 dark:text-rose-300">{userMessage(error)}</p>
              <p className="text-xs text-rose-700 dark:text-rose-300">It may have been deleted, or the link may be wrong.</p>
              <div className="flex gap-2">
                <Button variant="secondary" onClick={retry}>
                  Try again
                </Button>
                <Button variant="ghost" onClick={onClose}>
                  Back to the board
                </Button>
              </div>
            </div>
          </div>
        )}
      >
        <TaskDrawerContent taskId={taskId} onClose={onClose} onOpenTask={onOpenTask} onDepartment={onDepartment} runHref={runHref} headingId={headingId} />
      </ErrorBoundary>
    </Drawer>
  );
}

function TaskDrawerContent({ taskId, onClose, onOpenTask, onDepartment, runHref, headingId }: DrawerProps & { headingId: string }) {
  const task = useQuery(api.tasks.get, { taskId });
  const taskDepartmentId = task?.departmentId;
  const slash = useSlashSupport(taskDepartmentId, taskId);
  useEffect(() => {
    if (taskDepartmentId !== undefined) onDepartment?.(taskId, taskDepartmentId);
  }, [taskId, taskDepartmentId, onDepartment]);
  const department = task === undefined ? "skip" : { departmentId: task.departmentId };
  const agents = useQuery(api.agents.list, department);
  const members = useQuery(api.members.list, department);
  const thread = usePaginatedQuery(api.messages.list, { taskId }, { initialNumItems: PAGE_SIZE });
  const taskLinks = useTaskLinkSupport(taskDepartmentId);
  const threadLinks = useMemo(() => thread.results.map((m) => ({ artifacts: taskLinkArtifacts(m.taskLinks) })), [thread.results]);
  const linkedTasks = useLinkedTasks(taskDepartmentId, threadLinks);
  const now = useNow();

  const update = useMutation(api.tasks.update).withOptimisticUpdate(patchTaskInStore);
  const assign = useMutation(api.tasks.assign).withOptimisticUpdate(patchTaskInStore);
  const setStatus = useMutation(api.tasks.setStatus).withOptimisticUpdate(setStatusInStore);
  const postMessage = useMutation(api.messages.create);
  const markRead = useMutation(api.notifications.markRead);

  const loaded = thread.status !== "LoadingFirstPage";
  const newestId = thread.results[0]?._id;
  useEffect(() => {
    if (!loaded) return;
    markRead({ taskId }).catch(() => {
      // Best effort: the unread marker simply stays until the next open.
    });
  }, [markRead, taskId, loaded, newestId]);

  const edits: TaskEdits = {
    update: (changes) => update({ taskId, ...changes }),
    setStatus: (status) => setStatus({ taskId, status }),
    assign: (assigneeSessionKeys) => assign({ taskId, assigneeSessionKeys }),
  };

  if (task === undefined || agents === undefined || members === undefined) return <DrawerSkeleton headingId={headingId} onClose={onClose} />;
  return (
    <TaskDrawerView
      task={task}
      agents={agents}
      members={members}
      messages={thread.results}
      threadStatus={thread.status}
      onLoadEarlier={() => thread.loadMore(PAGE_SIZE)}
      edits={edits}
      onSend={(content, clientMessageId, extras) => postMessage({ taskId, content, clientMessageId, ...extras })}
      onOpenTask={onOpenTask}
      onClose={onClose}
      headingId={headingId}
      now={now}
      activity={<AgentActivity taskId={taskId} now={now} runHref={runHref} />}
      live={<RunsNow taskId={taskId} />}
      slash={slash}
      tasks={taskLinks}
      linkedTasks={linkedTasks}
      cleanup={<TaskCleanup task={task} onDeleted={onClose} />}
    />
  );
}
