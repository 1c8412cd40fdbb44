// A deep link opened in a fresh tab gets a page of the app below it, so Back does not leave the app.
import { useLayoutEffect } from "react";
import { useLocation, useNavigate } from "react-router";
import { addressBelow, isTaskPath } from "./addresses";
import type { TaskEntryState } from "./useTaskNavigation";

/** React Router's own index of the current entry in this tab's history (0: the tab's first). */
function historyIndex(): number | undefined {
  const state: unknown = window.history.state;
  return typeof state === "object" && state !== null && "idx" in state && typeof state.idx === "number" ? state.idx : undefined;
}

/**
 * When the tab's first entry is a deep address (a task, a run, a channel…),
 * puts the page it belongs to beneath it: the entry becomes that page and
 * the address is pushed again on top, so Back lands in the app. A task's
 * entry then counts the board below it, so closing its drawer is Back too.
 */
export function useHistoryBackstop(): void {
  const location = useLocation();
  const navigate = useNavigate();
  useLayoutEffect(() => {
    if (historyIndex() !== 0) return;
    const below = addressBelow(location.pathname);
    if (below === null) return;
    const state: TaskEntryState = isTaskPath(location.pathname) ? { tasksAboveBoard: 1 } : null;
    void navigate({ pathname: below, search: location.search }, { replace: true });
    void navigate({ pathname: location.pathname, search: location.search, hash: location.hash }, { state });
  }, [location, navigate]);
}
