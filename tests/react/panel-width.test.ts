import { describe, expect, it } from "vitest";
import {
  clampPanelWidth,
  DEFAULT_PANEL_WIDTH,
  MAX_PANEL_WIDTH,
  MIN_BOARD_WIDTH,
  MIN_PANEL_WIDTH,
  parsePanelWidth,
} from "../../src/shell/panelWidth";

describe("the side panel's width", () => {
  it("stays within its limits", () => {
    expect(clampPanelWidth(10)).toBe(MIN_PANEL_WIDTH);
    expect(clampPanelWidth(10_000)).toBe(MAX_PANEL_WIDTH);
    expect(clampPanelWidth(333.4)).toBe(333);
    expect(clampPanelWidth(Number.NaN)).toBe(DEFAULT_PANEL_WIDTH);
  });

  it("leaves the board its minimum in a narrow row, but never goes under its own minimum", () => {
    expect(clampPanelWidth(600, 1000)).toBe(1000 - MIN_BOARD_WIDTH);
    expect(clampPanelWidth(600, 500)).toBe(MIN_PANEL_WIDTH);
  });

  it("reads a remembered width, falling back to the default on junk", () => {
    expect(parsePanelWidth(null)).toBe(DEFAULT_PANEL_WIDTH);
    expect(parsePanelWidth("")).toBe(DEFAULT_PANEL_WIDTH);
    expect(parsePanelWidth("wide")).toBe(DEFAULT_PANEL_WIDTH);
    expect(parsePanelWidth("400")).toBe(400);
    expect(parsePanelWidth("99999")).toBe(MAX_PANEL_WIDTH);
  });
});
