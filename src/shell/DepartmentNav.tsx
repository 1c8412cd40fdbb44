import { useQuery } from "convex/react";
import { NavLink } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { cn } from "../lib/cn";
import { channelsPath, departmentPath, figuresPath, runsPath } from "./addresses";

const LINK = "rounded-md px-2 py-1 text-sm font-medium text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800";
const ACTIVE = "bg-slate-100 text-slate-900 dark:bg-slate-800 dark:text-slate-100";

/** The department's places: the board, channels (with your unread count), agent runs and the messaging figures. */
export function DepartmentNav({ departmentId, slug }: { departmentId: Id<"departments">; slug: string }) {
  const inbox = useQuery(api.inbox.summary, { departmentId });
  const unread = inbox?.unread ?? 0;
  return (
    <nav aria-label="Department" className="-mt-2 mb-3 flex shrink-0 items-center gap-1 sm:-mt-3">
      <NavLink to={departmentPath(slug)} end className={({ isActive }) => cn(LINK, isActive && ACTIVE)}>
        Board
      </NavLink>
      <NavLink to={channelsPath(slug)} data-testid="nav-channels" className={({ isActive }) => cn(LINK, "inline-flex items-center gap-1", isActive && ACTIVE)}>
        Channels
        {unread > 0 && (
          <span data-testid="nav-unread" aria-label={`${unread}${inbox?.more ? "+" : ""} unread`} className="rounded-full bg-indigo-600 px-1.5 text-xs text-white tabular-nums">
            {inbox?.more ? "99+" : unread}
          </span>
        )}
      </NavLink>
      <NavLink to={runsPath(slug)} className={({ isActive }) => cn(LINK, isActive && ACTIVE)}>
        Runs
      </NavLink>
      <NavLink to={figuresPath(slug)} data-testid="nav-figures" className={({ isActive }) => cn(LINK, isActive && ACTIVE)}>
        Figures
      </NavLink>
    </nav>
  );
}
