// The board's drag and drop: sensors, where a dragged card lands, the live preview while it moves, the move on drop.
import {
  closestCenter,
  getFirstCollision,
  KeyboardSensor,
  MeasuringStrategy,
  MouseSensor,
  pointerWithin,
  rectIntersection,
  TouchSensor,
  useSensor,
  useSensors,
  type Announcements,
  type CollisionDetection,
  type DragEndEvent,
  type DragOverEvent,
  type DragStartEvent,
  type UniqueIdentifier,
} from "@dnd-kit/core";
import { sortableKeyboardCoordinates } from "@dnd-kit/sortable";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { applyMove, computeDrop, locateTask, statusOfColumnDropId, statusOfDropTarget, type TaskMove } from "./dnd";
import { optionFor, STATUS_OPTIONS } from "./options";
import type { BoardColumnData, TaskCardData } from "./types";

/** While a card is dragged: which card, and the board as it would look if dropped now. */
type DragState = { activeId: string; preview: BoardColumnData[] };

// Measured while a card is dragged (and as virtualised columns mount cards meanwhile), not
// on every render before: measuring each card as the board first renders forced layouts.
const DROPPABLE_MEASURING = { droppable: { strategy: MeasuringStrategy.WhileDragging } };

const SCREEN_READER_INSTRUCTIONS = {
  draggable:
    "To move a task, press Space or Enter on its grip. Use the arrow keys to move it up or down, or to the next column. " +
    "Press Space or Enter again to drop it, or Escape to cancel.",
};

/**
 * Drag and drop over `normalized` (the board as the server has it): cards move
 * within and between columns by pointer, touch (press and hold) or keyboard;
 * while dragging, `shown` is a local preview of the board that makes room for
 * the card, and on drop `onMoveTask` gets the move. A read-only board has no
 * sensors, so nothing drags.
 */
