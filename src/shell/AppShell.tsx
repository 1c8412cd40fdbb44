// The signed-in app's layout: the header, the main area, and a department's side panel or tabs.
import { useQuery } from "convex/react";
import { lazy, Suspense, useMemo, useState, type ReactNode } from "react";
import { Navigate, useLocation, useNavigate } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ActivityFeed } from "../activity/ActivityFeed";
import { BoardSkeleton } from "../board/BoardSkeleton";
import { ChatPane } from "../chat/ChatPane";
import { ErrorBoundary, ErrorPanel } from "../components/ErrorBoundary";
import { Button } from "../components/ui/Button";
import { Skeleton } from "../components/ui/Skeleton";
import { userMessage } from "../lib/errors";
import { InviteBanner, inviteTokenFromUrl } from "../members/InviteBanner";
import { RosterPanel } from "../roster/RosterPanel";
import { SlidersIcon } from "../components/ui/icons";
import { createSlashInserts, SlashInsertContext } from "../slash/insert";
import { DepartmentNav, type Pane } from "./DepartmentNav";
import { DepartmentSwitcher } from "./DepartmentSwitcher";
import { Header } from "./Header";
import { ModelProblemBanner, ModelStatus, useModelStatus } from "./ModelStatus";
import { NotificationsMenu } from "./NotificationsMenu";
import { PresenceAvatars } from "./PresenceAvatars";
import { canWrite, isAdminRole } from "./role";
import { accountPath, agentPath, departmentPath, dialogOf, membersPath, settingsPath } from "./addresses";
import { ShellShortcuts, type ShellOverlay } from "./ShellShortcuts";
import { ResizableSidePanel } from "./SidePanel";
import { useDepartments } from "./useDepartments";
import { useMediaQuery, WIDE_QUERY } from "./useMediaQuery";
import { WorkspaceContext } from "./workspace";

// The dialogs are loaded when first opened, so the entry chunk the board waits for stays small.
const MembersDialog = lazy(() => import("../members/MembersDialog").then((m) => ({ default: m.MembersDialog })));
const AccountDialog = lazy(() => import("./AccountDialog").then((m) => ({ default: m.AccountDialog })));
const NewDepartmentDialog = lazy(() => import("./NewDepartmentDialog").then((m) => ({ default: m.NewDepartmentDialog })));
const SettingsDialog = lazy(() => import("../settings/SettingsDialog").then((m) => ({ default: m.SettingsDialog })));

type Props = {
  userName: string;
  onSignOut: () => void;
  /** The account row may not exist yet (Clerk's first visit): create it before the first query. */
  ensureAccount?: boolean;
  /** The page the address picks (src/routes.tsx); shown once the person's departments are known. */
  children: ReactNode;
};

/**
 * The signed-in app's frame, whatever the auth mode: the header, banners and
 * the main area with the routed page. The header (with sign-out) stays
 * usable whatever fails below it.
 */
export function AppShell({ userName, onSignOut, ensureAccount = true, children }: Props) {
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
        <Workspace userName={userName} onSignOut={onSignOut} ensureAccount={ensureAccount}>
          {children}
        </Workspace>
      </ErrorBoundary>
    </div>
  );
}

