/**
 * Card order within a column: a number per task, so moving one card writes
 * one document. A card dropped between two others takes the midpoint; when
 * the gap has shrunk below what a float can split, the column is renumbered.
 */

export const ORDER_STEP = 1024;
const MIN_GAP = 1e-6;

export interface Ordered {
  id: string;
  order: number;
}

export type OrderPlan =
  | { kind: "single"; order: number }
  /** Renumber the whole column: new order per id (including the moved one). */
  | { kind: "renumber"; orders: Array<{ id: string; order: number }> };

/**
 * Where `movedId` goes when dropped at `position` (0-based, clamped) among
 * `column` (sorted by order; may include the moved card itself, which is ignored).
 */
export function planMove(column: Ordered[], movedId: string, position: number): OrderPlan {
  const others = column.filter((t) => t.id !== movedId);
  const at = Math.max(0, Math.min(position, others.length));
  const before = at > 0 ? others[at - 1].order : undefined;
  const after = at < others.length ? others[at].order : undefined;
  if (before === undefined && after === undefined) return { kind: "single", order: ORDER_STEP };
  if (before === undefined) return { kind: "single", order: after! - ORDER_STEP };
  if (after === undefined) return { kind: "single", order: before + ORDER_STEP };
  if (after - before > MIN_GAP) return { kind: "single", order: before + (after - before) / 2 };
  const ids = [...others.slice(0, at).map((t) => t.id), movedId, ...others.slice(at).map((t) => t.id)];
  return { kind: "renumber", orders: ids.map((id, i) => ({ id, order: (i + 1) * ORDER_STEP })) };
}

/**
 * Order for a card added on top of a column whose first card has
 * `firstOrder`: new work shows in the board's first page however long the
 * column is (the board reads a column from its top).
 */
export function orderAtStart(firstOrder: number | undefined): number {
  return firstOrder === undefined ? ORDER_STEP : firstOrder - ORDER_STEP;
}
