import { useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from "react";
import { useStoredState } from "./useStoredState";
import {
  clampPanelWidth,
  DEFAULT_PANEL_WIDTH,
  KEYBOARD_STEP,
  MAX_PANEL_WIDTH,
  MIN_PANEL_WIDTH,
  PANEL_WIDTH_KEY,
  parsePanelWidth,
} from "./panelWidth";

/**
 * The wide-screen side panel (squad, #maestro, activity) with a divider on
 * its left: drag it, or focus it and use the arrow keys, to resize; a double
 * click gives back the default. The width is remembered across reloads.
 */
export function ResizableSidePanel({ children }: { children: ReactNode }) {
  const [stored, setStored] = useStoredState(PANEL_WIDTH_KEY);
  // While dragging, the live width; remembered only on release, so a drag is one write.
  const [dragWidth, setDragWidth] = useState<number | null>(null);
  const drag = useRef<{ startX: number; startWidth: number } | null>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  const width = dragWidth ?? parsePanelWidth(stored);

  const rowWidth = () => panelRef.current?.parentElement?.clientWidth ?? Number.POSITIVE_INFINITY;
  const remember = (next: number) => setStored(String(clampPanelWidth(next, rowWidth())));

  function onPointerDown(event: PointerEvent<HTMLDivElement>) {
    if (event.button !== 0) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = { startX: event.clientX, startWidth: width };
    setDragWidth(width);
  }

  function onPointerMove(event: PointerEvent<HTMLDivElement>) {
    if (drag.current === null) return;
    // The panel is on the right: moving the divider left widens it.
    setDragWidth(clampPanelWidth(drag.current.startWidth + drag.current.startX - event.clientX, rowWidth()));
  }

  function onPointerUp() {
    if (drag.current === null) return;
    drag.current = null;
    if (dragWidth !== null) remember(dragWidth);
    setDragWidth(null);
  }

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const next =
      event.key === "ArrowLeft" ? width + KEYBOARD_STEP
      : event.key === "ArrowRight" ? width - KEYBOARD_STEP
      : event.key === "Home" ? MIN_PANEL_WIDTH
      : event.key === "End" ? MAX_PANEL_WIDTH
      : null;
    if (next === null) return;
    event.preventDefault();
    remember(next);
  }

  return (
    <>
      <div
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize the side panel"
        aria-valuenow={width}
        aria-valuemin={MIN_PANEL_WIDTH}
        aria-valuemax={MAX_PANEL_WIDTH}
        tabIndex={0}
        data-testid="panel-divider"
        title="Drag to resize; double-click to reset"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onKeyDown={onKeyDown}
        onDoubleClick={() => remember(DEFAULT_PANEL_WIDTH)}
        className="group flex w-3 shrink-0 cursor-col-resize touch-none justify-center focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        <span aria-hidden="true" className="h-full w-px bg-slate-200 group-hover:w-0.5 group-hover:bg-indigo-400 dark:bg-slate-700" />
      </div>
      <div ref={panelRef} data-testid="side-panel" style={{ width }} className="flex min-h-0 shrink-0 flex-col gap-4">
        {children}
      </div>
    </>
  );
}
