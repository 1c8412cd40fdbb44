import { useQuery } from "convex/react";
import { lazy, Suspense, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { Navigate, useLocation, useMatch, useNavigate } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ActivityFeed } from "../activity/ActivityFeed";
import { Board } from "../board/Board";
import { BoardSkeleton } from "../board/BoardSkeleton";
import { parseFilters } from "../board/filters";
import { REMEMBERED_DEPARTMENT_KEY, useBoardPrefetch } from "../board/prefetch";
import { ChatPane } from "../chat/ChatPane";
import { ErrorBoundary, ErrorPanel } from "../components/ErrorBoundary";
import { Button } from "../components/ui/Button";
import { Skeleton } from "../components/ui/Skeleton";
import { userMessage } from "../lib/errors";
import { InviteBanner, inviteTokenFromUrl } from "../members/InviteBanner";
import { RosterPanel } from "../roster/RosterPanel";
import { SettingsButton } from "../settings/SettingsButton";
import { setTaskNavigator } from "../task/taskHash";
import { DepartmentSwitcher } from "./DepartmentSwitcher";
import { Header } from "./Header";
import { ModelProblemBanner, ModelStatus, useModelStatus } from "./ModelStatus";
import { NotificationsMenu } from "./NotificationsMenu";
import { canWrite, isAdminRole, RoleContext } from "./role";
import { agentPath, channelsPath, departmentPath, taskIdFromHash, taskPath } from "./routes";
import { DepartmentNav } from "./DepartmentNav";
import { OPEN_PALETTE_EVENT, ShellShortcuts } from "./ShellShortcuts";
import { PresenceAvatars } from "./PresenceAvatars";
import { ResizableSidePanel } from "./SidePanel";
import { useEnsureMembership } from "./useEnsureMembership";
import { useMediaQuery, WIDE_QUERY } from "./useMediaQuery";
import { useStoredState } from "./useStoredState";
import { WorkspaceTabs, type WorkspaceTab } from "./WorkspaceTabs";

// What the board's first screen does not show is loaded when first opened, so the entry chunk
// the board waits for stays small (the figures' charts alone were most of it).
const AgentPage = lazy(() => import("./AgentPage").then((m) => ({ default: m.AgentPage })));
const ChannelsView = lazy(() => import("../channels/ChannelsView").then((m) => ({ default: m.ChannelsView })));
const RunsPage = lazy(() => import("./RunsPage").then((m) => ({ default: m.RunsPage })));
const FiguresPage = lazy(() => import("../channels/MessagingStats").then((m) => ({ default: m.FiguresPage })));
const TaskDrawer = lazy(() => import("../task/TaskDrawer").then((m) => ({ default: m.TaskDrawer })));
const MembersDialog = lazy(() => import("../members/MembersDialog").then((m) => ({ default: m.MembersDialog })));
const AccountDialog = lazy(() => import("./AccountDialog").then((m) => ({ default: m.AccountDialog })));


type Props = {
  userName: string;
  onSignOut: () => void;
  /** The account row may not exist yet (Clerk's first visit): create it before the first query. */
  ensureAccount?: boolean;
};
type Department = NonNullable<ReturnType<typeof useDepartments>>[number];

/**
 * The signed-in app, whatever the auth mode. The header (with sign-out) stays
 * usable whatever fails below it.
 */
export function AppShell({ userName, onSignOut, ensureAccount = true }: Props) {
  return (
    <div className="flex min-h-dvh flex-col bg-slate-50 text-slate-900 lg:h-dvh dark:bg-slate-950 dark:text-slate-100">
      <ErrorBoundary
        fallback={(error, retry) => (
          <>
            <Header userName={userName} onSignOut={onSignOut} />
            <ErrorPanel message={userMessage(error)} onRetry={retry} />
          </>
        )}
      >
        <Workspace userName={userName} onSignOut={onSignOut} ensureAccount={ensureAccount} />
      </ErrorBoundary>
    </div>
  );
}

function useDepartments(ready: boolean) {
  return useQuery(api.departments.listMine, ready ? {} : "skip");
}

