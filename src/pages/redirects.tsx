// The route table's redirects: addresses that name no page go to one that does.
import { Navigate, useLocation } from "react-router";
import { accountPath, departmentPath } from "../shell/addresses";
import { useWorkspace } from "../shell/workspace";

/**
 * "/", an old link, or a department you left: the one you used last (else
 * the first), keeping ?invite= and #task=; with `page`, that page of it
 * (`/account` → `/d/<slug>/account`).
 */
export function ToRememberedDepartment({ page }: { page?: "account" }) {
  const { fallback } = useWorkspace();
  const location = useLocation();
  const to = page === "account" ? accountPath(fallback.slug) : departmentPath(fallback.slug);
  return <Navigate to={`${to}${location.search}${location.hash}`} replace />;
}
