import { useMutation, useQueries, useQuery } from "convex/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { CloseIcon, PlusIcon } from "../components/ui/icons";
import { userMessage } from "../lib/errors";
import { NewTaskDialog } from "../task/NewTaskDialog";
import { BoardSkeleton } from "./BoardSkeleton";
import { BoardView } from "./BoardView";
import { serverMove, type TaskMove } from "./dnd";
import { FilterBar } from "./FilterBar";
import { hasFilters, shownStatuses, useBoardFilters, type BoardFilters } from "./filters";
import { collapsedColumns, parseCollapseChoices, useColumnMode, useElementWidth, type ColumnMode } from "./layout";
import { moveTaskInStore } from "./optimistic";
import { nextLimit } from "./paging";
import { columnRequests, FIRST_PAGE_CARDS, useBoardMounted } from "./prefetch";
import type { BoardColumnData, TaskStatus } from "./types";
import { canWrite, useRole } from "../shell/role";
import { useStoredState } from "../shell/useStoredState";
import { useWaitingTasks, WaitingTasksContext } from "../shell/waiting";

type Props = {
  departmentId: Id<"departments">;
  /** Opens a card's task (its drawer over the board). */
  onOpenTask: (taskId: Id<"tasks">) => void;
  /** Side by side or one column at a time; follows the screen width when omitted. */
  columnMode?: ColumnMode;
  /** Filters owned by the caller (e.g. the router's search params); the URL-backed `useBoardFilters` when omitted. */
  filters?: BoardFilters;
  onFiltersChange?: (filters: BoardFilters) => void;
  /** Render the filter bar above the board (default), or leave it to the caller. */
  showFilterBar?: boolean;
};

/**
 * One subscription per shown column (`tasks.listColumn`), narrowed on the
 * server by the filters: a move re-runs and re-sends only the columns it
 * touches. Each column asks for its first page (with its count), and for a
 * page more each time `loadMore` says its list neared the end of what it
 * holds (paging.ts); new filters start again from first pages. Columns are
 * undefined while any column loads (the last board stays on screen
 * meanwhile); a failed column throws to the error boundary.
 */
function useColumns(departmentId: Id<"departments">, filters: BoardFilters) {
  const statuses = shownStatuses(filters);
  const board = JSON.stringify([departmentId, filters]);
  const [pages, setPages] = useState<{ board: string; limits: Partial<Record<TaskStatus, number>> }>({ board, limits: {} });
  const limits = pages.board === board ? pages.limits : {};
  const key = JSON.stringify([departmentId, filters, limits]);
  const requests = useMemo(() => {
    const [dept, shown, asked] = JSON.parse(key) as [Id<"departments">, BoardFilters, Partial<Record<TaskStatus, number>>];
    return columnRequests(dept, shown, asked);
  }, [key]);
  const loadMore = useCallback(
    (status: TaskStatus, held: number) =>
      setPages((current) => {
        const asked = current.board === board ? current.limits : {};
        const limit = asked[status] ?? FIRST_PAGE_CARDS;
        const next = nextLimit(limit, held);
        return next === limit ? current : { board, limits: { ...asked, [status]: next } };
      }),
    [board],
  );
  const results = useQueries(requests);
  let columns: BoardColumnData[] | undefined = [];
  for (const status of statuses) {
    const result: unknown = results[status];
    if (result instanceof Error) throw result;
    if (result === undefined) columns = undefined;
    else columns?.push(result as BoardColumnData);
  }
  // While new filters (or a column's next page) load, keep showing the last board rather than a skeleton.
  const [kept, setKept] = useState<BoardColumnData[] | undefined>(undefined);
  if (columns !== undefined && (kept === undefined || columns.length !== kept.length || columns.some((column, i) => column !== kept[i]))) {
    setKept(columns);
  }
  return { columns: columns ?? kept, loadMore };
}

/**
 * The live board for one department, with its "New task" button. A drop is
 * applied optimistically (the card stays where it was dropped) and a refused
 * move snaps back with its reason shown above the board. Query errors
 * propagate to the enclosing error boundary.
 */