/** What the address names: a department slug, and in it a task or an agent. */
function useAddress() {
  const department = useMatch({ path: "/d/:slug", end: false });
  const task = useMatch("/d/:slug/tasks/:taskId");
  const agent = useMatch("/d/:slug/agents/:agentSlug");
  const channels = useMatch("/d/:slug/channels");
  const channel = useMatch("/d/:slug/channels/:channelId");
  const runs = useMatch("/d/:slug/runs");
  const run = useMatch("/d/:slug/runs/:runId");
  const figures = useMatch("/d/:slug/figures");
  const exact = useMatch("/d/:slug");
  const page = agent ? "agent" : channels || channel ? "channels" : runs ? "runs" : run ? "run" : figures ? "figures" : "board";
  return {
    slug: department?.params.slug,
    taskId: task?.params.taskId as Id<"tasks"> | undefined,
    agentSlug: agent?.params.agentSlug,
    channelId: (channel?.params.channelId ?? null) as Id<"channels"> | null,
    runId: run?.params.runId as Id<"runs"> | undefined,
    page: page as "agent" | "channels" | "runs" | "run" | "figures" | "board",
    /** A path under the department that names nothing we know. */
    unknown: department !== null && exact === null && task === null && agent === null && channels === null && channel === null && runs === null && run === null && figures === null,
  };
}

function Workspace({ userName, onSignOut, ensureAccount }: Props) {
  const membership = useEnsureMembership(ensureAccount);
  const departments = useDepartments(membership.status === "ready");
  const me = useQuery(api.users.me, membership.status === "ready" ? {} : "skip");
  const [storedId, setStoredId] = useStoredState(REMEMBERED_DEPARTMENT_KEY);
  const address = useAddress();
  const location = useLocation();
  const navigate = useNavigate();
  const selected = departments?.find((d) => d.slug === address.slug);
  // Where "/" (or a department you cannot reach) goes: the one you used last, else the first.
  const fallback = departments?.find((d) => d._id === storedId) ?? departments?.[0];
  const modelStatus = useModelStatus();
  const isAdmin = selected !== undefined && isAdminRole(selected.role);
  const [dialog, setDialog] = useState<"members" | "account" | null>(null);
  const [inviteToken] = useState(inviteTokenFromUrl);
  // The board's data starts loading with the shell's own queries, not after them, and stays
  // subscribed while "/" redirects to the department (else it is dropped and asked for again).
  const boardDepartment = selected?._id ?? (departments === undefined ? storedId : (fallback?._id ?? null));
  useBoardPrefetch(address.page === "board" ? boardDepartment : null, parseFilters(location.search));

  useEffect(() => {
    if (selected !== undefined && selected._id !== storedId) setStoredId(selected._id);
  }, [selected, storedId, setStoredId]);

  // A department just joined (an invite) may not be in the list yet: go there once it is.
  const [pendingId, setPendingId] = useState<string | null>(null);
  const pending = pendingId === null ? undefined : departments?.find((d) => d._id === pendingId);
  useEffect(() => {
    if (pending === undefined) return;
    setPendingId(null);
    void navigate(departmentPath(pending.slug));
  }, [pending, navigate]);

  const goToDepartment = (id: string) => {
    const department = departments?.find((d) => d._id === id);
    if (department === undefined) setPendingId(id);
    else void navigate(departmentPath(department.slug));
  };

  return (
    <>
      <Header
        userName={me?.name ?? userName}
        onSignOut={onSignOut}
        actions={
          <>
            {selected && (
              // Phones have no keyboard shortcut to hint at, and narrow rows no room: Ctrl/Cmd-K still opens the palette.
              <div className="hidden shrink-0 lg:flex">
                <Button
                  variant="secondary"
                  onClick={() => window.dispatchEvent(new Event(OPEN_PALETTE_EVENT))}
                  aria-keyshortcuts="Control+K Meta+K"
                  data-testid="open-palette"
                  className="gap-2 py-1.5 text-slate-500 dark:bg-slate-900 dark:text-slate-300 dark:ring-slate-700"
                >
                  Jump to…
                  <kbd className="hidden rounded border min-[1440px]:inline border-slate-300 px-1 font-mono text-[10px] dark:border-slate-600">Ctrl K</kbd>
                </Button>
              </div>
            )}
            {selected && me && (
              <div className="hidden sm:flex">
                <PresenceAvatars departmentId={selected._id} meId={me._id} />
              </div>
            )}
            <ModelStatus status={modelStatus} />
            {selected && <NotificationsMenu departmentId={selected._id} />}
            {selected && (
              <Button variant="ghost" onClick={() => setDialog("members")} aria-haspopup="dialog" className="shrink-0">
                Members
              </Button>
            )}
            {selected && isAdmin && <SettingsButton department={{ id: selected._id, name: selected.name, isAdmin }} />}
            <Button variant="ghost" onClick={() => setDialog("account")} aria-haspopup="dialog" className="shrink-0">
              Account
            </Button>
          </>
        }
      >
        {departments !== undefined && departments.length > 0 && selected && (
          <DepartmentSwitcher departments={departments} selectedId={selected._id} onSelect={goToDepartment} />
        )}
      </Header>
      <ModelProblemBanner status={modelStatus} />
      {inviteToken !== null && membership.status === "ready" && <InviteBanner token={inviteToken} onJoined={goToDepartment} />}
      <main className="flex min-h-0 flex-1 flex-col p-4 sm:p-6">
        {membership.status === "error" ? (
          <ErrorPanel message={membership.message} onRetry={membership.retry} />
        ) : departments === undefined ? (
          <WorkspaceSkeleton />
        ) : fallback === undefined ? (
          <div
            data-testid="no-department"
            className="mx-auto my-12 flex max-w-sm flex-col items-center gap-2 rounded-xl border border-dashed border-slate-300 bg-white px-6 py-8 text-center dark:border-slate-700 dark:bg-slate-900"
          >
            <p className="text-sm font-medium text-slate-800 dark:text-slate-100">You are not a member of any department yet</p>
            <p className="text-sm text-slate-600 dark:text-slate-300">Ask a department's owner or admin for an invite link.</p>
          </div>
        ) : selected === undefined ? (
          // "/", an old link, or a department you left: go to one you can see, keeping ?invite= and #task=.
          <Navigate to={`${departmentPath(fallback.slug)}${location.search}${location.hash}`} replace />
        ) : (
          <RoleContext.Provider value={selected.role}>
            <DepartmentNav departmentId={selected._id} slug={selected.slug} />
            <DepartmentRoute key={selected._id} department={selected} departments={departments} isAdmin={isAdmin} address={address} />
          </RoleContext.Provider>
        )}
      </main>
      <Suspense fallback={null}>
        {dialog === "members" && selected !== undefined && (
          <MembersDialog departmentId={selected._id} departmentName={selected.name} myRole={selected.role} onClose={() => setDialog(null)} />
        )}
        {dialog === "account" && <AccountDialog onClose={() => setDialog(null)} />}
      </Suspense>
    </>
  );
}

