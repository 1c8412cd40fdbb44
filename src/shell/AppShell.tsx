import { useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import { Board } from "../board/Board";
import { BoardSkeleton } from "../board/BoardSkeleton";
import { ErrorBoundary, ErrorPanel } from "../components/ErrorBoundary";
import { userMessage } from "../lib/errors";
import { DepartmentSwitcher } from "./DepartmentSwitcher";
import { Header } from "./Header";
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
  const [storedId, setStoredId] = useStoredState(DEPARTMENT_KEY);
  // A remembered department may have gone away; fall back to the first one.
  const selected = departments?.find((d) => d._id === storedId) ?? departments?.[0];

  return (
    <>
      <Header userName={userName} onSignOut={onSignOut}>
        {departments !== undefined && departments.length > 0 && selected && (
          <DepartmentSwitcher departments={departments} selectedId={selected._id} onSelect={setStoredId} />
        )}
      </Header>
      <main className="flex min-h-0 flex-1 flex-col p-4 sm:p-6">
        {membership.status === "error" ? (
          <ErrorPanel message={membership.message} onRetry={membership.retry} />
        ) : departments === undefined ? (
          <BoardSkeleton />
        ) : selected === undefined ? (
          <p className="mx-auto my-12 max-w-sm text-center text-sm text-slate-600">
            You are not in any department yet. Ask an admin to create one, then reload.
          </p>
        ) : (
          <ErrorBoundary key={selected._id}>
            <Board departmentId={selected._id} />
          </ErrorBoundary>
        )}
      </main>
    </>
  );
}
