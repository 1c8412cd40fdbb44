import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";

type Department = FunctionReturnType<typeof api.departments.listMine>[number];

type Props = {
  departments: Department[];
  selectedId: string;
  onSelect: (id: string) => void;
  /** Offered to owners and admins: "New department…" at the end of the menu. */
  onCreate?: () => void;
};

/** The menu entry that opens the new-department dialog instead of switching. */
const NEW_DEPARTMENT = "new-department";

/** Picks which department's board is shown; owners and admins also make a new department from it. */
export function DepartmentSwitcher({ departments, selectedId, onSelect, onCreate }: Props) {
  return (
    <label className="flex min-w-0 items-center gap-2 text-sm text-slate-600 dark:text-slate-300">
      <span className="sr-only xl:not-sr-only">Department</span>
      <select
        value={selectedId}
        onChange={(event) => (event.target.value === NEW_DEPARTMENT ? onCreate?.() : onSelect(event.target.value))}
        className="min-w-28 flex-1 rounded-lg md:max-w-64 md:flex-initial border-0 bg-white py-1.5 pr-8 pl-3 text-sm font-medium text-slate-900 ring-1 ring-slate-300 ring-inset focus:ring-2 focus:ring-indigo-600 dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-600"
      >
        {departments.map((department) => (
          <option key={department._id} value={department._id}>
            {department.name}
          </option>
        ))}
        {onCreate !== undefined && <option value={NEW_DEPARTMENT}>+ New department…</option>}
      </select>
    </label>
  );
}