type DepartmentRouteProps = {
  department: Department;
  departments: Department[];
  isAdmin: boolean;
  address: ReturnType<typeof useAddress>;
};

/**
 * One department's addresses: the board, with a task's drawer over it, or an
 * agent's page in the board's place. An old `#task=<id>` link moves to its
 * address; a task of another of your departments moves to that department.
 */
function DepartmentRoute({ department, departments, isAdmin, address }: DepartmentRouteProps) {
  const location = useLocation();
  const navigate = useNavigate();
  useTaskNavigation(department.slug, address.taskId !== undefined);

  const legacyTaskId = taskIdFromHash(location.hash);
  if (legacyTaskId !== null) return <Navigate to={`${taskPath(department.slug, legacyTaskId)}${location.search}`} replace />;
  if (address.unknown) return <Navigate to={departmentPath(department.slug)} replace />;

  const onTaskDepartment = (taskId: Id<"tasks">, departmentId: Id<"departments">) => {
    const home = departments.find((d) => d._id === departmentId);
    if (home !== undefined && home._id !== department._id) void navigate(taskPath(home.slug, taskId), { replace: true });
  };

  const main =
    address.page === "agent" && address.agentSlug !== undefined ? (
      <AgentPage departmentId={department._id} departmentSlug={department.slug} agentSlug={address.agentSlug} />
    ) : address.page === "channels" ? (
      <ErrorBoundary>
        <ChannelsView
          departmentId={department._id}
          channelId={address.channelId}
          onSelect={(id) => void navigate(channelsPath(department.slug, id ?? undefined))}
        />
      </ErrorBoundary>
    ) : address.page === "figures" ? (
      <ErrorBoundary>
        <FiguresPage departmentId={department._id} />
      </ErrorBoundary>
    ) : address.page === "runs" || address.page === "run" ? (
      <ErrorBoundary>
        <RunsPage departmentId={department._id} departmentSlug={department.slug} runId={address.runId} />
      </ErrorBoundary>
    ) : (
      <ErrorBoundary>
        <Board departmentId={department._id} />
      </ErrorBoundary>
    );

  return (
    <>
      <DepartmentWorkspace
        departmentId={department._id}
        departmentSlug={department.slug}
        isAdmin={isAdmin}
        main={<Suspense fallback={<PageSkeleton />}>{main}</Suspense>}
      />
      <ShellShortcuts departmentId={department._id} departmentSlug={department.slug} writable={canWrite(department.role)} />
      {address.taskId !== undefined && (
        <Suspense fallback={null}>
          <TaskDrawer
            taskId={address.taskId}
            onClose={() => closeTaskRoute(navigate, location.state, department.slug)}
            onOpenTask={(taskId) => void navigate(taskPath(department.slug, taskId), { replace: true, state: location.state })}
            onDepartment={onTaskDepartment}
          />
        </Suspense>
      )}
    </>
  );
}

