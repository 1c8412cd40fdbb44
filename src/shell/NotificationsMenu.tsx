import { useMutation, useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useEffect, useId, useRef, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { BellIcon } from "../components/ui/icons";
import { userMessage } from "../lib/errors";
import { formatRelativeTime, useNow } from "../lib/relativeTime";
import { useNavigate } from "react-router";
import { channelsPath } from "./addresses";
import { useTaskNavigation } from "./useTaskNavigation";
import { useWaiting, WAITING_LABEL, type WaitingItem } from "./waiting";

type Notifications = FunctionReturnType<typeof api.notifications.listMine>;


type ViewProps = {
  /** `undefined` while loading. */
  data: Notifications | undefined;
  onOpenTask: (taskId: Id<"tasks">) => void;
  /** Approvals, questions and plans waiting for a person in the department: listed first, and counted. */
  waiting?: readonly WaitingItem[];
  /** Opens a DM with unread messages. */
  onOpenChannel?: (channelId: Id<"channels">) => void;
  /** Marks everything unread in the department read: channel and DM messages, mentions and assignments. */
  onMarkAllRead?: () => Promise<unknown>;
};

/** The bell with the unread count, and a list of unread notifications; picking one opens its task. */
export function NotificationsMenuView({ data, onOpenTask, onOpenChannel, onMarkAllRead, waiting = [] }: ViewProps) {
  const [open, setOpen] = useState(false);
  const [marking, setMarking] = useState(false);
  const [markFailure, setMarkFailure] = useState<string | null>(null);
  const unreadListed = data !== undefined && (data.notifications.length > 0 || data.dms.length > 0);
  const markAllRead = () => {
    if (onMarkAllRead === undefined) return;
    setMarking(true);
    setMarkFailure(null);
    onMarkAllRead().then(
      () => setMarking(false),
      (error: unknown) => {
        setMarking(false);
        setMarkFailure(userMessage(error));
      },
    );
  };
  const rootRef = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const now = useNow();
  const count = (data?.unreadCount ?? 0) + waiting.length;

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open]);

  return (
    <div
      ref={rootRef}
      className="relative"
      onKeyDown={(event) => {
        if (event.key === "Escape" && open) {
          event.preventDefault();
          setOpen(false);
        }
      }}
    >
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={data === undefined ? "Notifications" : `Notifications, ${count} unread${waiting.length > 0 ? ` (${waiting.length} waiting for a person)` : ""}`}
        onClick={() => setOpen((o) => !o)}
        className="relative rounded-lg p-2 text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-slate-100"
      >
        <BellIcon className="size-5" />
        {count > 0 && (
          <span
            data-testid="notification-count"
            className="absolute -top-0.5 -right-0.5 min-w-4 rounded-full bg-rose-500 px-1 text-center text-[10px] leading-4 font-semibold text-white tabular-nums ring-2 ring-white dark:ring-slate-900"
          >
            {count > 99 ? "99+" : count}
          </span>
        )}
      </button>
      {open && (
        <div
          id={panelId}
          // On a phone the bell sits near the left edge: the panel spans the screen below it rather than running off to the left.
          className="absolute right-0 z-40 mt-2 w-80 max-w-[calc(100vw-2rem)] overflow-hidden rounded-xl bg-white shadow-lg ring-1 ring-slate-200 max-sm:fixed max-sm:inset-x-4 max-sm:w-auto max-sm:max-w-none dark:bg-slate-900 dark:ring-slate-700"
        >
          {waiting.length > 0 && (
            <section aria-label="Waiting for a person" className="border-b border-amber-200 bg-amber-50/60 dark:border-amber-800/60 dark:bg-amber-950/30">
              <p className="px-4 pt-2.5 pb-1 text-sm font-semibold text-amber-900 dark:text-amber-100">Waiting for a person</p>
              <ul className="max-h-60 overflow-y-auto">
                {waiting.map((item) => (
                  <li key={item.cardId}>
                    <button
                      type="button"
                      data-testid="waiting-item"
                      onClick={() => {
                        setOpen(false);
                        onOpenTask(item.taskId);
                      }}
                      className="flex w-full flex-col gap-0.5 px-4 py-2 text-left hover:bg-amber-100/60 focus-visible:bg-amber-100/60 focus-visible:outline-none dark:hover:bg-amber-900/30"
                    >
                      <span className="text-sm text-slate-900 dark:text-slate-100">
                        <span className="font-semibold">{item.agentName}</span> {item.ask}
                      </span>
                      <span className="truncate text-xs text-slate-600 dark:text-slate-300">
                        {WAITING_LABEL[item.kind]} on {item.taskTitle} · {formatRelativeTime(item.since, now)}
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            </section>
          )}
          <div className="flex items-center justify-between gap-2 border-b border-slate-100 px-4 py-1.5 dark:border-slate-800">
            <p className="py-1 text-sm font-semibold text-slate-700 dark:text-slate-200">Notifications</p>
            {onMarkAllRead !== undefined && unreadListed && (
              <button
                type="button"
                data-testid="mark-all-read"
                disabled={marking}
                onClick={markAllRead}
                className="rounded-md px-2 py-1 text-xs font-medium text-indigo-700 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-600 disabled:cursor-progress disabled:opacity-60 dark:text-indigo-300 dark:hover:bg-indigo-950/40"
              >
                {marking ? "Marking…" : "Mark all read"}
              </button>
            )}
          </div>
          {markFailure !== null && (
            <p role="alert" className="bg-rose-50 px-4 py-1.5 text-xs text-rose-800 dark:bg-rose-950/40 dark:text-rose-300">
              {markFailure}
            </p>
          )}
          {data === undefined ? (
            <p className="px-4 py-6 text-center text-xs text-slate-500 dark:text-slate-400">Loading…</p>
          ) : data.notifications.length === 0 && data.dms.length === 0 ? (
            <p className="px-4 py-6 text-center text-xs text-slate-500 dark:text-slate-400">You’re all caught up.</p>
          ) : (
            <ul className="max-h-80 divide-y divide-slate-100 overflow-y-auto dark:divide-slate-800">
              {data.dms.map((dm) => (
                <li key={dm.channelId}>
                  <button
                    type="button"
                    data-testid="notification-dm"
                    onClick={() => {
                      setOpen(false);
                      onOpenChannel?.(dm.channelId);
                    }}
                    className="flex w-full flex-col gap-0.5 px-4 py-2.5 text-left hover:bg-slate-50 focus-visible:bg-slate-50 focus-visible:outline-none dark:hover:bg-slate-800"
                  >
                    <span className="text-xs text-slate-500 dark:text-slate-400">
                      {dm.unread === 1 ? "1 unread direct message" : `${dm.unread} unread direct messages`}
                    </span>
                    <span className="truncate text-sm font-medium text-slate-900 dark:text-slate-100">{dm.title}</span>
                  </button>
                </li>
              ))}
              {data.notifications.map((n) => (
                <li key={n._id}>
                  <button
                    type="button"
                    onClick={() => {
                      setOpen(false);
                      onOpenTask(n.taskId);
                    }}
                    className="flex w-full flex-col gap-0.5 px-4 py-2.5 text-left hover:bg-slate-50 focus-visible:bg-slate-50 focus-visible:outline-none dark:hover:bg-slate-800 dark:focus-visible:bg-slate-800/60"
                  >
                    <span className="text-xs text-slate-500 dark:text-slate-400">
                      {n.kind === "mention" ? (n.from === undefined ? "You were mentioned in" : `${n.from} mentioned you in`) : "You were assigned"} ·{" "}
                      {formatRelativeTime(n._creationTime, now)}
                    </span>
                    <span className="truncate text-sm font-medium text-slate-900 dark:text-slate-100">{n.taskTitle}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

/** `writable`: the person may act (not a viewer); a viewer's bell leaves out what waits for a person. */
type Props = { departmentId: Id<"departments">; departmentSlug: string; writable: boolean };

const NOTHING_WAITING: readonly WaitingItem[] = [];

function LiveNotifications({ departmentId, departmentSlug, writable }: Props) {
  const data = useQuery(api.notifications.listMine, { departmentId });
  // A viewer cannot approve, answer or decide: what waits for a person is not hers to count or act on.
  const all = useWaiting(departmentId);
  const waiting = writable ? all : NOTHING_WAITING;
  const tasks = useTaskNavigation(departmentSlug);
  const navigate = useNavigate();
  const markAllRead = useMutation(api.inbox.markAllRead);
  return (
    <NotificationsMenuView
      data={data}
      onOpenTask={tasks.open}
      onOpenChannel={(channelId) => void navigate(channelsPath(departmentSlug, channelId))}
      onMarkAllRead={() => markAllRead({ departmentId })}
      waiting={waiting}
    />
  );
}

/** The header's notifications, live for one department. A failure hides the bell rather than the page. */
export function NotificationsMenu(props: Props) {
  return (
    <ErrorBoundary key={props.departmentId} fallback={() => null}>
      <LiveNotifications {...props} />
    </ErrorBoundary>
  );
}