export function Board({ departmentId, onOpenTask, columnMode: forcedMode, filters: givenFilters, onFiltersChange, showFilterBar = true }: Props) {
  const writable = canWrite(useRole());
  const [urlFilters, setUrlFilters] = useBoardFilters();
  const filters = givenFilters ?? urlFilters;
  const setFilters = onFiltersChange ?? setUrlFilters;
  const { columns, loadMore } = useColumns(departmentId, filters);
  useBoardMounted();
  const autoMode = useColumnMode();
  const columnMode = forcedMode ?? autoMode;
  const boardRef = useRef<HTMLDivElement>(null);
  const width = useElementWidth(boardRef);
  const [storedChoices, storeChoices] = useStoredState("maestro.board.folded");
  const choices = useMemo(() => parseCollapseChoices(storedChoices), [storedChoices]);
  const statusKey = shownStatuses(filters).join(",");
  // Stable while the status filter is, so the board's memoised columns stay put.
  const statuses = useMemo(() => statusKey.split(",") as TaskStatus[], [statusKey]);
  const collapsed = collapsedColumns(width, statuses, choices);
  const toggleCollapsed = useCallback(
    (status: TaskStatus) => storeChoices(JSON.stringify({ ...choices, [status]: !collapsed.has(status) })),
    [choices, collapsed, storeChoices],
  );
  const agents = useQuery(api.agents.list, { departmentId });
  const notifications = useQuery(api.notifications.listMine, { departmentId });
  const move = useMutation(api.tasks.move).withOptimisticUpdate(moveTaskInStore);
  const [creating, setCreating] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const unreadTaskIds = useMemo(() => new Set<string>(notifications?.unreadMentionTaskIds ?? []), [notifications]);
  const waitingTasks = useWaitingTasks(departmentId);

  function onMoveTask(target: TaskMove) {
    setFailure(null);
    move(serverMove(target, columns ?? [], hasFilters(filters))).catch((error: unknown) =>
      setFailure(`The task could not be moved: ${userMessage(error)}`),
    );
  }

  const loading = columns === undefined || agents === undefined;
  // Marks for bench:board's breakdown of the first render (cheap, and visible in any profiler).
  useEffect(() => {
    performance.mark("maestro:shell");
  }, []);
  useEffect(() => {
    if (columns !== undefined && performance.getEntriesByName("maestro:board-data").length === 0) performance.mark("maestro:board-data");
  }, [columns]);
  const taskCount = columns?.reduce((sum, column) => sum + (column.count ?? column.tasks.length), 0);

  return (
    <div ref={boardRef} className="flex min-h-0 min-w-0 flex-col gap-3 lg:flex-1">
      <div className="flex items-center gap-3">
        <h1 className="text-base font-semibold text-slate-900 dark:text-slate-100">Board</h1>
        {taskCount !== undefined && (
          <span className="text-sm text-slate-500 tabular-nums dark:text-slate-400">
            {taskCount} {taskCount === 1 ? "task" : "tasks"}
          </span>
        )}
        {writable && (
          <Button onClick={() => setCreating(true)} disabled={loading} className="ml-auto">
            <PlusIcon />
            New task
          </Button>
        )}
      </div>
      {showFilterBar && agents !== undefined && <FilterBar filters={filters} onChange={setFilters} agents={agents} />}
      {failure && (
        <div role="alert" className="flex items-start gap-2 rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800 ring-1 ring-rose-200 ring-inset dark:bg-rose-950/50 dark:text-rose-200 dark:ring-rose-800">
          <p className="flex-1">{failure}</p>
          <button type="button" onClick={() => setFailure(null)} aria-label="Dismiss" className="rounded p-0.5 hover:bg-rose-100 dark:hover:bg-rose-900">
            <CloseIcon />
          </button>
        </div>
      )}
      {loading ? (
        <BoardSkeleton />
      ) : (
        <WaitingTasksContext value={waitingTasks}>
          <BoardView
            columns={columns}
            agents={agents}
            unreadTaskIds={unreadTaskIds}
            onOpenTask={onOpenTask}
            onMoveTask={onMoveTask}
            readOnly={!writable}
            columnMode={columnMode}
            statuses={statuses}
            collapsed={collapsed}
            onToggleCollapsed={toggleCollapsed}
            filtered={hasFilters(filters)}
            onLoadMore={loadMore}
          />
        </WaitingTasksContext>
      )}
      {creating && agents !== undefined && (
        <NewTaskDialog departmentId={departmentId} agents={agents} onClose={() => setCreating(false)} />
      )}
    </div>
  );
}
