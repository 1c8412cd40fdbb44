// The route table's redirects: addresses that name no page go to one that does.
import { Navigate, useLocation } from "react-router";
import { departmentPath } from "../shell/addresses";
import { useDepartment, useWorkspace } from "../shell/workspace";

/** "/", an old link, or a department you left: the one you used last (else the first), keeping ?invite= and #task=. */
export function ToRememberedDepartment() {
  const { fallback } = useWorkspace();
  const location = useLocation();
  return <Navigate to={`${departmentPath(fallback.slug)}${location.search}${location.hash}`} replace />;
}

/** A path under a department that names nothing we know: its board. */
export function ToDepartmentBoard() {
  return <Navigate to={departmentPath(useDepartment().slug)} replace />;
}