function Workspace({ userName, onSignOut, ensureAccount = true, children }: Props) {
  const { membership, departments, selected, fallback, goToDepartment } = useDepartments(ensureAccount);
  const me = useQuery(api.users.me, membership.status === "ready" ? {} : "skip");
  const modelStatus = useModelStatus();
  const isAdmin = selected !== undefined && isAdminRole(selected.role);
  // Settings, Members and Account have addresses (over the board), so a reload or a shared link opens them.
  const [creating, setCreating] = useState(false);
  const location = useLocation();
  const navigate = useNavigate();
  const routed = selected === undefined ? null : dialogOf(location.pathname);
  const toBoard = () => {
    if (selected !== undefined) void navigate(`${departmentPath(selected.slug)}${location.search}`);
  };
  const [inviteToken] = useState(inviteTokenFromUrl);
  const [slashInserts] = useState(createSlashInserts);
  const workspace = useMemo(() => (departments && fallback ? { departments, department: selected, fallback } : null), [departments, selected, fallback]);
  // The palette, the shortcuts' help and the new-task dialog; another department starts with none open.
  const [overlay, setOverlay] = useState<ShellOverlay>(null);
  const [overlayDepartment, setOverlayDepartment] = useState(selected?._id);
  if (overlayDepartment !== selected?._id) {
    setOverlayDepartment(selected?._id);
    setOverlay(null);
  }

  return (
    <SlashInsertContext.Provider value={slashInserts}>
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
                  onClick={() => setOverlay("palette")}
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
            {selected && <NotificationsMenu departmentId={selected._id} departmentSlug={selected.slug} writable={canWrite(selected.role)} />}
            {selected && (
              <Button variant="ghost" onClick={() => void navigate(membersPath(selected.slug))} aria-haspopup="dialog" className="shrink-0">
                Members
              </Button>
            )}
            {selected && isAdmin && (
              <Button variant="ghost" onClick={() => void navigate(settingsPath(selected.slug))} aria-haspopup="dialog" className="shrink-0 px-2">
                <SlidersIcon className="size-5 sm:size-4" />
                <span className="sr-only lg:not-sr-only">Settings</span>
              </Button>
            )}
            {selected && (
              <Button variant="ghost" onClick={() => void navigate(accountPath(selected.slug))} aria-haspopup="dialog" className="shrink-0">
                Account
              </Button>
            )}
          </>
        }
      >
        {departments !== undefined && departments.length > 0 && selected && (
          <DepartmentSwitcher
            departments={departments}
            selectedId={selected._id}
            onSelect={goToDepartment}
            onCreate={departments.some((d) => isAdminRole(d.role)) ? () => setCreating(true) : undefined}
          />
        )}
      </Header>
      <ModelProblemBanner status={modelStatus} />
      {inviteToken !== null && membership.status === "ready" && <InviteBanner token={inviteToken} onJoined={goToDepartment} />}
      <main className="flex min-h-0 flex-1 flex-col p-4 sm:p-6">
        {membership.status === "error" ? (
          <ErrorPanel message={membership.message} onRetry={membership.retry} />
        ) : departments === undefined ? (
          <WorkspaceSkeleton />
        ) : workspace === null ? (
          <NoDepartment />
        ) : (
          <WorkspaceContext.Provider value={workspace}>{children}</WorkspaceContext.Provider>
        )}
      </main>
      {selected && (
        <ShellShortcuts
          key={selected._id}
          departmentId={selected._id}
          departmentSlug={selected.slug}
          writable={canWrite(selected.role)}
          open={overlay}
          onOpen={setOverlay}
        />
      )}
      <Suspense fallback={null}>
        {routed?.kind === "members" && selected !== undefined && (
          <MembersDialog departmentId={selected._id} departmentName={selected.name} myRole={selected.role} onClose={toBoard} />
        )}
        {routed?.kind === "account" && <AccountDialog onClose={toBoard} />}
        {routed?.kind === "settings" &&
          selected !== undefined &&
          // Settings are the admins'; anyone else's address lands on the board.
          (isAdmin ? (
            <SettingsDialog
              department={{ id: selected._id, name: selected.name, isAdmin, slug: selected.slug }}
              section={routed.section}
              onSection={(section) => void navigate(settingsPath(selected.slug, section), { replace: true })}
              onClose={toBoard}
            />
          ) : (
            <Navigate to={departmentPath(selected.slug)} replace />
          ))}
        {creating && (
          <NewDepartmentDialog
            onClose={() => setCreating(false)}
            onCreated={(id) => {
              setCreating(false);
              goToDepartment(id);
            }}
          />
        )}
      </Suspense>
    </SlashInsertContext.Provider>
  );
}

