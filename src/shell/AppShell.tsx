import { useQuery } from "convex/react";
import { useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ActivityFeed } from "../activity/ActivityFeed";
import { Board } from "../board/Board";
import { BoardSkeleton } from "../board/BoardSkeleton";
import { ChatPane } from "../chat/ChatPane";
import { ErrorBoundary, ErrorPanel } from "../components/ErrorBoundary";
import { Button } from "../components/ui/Button";
import { Skeleton } from "../components/ui/Skeleton";
import { userMessage } from "../lib/errors";
import { InviteBanner, inviteTokenFromUrl } from "../members/InviteBanner";
import { MembersDialog } from "../members/MembersDialog";
import { RosterPanel } from "../roster/RosterPanel";
import { SettingsButton } from "../settings/SettingsButton";
import { TaskDrawer } from "../task/TaskDrawer";
import { closeTask, openTask, useOpenTaskId } from "../task/taskHash";
import { DepartmentSwitcher } from "./DepartmentSwitcher";
import { AccountDialog } from "./AccountDialog";
import { Header } from "./Header";
import { ModelProblemBanner, ModelStatus, useModelStatus } from "./ModelStatus";
import { NotificationsMenu } from "./NotificationsMenu";
import { isAdminRole, RoleContext } from "./role";
import { useEnsureMembership } from "./useEnsureMembership";
import { useStoredState } from "./useStoredState";

const DEPARTMENT_KEY = "maestro.department";

type Props = { userName: string; onSignOut: () => void };

/**
 * The signed-in app, whatever the auth mode. The header (with sign-out) stays
 * usable whatever fails below it.
 */
export function AppShell({ userName, onSignOut }: Props) {
  return (
    <div className="flex min-h-dvh flex-col bg-slate-50 lg:h-dvh">
      <ErrorBoundary
        fallback={(error, retry) => (
          <>
            <Header userName={userName} onSignOut={onSignOut} />
            <ErrorPanel message={userMessage(error)} onRetry={retry} />
          </>
        )}
      >
        <Workspace userName={userName} onSignOut={onSignOut} />
      </ErrorBoundary>
    </div>
  );
}

function Workspace({ userName, onSignOut }: Props) {
  const membership = useEnsureMembership();
  const departments = useQuery(api.departments.listMine, membership.status === "ready" ? {} : "skip");
  const me = useQuery(api.users.me, membership.status === "ready" ? {} : "skip");
  const [storedId, setStoredId] = useStoredState(DEPARTMENT_KEY);
  // A remembered department may have gone away; fall back to the first one.
  const selected = departments?.find((d) => d._id === storedId) ?? departments?.[0];
  const openTaskId = useOpenTaskId();
  const modelStatus = useModelStatus();
  const isAdmin = selected !== undefined && isAdminRole(selected.role);
  const [dialog, setDialog] = useState<"members" | "account" | null>(null);
  const [inviteToken] = useState(inviteTokenFromUrl);

  return (
    <>
      <Header
        userName={me?.name ?? userName}
        onSignOut={onSignOut}
        actions={
          <>
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
          <DepartmentSwitcher departments={departments} selectedId={selected._id} onSelect={setStoredId} />
        )}
      </Header>
      <ModelProblemBanner status={modelStatus} />
      {inviteToken !== null && membership.status === "ready" && <InviteBanner token={inviteToken} onJoined={setStoredId} />}
      <main className="flex min-h-0 flex-1 flex-col p-4 sm:p-6">
        {membership.status === "error" ? (
          <ErrorPanel message={membership.message} onRetry={membership.retry} />
        ) : departments === undefined ? (
          <WorkspaceSkeleton />
        ) : selected === undefined ? (
          <div
            data-testid="no-department"
            className="mx-auto my-12 flex max-w-sm flex-col items-center gap-2 rounded-xl border border-dashed border-slate-300 bg-white px-6 py-8 text-center"
          >
            <p className="text-sm font-medium text-slate-800">You are not a member of any department yet</p>
            <p className="text-sm text-slate-600">Ask a department's owner or admin for an invite link.</p>
          </div>
        ) : (
          <RoleContext.Provider value={selected.role}>
            <DepartmentWorkspace key={selected._id} departmentId={selected._id} isAdmin={isAdmin} />
          </RoleContext.Provider>
        )}
      </main>
      {openTaskId !== null && selected !== undefined && (
        <RoleContext.Provider value={selected.role}>
          <TaskDrawer taskId={openTaskId} onClose={closeTask} onOpenTask={openTask} />
        </RoleContext.Provider>
      )}
      {dialog === "members" && selected !== undefined && (
        <MembersDialog departmentId={selected._id} departmentName={selected.name} myRole={selected.role} onClose={() => setDialog(null)} />
      )}
      {dialog === "account" && <AccountDialog onClose={() => setDialog(null)} />}
    </>
  );
}

/**
 * One department: the board, and beside it (below it on narrow screens) the
 * squad, the #maestro chat and the activity feed. Each part fails on its own.
 */
function DepartmentWorkspace({ departmentId, isAdmin }: { departmentId: Id<"departments">; isAdmin: boolean }) {
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-4 lg:flex-row">
      <ErrorBoundary>
        <Board departmentId={departmentId} />
      </ErrorBoundary>
      <div data-testid="side-panel" className="flex min-h-0 flex-col gap-4 lg:w-72 lg:shrink-0">
        <div className="flex min-h-0 flex-col lg:max-h-[30%]">
          <RosterPanel departmentId={departmentId} isAdmin={isAdmin} />
        </div>
        {/* Takes most of the spare height (or none when folded or off); activity gets the rest. */}
        <ChatPane departmentId={departmentId} />
        <div className="flex min-h-0 flex-col lg:min-h-28 lg:flex-1">
          <ActivityFeed departmentId={departmentId} />
        </div>
      </div>
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
      <div className="flex flex-col gap-3 rounded-xl border border-slate-200 bg-white p-4 lg:w-72">
        <Skeleton className="h-4 w-16" />
        {Array.from({ length: 4 }, (_, j) => (
          <Skeleton key={j} className="h-8 w-full" />
        ))}
      </div>
    </div>
  );
}