/** History state on a task entry pushed from the board: Back (not a new entry) closes it. */
type TaskEntryState = { fromBoard?: boolean } | null;

function closeTaskRoute(navigate: ReturnType<typeof useNavigate>, state: unknown, slug: string) {
  if ((state as TaskEntryState)?.fromBoard) void navigate(-1);
  else void navigate({ pathname: departmentPath(slug), search: window.location.search }, { replace: true });
}

/** Lets the board and the notifications menu open tasks through the router (src/task/taskHash.ts). */
function useTaskNavigation(slug: string, taskOpen: boolean) {
  const navigate = useNavigate();
  const location = useLocation();
  const latest = useRef({ taskOpen, state: location.state as unknown });
  useLayoutEffect(() => {
    latest.current = { taskOpen, state: location.state };
  });
  useLayoutEffect(
    () =>
      setTaskNavigator({
        open: (taskId) => {
          const { taskOpen: open, state } = latest.current;
          // From the board a new entry (Back closes the drawer); from one task to another, the same entry.
          // The board's filters live in the query string (src/board/filters.ts): they travel with the task's address.
          const to = { pathname: taskPath(slug, taskId), search: window.location.search };
          if (open) void navigate(to, { replace: true, state });
          else void navigate(to, { state: { fromBoard: true } });
        },
        close: () => closeTaskRoute(navigate, latest.current.state, slug),
      }),
    [navigate, slug],
  );
}

type WorkspaceProps = {
  departmentId: Id<"departments">;
  departmentSlug: string;
  isAdmin: boolean;
  /** The board, or an agent's page. */
  main: ReactNode;
};

/**
 * One department: wide, the board beside a resizable panel with the squad,
 * the #maestro chat and the activity feed; narrow, one of them at a time
 * under tabs. Each part fails on its own.
 */
function DepartmentWorkspace({ departmentId, departmentSlug, isAdmin, main }: WorkspaceProps) {
  const wide = useMediaQuery(WIDE_QUERY);
  const [tab, setTab] = useState<WorkspaceTab>("board");
  const navigate = useNavigate();
  const onOpenAgent = (agentSlug: string) => void navigate(agentPath(departmentSlug, agentSlug));
  const roster = <RosterPanel departmentId={departmentId} isAdmin={isAdmin} onOpenAgent={onOpenAgent} agentHref={(slug) => agentPath(departmentSlug, slug)} />;
  const chat = <ChatPane departmentId={departmentId} />;
  const activity = <ActivityFeed departmentId={departmentId} />;

  if (!wide) {
    return <WorkspaceTabs active={tab} onSelect={setTab} panels={{ board: main, chat, activity, roster }} />;
  }
  return (
    <div className="flex min-h-0 flex-1 flex-row">
      <div className="flex min-h-0 min-w-0 flex-1 flex-col">{main}</div>
      <ResizableSidePanel>
        <div className="flex min-h-0 flex-col lg:max-h-[30%]">{roster}</div>
        {/* Takes most of the spare height (or none when folded or off); activity gets the rest. */}
        {chat}
        <div className="flex min-h-0 flex-col lg:min-h-28 lg:flex-1">{activity}</div>
      </ResizableSidePanel>
    </div>
  );
}

/** While a page's code loads (it is fetched when first opened). */
function PageSkeleton() {
  return (
    <div className="flex flex-col gap-3">
      <Skeleton className="h-5 w-32" />
      <Skeleton className="h-40 w-full rounded-xl" />
    </div>
  );
}

function WorkspaceSkeleton() {
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-4 lg:flex-row">
      <div className="flex min-h-0 min-w-0 flex-col gap-3 lg:flex-1">
        <div className="flex items-center justify-between">
          <Skeleton className="h-5 w-24" />
          <Skeleton className="h-9 w-28 rounded-lg" />
        </div>
        <BoardSkeleton />
      </div>
      <div className="flex flex-col gap-3 rounded-xl border border-slate-200 bg-white p-4 lg:w-72 dark:border-slate-700 dark:bg-slate-900">
        <Skeleton className="h-4 w-16" />
        {Array.from({ length: 4 }, (_, j) => (
          <Skeleton key={j} className="h-8 w-full" />
        ))}
      </div>
    </div>
  );
}
