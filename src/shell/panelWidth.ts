/** The side panel (squad, #maestro, activity) on wide screens: its width in px, remembered. */
export const PANEL_WIDTH_KEY = "maestro.sidePanel.width";
export const DEFAULT_PANEL_WIDTH = 288;
export const MIN_PANEL_WIDTH = 240;
export const MAX_PANEL_WIDTH = 640;
/** The board keeps at least this much of the row, whatever the panel asks for. */
export const MIN_BOARD_WIDTH = 480;
/** One arrow-key press on the divider. */
export const KEYBOARD_STEP = 16;

/** A width within the limits, leaving the board its minimum in a row `rowWidth` wide. */
export function clampPanelWidth(width: number, rowWidth: number = Number.POSITIVE_INFINITY): number {
  const max = Math.max(MIN_PANEL_WIDTH, Math.min(MAX_PANEL_WIDTH, rowWidth - MIN_BOARD_WIDTH));
  if (!Number.isFinite(width)) return DEFAULT_PANEL_WIDTH;
  return Math.round(Math.min(max, Math.max(MIN_PANEL_WIDTH, width)));
}

/** A remembered width (a string from localStorage), or the default when there is none or it is not a number. */
export function parsePanelWidth(stored: string | null): number {
  if (stored === null || stored.trim() === "") return DEFAULT_PANEL_WIDTH;
  const value = Number(stored);
  return Number.isFinite(value) ? clampPanelWidth(value) : DEFAULT_PANEL_WIDTH;
}
