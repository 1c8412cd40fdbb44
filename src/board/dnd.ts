import { planMove } from "../../convex/lib/ordering";
import type { Id } from "../../convex/_generated/dataModel";
import { STATUS_OPTIONS } from "./options";
import type { BoardColumnData, TaskStatus } from "./types";

/** What `tasks.move` takes: the card, its column, its 0-based index among that column's other cards. */
export type TaskMove = { taskId: Id<"tasks">; status: TaskStatus; position: number };

const COLUMN_PREFIX = "column:";

/** The drop-target id of a whole column (cards use their task id). */
export function columnDropId(status: TaskStatus): string {
  return `${COLUMN_PREFIX}${status}`;
}

/** The column a drop-target id names, or null when it is a card's id. */
export function statusOfColumnDropId(id: string): TaskStatus | null {
  if (!id.startsWith(COLUMN_PREFIX)) return null;
  const status = id.slice(COLUMN_PREFIX.length);
  return STATUS_OPTIONS.find((option) => option.value === status)?.value ?? null;
}

/** Every column in display order; a status the query left out comes back empty. */
export function normalizeColumns(columns: readonly BoardColumnData[]): BoardColumnData[] {
  const byStatus = new Map(columns.map((column) => [column.status, column]));
  return STATUS_OPTIONS.map(({ value }) => byStatus.get(value) ?? { status: value, tasks: [], truncated: false });
}

/** Where a card is: its column's status and its index there, or null when it isn't on the board. */
export function locateTask(columns: readonly BoardColumnData[], taskId: string): { status: TaskStatus; index: number } | null {
  for (const column of columns) {
    const index = column.tasks.findIndex((task) => task._id === taskId);
    if (index !== -1) return { status: column.status, index };
  }
  return null;
}

/** The column a drop target belongs to: the column itself, or the column holding the card. */
export function statusOfDropTarget(columns: readonly BoardColumnData[], overId: string): TaskStatus | null {
  return statusOfColumnDropId(overId) ?? locateTask(columns, overId)?.status ?? null;
}

/**
 * Where a card dragged from its place in `columns` lands when let go over
 * `overId` (a card or a column), or null when it would not move.
 *
 * - Over a column (its empty space or header): the end of that column.
 * - Over a card of its own column: that card's index, as in a sortable list
 *   (the card takes the place of the one it is over).
 * - Over a card of another column: just above that card, or just below it
 *   when `below` (the dragged card's middle is past the other's middle).
 */
export function computeDrop(
  columns: readonly BoardColumnData[],
  activeId: string,
  overId: string | null,
  { below = false }: { below?: boolean } = {},
): TaskMove | null {
  if (overId === null) return null;
  const from = locateTask(columns, activeId);
  if (from === null) return null;
  const taskId = columns.find((c) => c.status === from.status)!.tasks[from.index]._id;

  let move: TaskMove | null = null;
  const overColumn = statusOfColumnDropId(overId);
  if (overColumn !== null) {
    const column = columns.find((c) => c.status === overColumn);
    const others = (column?.tasks ?? []).filter((task) => task._id !== activeId);
    move = { taskId, status: overColumn, position: others.length };
  } else {
    const over = locateTask(columns, overId);
    if (over === null) return null;
    const position = over.status === from.status ? over.index : over.index + (below ? 1 : 0);
    move = { taskId, status: over.status, position };
  }
  if (move.status === from.status && move.position === from.index) return null;
  return move;
}

/**
 * `columns` with the move applied: the card taken out of its column and put
 * at `position` (clamped) in the target one, with its status and `order` set
 * as the server will set them (`planMove`), so a column stays sorted by order.
 * Returns the same array when the card isn't on the board.
 */
export function applyMove(columns: readonly BoardColumnData[], move: TaskMove): BoardColumnData[] {
  const from = locateTask(columns, move.taskId);
  if (from === null) return columns as BoardColumnData[];
  const card = columns.find((c) => c.status === from.status)!.tasks[from.index];
  // A column showing only its first page keeps its count right as the card leaves or arrives.
  const recount = (column: BoardColumnData, delta: number) => (column.count === undefined ? {} : { count: column.count + delta });
  return columns.map((column) => {
    if (column.status !== move.status) {
      if (column.status !== from.status) return column;
      return { ...column, ...recount(column, -1), tasks: column.tasks.filter((task) => task._id !== move.taskId) };
    }
    const arrived = from.status === move.status ? {} : recount(column, 1);
    const others = column.tasks.filter((task) => task._id !== move.taskId);
    const at = Math.max(0, Math.min(move.position, others.length));
    const plan = planMove(
      others.map((task) => ({ id: task._id, order: task.order })),
      move.taskId,
      at,
    );
    const moved = { ...card, status: move.status, order: plan.kind === "single" ? plan.order : card.order };
    const tasks = [...others.slice(0, at), moved, ...others.slice(at)];
    if (plan.kind === "single") return { ...column, ...arrived, tasks };
    const orderById = new Map(plan.orders.map(({ id, order }) => [id, order]));
    return { ...column, ...arrived, tasks: tasks.map((task) => ({ ...task, order: orderById.get(task._id) ?? task.order })) };
  });
}

/**
 * The move as the server takes it. A filtered board shows only some of the
 * target column's cards, so an index among them means nothing to the server:
 * it names the shown card the task lands before (or, past the last one, the
 * column's end).
 */
export function serverMove(target: TaskMove, columns: readonly BoardColumnData[], filtered: boolean): TaskMove & { beforeTaskId?: Id<"tasks"> } {
  if (!filtered) return target;
  const others = (columns.find((column) => column.status === target.status)?.tasks ?? []).filter((task) => task._id !== target.taskId);
  const before = others[target.position];
  return before === undefined ? { ...target, position: MAX_POSITION } : { ...target, beforeTaskId: before._id };
}

/** Past any column's end: the server clamps it to the last place. */
const MAX_POSITION = 1_000_000;