function NoDepartment() {
  return (
    <div
      data-testid="no-department"
      className="mx-auto my-12 flex max-w-sm flex-col items-center gap-2 rounded-xl border border-dashed border-slate-300 bg-white px-6 py-8 text-center dark:border-slate-700 dark:bg-slate-900"
    >
      <p className="text-sm font-medium text-slate-800 dark:text-slate-100">You are not a member of any department yet</p>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        To get in, ask an owner or admin of the department to invite you (Members → Invite), with the email address you signed in with, then open the invite link they send you while signed in here.
      </p>
    </div>
  );
}

type WorkspaceProps = {
  departmentId: Id<"departments">;
  departmentSlug: string;
  isAdmin: boolean;
  /** The page the address picks: the board, an agent's page, … */
  main: ReactNode;
};

/**
 * One department: wide, the page beside a resizable panel with the squad,
 * the #maestro chat and the activity feed; narrow, one of them at a time
 * under tabs. Each part fails on its own. The page keeps its place in the
 * tree either way, so crossing the breakpoint (a tablet turned) remounts
 * neither it nor the task drawer in its outlet.
 */
export function DepartmentWorkspace({ departmentId, departmentSlug, isAdmin, main }: WorkspaceProps) {
  const wide = useMediaQuery(WIDE_QUERY);
  // Narrow screens show one thing at a time: the page, or one part of the side panel.
  const [shown, setShown] = useState<Pane>("page");
  // Going somewhere (a link, the palette, Back) shows that page.
  const { pathname } = useLocation();
  const [shownAt, setShownAt] = useState(pathname);
  if (shownAt !== pathname) {
    setShownAt(pathname);
    setShown("page");
  }
  // Made once per department, so a navigation (another page in `main`, a board filter) does not redraw the side panel.
  const side = useMemo(
    () => ({
      roster: <RosterPanel departmentId={departmentId} isAdmin={isAdmin} agentHref={(slug) => agentPath(departmentSlug, slug)} />,
      chat: <ChatPane departmentId={departmentId} />,
      activity: <ActivityFeed departmentId={departmentId} />,
    }),
    [departmentId, departmentSlug, isAdmin],
  );

  return (
    <div className={wide ? "flex min-h-0 flex-1 flex-row" : "flex min-h-0 flex-1 flex-col gap-3"}>
      {!wide && <DepartmentNav departmentId={departmentId} slug={departmentSlug} panes={{ shown, onShow: setShown }} isAdmin={isAdmin} />}
      <div {...(wide ? { className: "flex min-h-0 min-w-0 flex-1 flex-col" } : paneProps("page", shown))}>{main}</div>
      {wide ? (
        <ResizableSidePanel>
          {/*
            The squad at its own height (a demo squad of four whole at 1280×800), up to half the panel, then it scrolls.
            A window 850 px or taller gives #maestro the room for eight messages (1440×900) and the squad 28%, scrolling.
          */}
          <div className="flex min-h-0 shrink-0 flex-col lg:max-h-[50%] lg:[@media(min-height:850px)]:max-h-[28%]">{side.roster}</div>
          {/* Takes nearly all the spare height (or none when folded or off); activity gets the rest, at least the start of its newest entry. */}
          {side.chat}
          <div className="flex min-h-0 flex-col lg:min-h-32 lg:flex-1">{side.activity}</div>
        </ResizableSidePanel>
      ) : (
        (["chat", "activity", "roster"] as const).map((id) => (
          <div key={id} {...paneProps(id, shown)}>
            {side[id]}
          </div>
        ))
      )}
    </div>
  );
}

/** One of a narrow screen's parts: only the one shown is visible; the others stay mounted (and live). */
function paneProps(pane: Pane, shown: Pane) {
  return { hidden: pane !== shown, "data-testid": `pane-${pane}`, className: "flex min-h-0 flex-1 flex-col" };
}

/** While a page's code loads (it is fetched when first opened). */
export function PageSkeleton() {
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
