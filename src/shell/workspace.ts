// The signed-in person's departments, shared by the shell with the routes inside it.
import type { FunctionReturnType } from "convex/server";
import { createContext, useContext } from "react";
import type { api } from "../../convex/_generated/api";

export type Department = FunctionReturnType<typeof api.departments.listMine>[number];

export type Workspace = {
  /** Every department the person belongs to (never empty: the shell shows no routes without one). */
  departments: Department[];
  /** The department the address names, if the person belongs to it. */
  department: Department | undefined;
  /** Where "/" (or a department you cannot reach) goes: the one used last, else the first. */
  fallback: Department;
};

export const WorkspaceContext = createContext<Workspace | null>(null);

/** The shell's departments; only the routes (inside the shell) ask. */
export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext);
  if (workspace === null) throw new Error("useWorkspace is used outside the app shell");
  return workspace;
}

/** The department on screen, for the pages under `/d/:slug` (their layout route renders them only when there is one). */
export function useDepartment(): Department {
  const { department } = useWorkspace();
  if (department === undefined) throw new Error("useDepartment is used outside a department's routes");
  return department;
}