export function useBoardDrag(normalized: BoardColumnData[], readOnly: boolean, onMoveTask: (move: TaskMove) => void) {
  const [drag, setDrag] = useState<DragState | null>(null);
  const shown = drag?.preview ?? normalized;

  const lastOverId = useRef<UniqueIdentifier | null>(null);
  // Right after a card jumps to another column the layout shifts under the
  // pointer; for a frame, stick with the last target so it doesn't bounce back.
  const recentlyMovedColumn = useRef(false);
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      recentlyMovedColumn.current = false;
    });
    return () => cancelAnimationFrame(frame);
  }, [drag?.preview]);

  const mouse = useSensor(MouseSensor, { activationConstraint: { distance: 5 } });
  // Press and hold, so a swipe still scrolls the board on a phone.
  const touch = useSensor(TouchSensor, { activationConstraint: { delay: 250, tolerance: 8 } });
  const keyboard = useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates });
  const allSensors = useSensors(mouse, touch, keyboard);
  const noSensors = useSensors();
  const sensors = readOnly ? noSensors : allSensors;

  /**
   * Columns are tall drop targets holding cards that are targets too: prefer
   * what is under the pointer, and within a column the nearest card, so the
   * card lands where the pointer is rather than at the column's end.
   */
  const collisionDetection: CollisionDetection = useCallback(
    (args) => {
      const underPointer = pointerWithin(args);
      const hits = underPointer.length > 0 ? underPointer : rectIntersection(args);
      let overId = getFirstCollision(hits, "id");
      if (overId !== null) {
        const status = statusOfColumnDropId(String(overId));
        const cardIds = new Set((shown.find((c) => c.status === status)?.tasks ?? []).map((task) => task._id as string));
        if (cardIds.size > 0) {
          const nearest = closestCenter({
            ...args,
            droppableContainers: args.droppableContainers.filter((container) => cardIds.has(String(container.id))),
          });
          overId = nearest[0]?.id ?? overId;
        }
        lastOverId.current = overId;
        return [{ id: overId }];
      }
      if (recentlyMovedColumn.current) lastOverId.current = args.active.id;
      return lastOverId.current === null ? [] : [{ id: lastOverId.current }];
    },
    [shown],
  );

  function onDragStart({ active }: DragStartEvent) {
    lastOverId.current = null;
    setDrag({ activeId: String(active.id), preview: normalized });
  }

  // Crossing into another column moves the card there in the preview, so that
  // column's cards make room; moves within a column are sortable's own animation.
  function onDragOver({ active, over }: DragOverEvent) {
    if (drag === null || over === null) return;
    const activeId = String(active.id);
    const overId = String(over.id);
    const from = locateTask(drag.preview, activeId);
    const overStatus = statusOfDropTarget(drag.preview, overId);
    if (from === null || overStatus === null || from.status === overStatus) return;
    const dragged = active.rect.current.translated;
    const below = dragged !== null && dragged.top + dragged.height / 2 > over.rect.top + over.rect.height / 2;
    const move = computeDrop(drag.preview, activeId, overId, { below });
    if (move === null) return;
    recentlyMovedColumn.current = true;
    setDrag({ activeId, preview: applyMove(drag.preview, move) });
  }

  function onDragEnd({ active, over }: DragEndEvent) {
    const current = drag;
    setDrag(null);
    if (current === null || over === null) return;
    const activeId = String(active.id);
    const last = computeDrop(current.preview, activeId, String(over.id));
    const final = last === null ? current.preview : applyMove(current.preview, last);
    const from = locateTask(normalized, activeId);
    const to = locateTask(final, activeId);
    if (from === null || to === null || (from.status === to.status && from.index === to.index)) return;
    onMoveTask({ taskId: final.find((c) => c.status === to.status)!.tasks[to.index]._id, status: to.status, position: to.index });
  }

  const announcements = useMemo(() => describeDrags(shown), [shown]);
  const activeTask = drag === null ? undefined : findTask(shown, drag.activeId);
  const originStatus = drag === null ? null : locateTask(normalized, drag.activeId)?.status;
  const targetStatus = drag === null ? null : locateTask(drag.preview, drag.activeId)?.status;

  return {
    /** The columns to draw: the preview while a card is dragged. */
    shown,
    activeId: drag?.activeId ?? null,
    activeTask,
    /** The dragged card's column before the drag, and the one it would land in now. */
    originStatus,
    targetStatus,
    /** Spread on the board's DndContext. */
    context: {
      sensors,
      collisionDetection,
      measuring: DROPPABLE_MEASURING,
      onDragStart,
      onDragOver,
      onDragEnd,
      onDragCancel: () => setDrag(null),
      accessibility: { announcements, screenReaderInstructions: SCREEN_READER_INSTRUCTIONS },
    },
  };
}

function findTask(columns: readonly BoardColumnData[], taskId: string): TaskCardData | undefined {
  const at = locateTask(columns, taskId);
  return at === null ? undefined : columns.find((c) => c.status === at.status)!.tasks[at.index];
}

/** Screen-reader announcements in the board's words: task titles, column names, positions. */
function describeDrags(columns: readonly BoardColumnData[]): Announcements {
  const title = (id: UniqueIdentifier) => findTask(columns, String(id))?.title ?? "task";
  const where = (overId: UniqueIdentifier) => {
    const card = locateTask(columns, String(overId));
    if (card !== null) {
      const column = columns.find((c) => c.status === card.status)!;
      return `in ${optionFor(STATUS_OPTIONS, card.status).label}, position ${card.index + 1} of ${column.tasks.length}`;
    }
    const status = statusOfColumnDropId(String(overId));
    return status === null ? "outside the columns" : `at the end of ${optionFor(STATUS_OPTIONS, status).label}`;
  };
  return {
    onDragStart: ({ active }) => `Picked up ${title(active.id)}.`,
    onDragOver: ({ active, over }) => (over ? `${title(active.id)} is ${where(over.id)}.` : `${title(active.id)} is not over a column.`),
    onDragEnd: ({ active, over }) => (over ? `Dropped ${title(active.id)} ${where(over.id)}.` : `${title(active.id)} stays where it was.`),
    onDragCancel: ({ active }) => `Moving ${title(active.id)} was cancelled; it stays where it was.`,
  };
}
