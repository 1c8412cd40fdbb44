// The signed-in person's departments: which one the address names, the one used last, and going to one just joined.
import { useQuery } from "convex/react";
import { useEffect, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { api } from "../../convex/_generated/api";
import { parseFilters } from "../board/filters";
import { REMEMBERED_DEPARTMENT_KEY, useBoardPrefetch } from "../board/prefetch";
import { departmentPath, departmentSlugOf, showsBoard } from "./addresses";
import { useEnsureMembership } from "./useEnsureMembership";
import { useStoredState } from "./useStoredState";
import type { Department } from "./workspace";

export type Departments = {
  membership: ReturnType<typeof useEnsureMembership>;
  /** `undefined` while loading. */
  departments: Department[] | undefined;
  /** The department the address names, if you belong to it. */
  selected: Department | undefined;
  /** Where "/" (or a department you cannot reach) goes: the one you used last, else the first. */
  fallback: Department | undefined;
  /** Goes to a department's board, once it is in the list (one just joined may not be yet). */
  goToDepartment: (id: string) => void;
};

/**
 * The shell's departments. The board's data starts loading with them, not
 * after them, and stays subscribed while "/" redirects to the department
 * (else it is dropped and asked for again).
 */
export function useDepartments(ensureAccount: boolean): Departments {
  const membership = useEnsureMembership(ensureAccount);
  const departments = useQuery(api.departments.listMine, membership.status === "ready" ? {} : "skip");
  const [storedId, setStoredId] = useStoredState(REMEMBERED_DEPARTMENT_KEY);
  const location = useLocation();
  const navigate = useNavigate();
  const slug = departmentSlugOf(location.pathname);
  const selected = departments?.find((d) => d.slug === slug);
  const fallback = departments?.find((d) => d._id === storedId) ?? departments?.[0];
  const boardDepartment = selected?._id ?? (departments === undefined ? storedId : (fallback?._id ?? null));
  useBoardPrefetch(showsBoard(location.pathname) ? boardDepartment : null, parseFilters(location.search));

  useEffect(() => {
    if (selected !== undefined && selected._id !== storedId) setStoredId(selected._id);
  }, [selected, storedId, setStoredId]);

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

  return { membership, departments, selected, fallback, goToDepartment };
}
