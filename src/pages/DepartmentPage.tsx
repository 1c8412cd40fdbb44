// The department route (`/d/:slug`): its role, its places and the side panel around the page the address picks.
import { Suspense } from "react";
import { Navigate, Outlet, useLocation } from "react-router";
import { DepartmentNav } from "../shell/DepartmentNav";
import { DepartmentWorkspace, PageSkeleton } from "../shell/AppShell";
import { isAdminRole, RoleContext } from "../shell/role";
import { taskIdFromHash, taskPath } from "../shell/addresses";
import { useHistoryBackstop } from "../shell/useHistoryBackstop";
import { useMediaQuery, WIDE_QUERY } from "../shell/useMediaQuery";
import { useWorkspace } from "../shell/workspace";
import { ToRememberedDepartment } from "./redirects";

/**
 * A department you belong to, with its page in the outlet; an old
 * `#task=<id>` link moves to the task's address. A department you cannot
 * reach goes to one you can.
 */
export function DepartmentPage() {
  const { department } = useWorkspace();
  const location = useLocation();
  useHistoryBackstop();
  const wide = useMediaQuery(WIDE_QUERY);
  if (department === undefined) return <ToRememberedDepartment />;
  const legacyTaskId = taskIdFromHash(location.hash);
  return (
    <RoleContext.Provider value={department.role}>
      {/* Narrow screens get the same row from the workspace, joined by the side panel's parts. */}
      {wide && <DepartmentNav departmentId={department._id} slug={department.slug} isAdmin={isAdminRole(department.role)} />}
      {legacyTaskId !== null ? (
        <Navigate to={`${taskPath(department.slug, legacyTaskId)}${location.search}`} replace />
      ) : (
        <DepartmentWorkspace
          key={department._id}
          departmentId={department._id}
          departmentSlug={department.slug}
          isAdmin={isAdminRole(department.role)}
          main={
            // A page's code loads when it is first opened.
            <Suspense fallback={<PageSkeleton />}>
              <Outlet />
            </Suspense>
          }
        />
      )}
    </RoleContext.Provider>
  );
}
