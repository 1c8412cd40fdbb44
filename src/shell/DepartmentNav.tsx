import { useQuery } from "convex/react";
import { NavLink } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { cn } from "../lib/cn";
import { channelsPath, commandsPath, departmentPath, eventsPath, figuresPath, runsPath } from "./addresses";

const LINK = "shrink-0 rounded-md px-2 py-1 text-sm font-medium text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800";
const ACTIVE = "bg-slate-100 text-slate-900 dark:bg-slate-800 dark:text-slate-100";

/** The side panel's parts, which a narrow screen shows in the page's place. */
const PANES = [
  { id: "chat", label: "Chat" },
  { id: "activity", label: "Activity" },
  { id: "roster", label: "Squad" },
] as const;

export type Pane = "page" | (typeof PANES)[number]["id"];

type Props = {
  departmentId: Id<"departments">;
  slug: string;
  /** Narrow screens: the side panel's parts join the row, and one of them (or the page) is shown. */
  panes?: { shown: Pane; onShow: (pane: Pane) => void };
  /** Owners and admins also get the event log. */
  isAdmin?: boolean;
};

/**
 * The department's places: the board, channels (with your unread count),
 * agent runs, the messaging figures, the command history and, for admins,
 * the event log. On a narrow screen (`panes`) the
 * same row also holds Chat, Activity and Squad: one row, with the place on
 * screen marked.
 */
export function DepartmentNav({ departmentId, slug, panes, isAdmin = false }: Props) {
  const inbox = useQuery(api.inbox.summary, { departmentId });
  const unread = inbox?.unread ?? 0;
  const pageShown = panes === undefined || panes.shown === "page";
  const showPage = () => panes?.onShow("page");
  // A page's link is marked only while the page (not a side part) is on screen.
  const linkClass = (extra?: string) => ({ isActive }: { isActive: boolean }) => cn(LINK, extra, isActive && pageShown && ACTIVE);
  return (
    <nav
      aria-label="Department"
      data-testid="department-nav"
      className={cn(
        "flex shrink-0 items-center gap-1",
        panes === undefined
          ? "-mt-2 mb-3 sm:-mt-3"
          : "sticky top-0 z-10 -mx-4 border-b border-slate-200 bg-slate-50/95 px-2 py-1.5 backdrop-blur sm:-mx-6 dark:border-slate-700 dark:bg-slate-950/95",
      )}
    >
      {/* On a phone the pages scroll sideways and Chat, Activity and Squad stay on screen at the end. */}
      <div className={cn("flex items-center gap-1", panes !== undefined && "min-w-0 flex-1 overflow-x-auto")}>
      <NavLink to={departmentPath(slug)} end onClick={showPage} aria-current={pageShown ? undefined : false} className={linkClass()}>
        Board
      </NavLink>
      <NavLink to={channelsPath(slug)} data-testid="nav-channels" onClick={showPage} aria-current={pageShown ? undefined : false} className={linkClass("inline-flex items-center gap-1")}>
        Channels
        {unread > 0 && (
          <span data-testid="nav-unread" aria-label={`${unread}${inbox?.more ? "+" : ""} unread`} className="rounded-full bg-indigo-600 px-1.5 text-xs text-white tabular-nums">
            {inbox?.more ? "99+" : unread}
          </span>
        )}
      </NavLink>
      <NavLink to={runsPath(slug)} onClick={showPage} aria-current={pageShown ? undefined : false} className={linkClass()}>
        Runs
      </NavLink>
      <NavLink to={figuresPath(slug)} data-testid="nav-figures" onClick={showPage} aria-current={pageShown ? undefined : false} className={linkClass()}>
        Figures
      </NavLink>
      <NavLink to={commandsPath(slug)} data-testid="nav-commands" onClick={showPage} aria-current={pageShown ? undefined : false} className={linkClass()}>
        Commands
      </NavLink>
      {isAdmin && (
        <NavLink to={eventsPath(slug)} data-testid="nav-events" onClick={showPage} aria-current={pageShown ? undefined : false} className={linkClass()}>
          Events
        </NavLink>
      )}
      </div>
      {panes !== undefined && (
        <div className="flex shrink-0 items-center gap-1 border-l border-slate-200 pl-1 dark:border-slate-700">
        {PANES.map((pane) => (
          <button
            key={pane.id}
            type="button"
            data-testid={`nav-pane-${pane.id}`}
            aria-current={panes.shown === pane.id ? "true" : undefined}
            onClick={() => panes.onShow(pane.id)}
            className={cn(LINK, "shrink-0", panes.shown === pane.id && ACTIVE)}
          >
            {pane.label}
          </button>
        ))}
        </div>
      )}
    </nav>
  );
}
