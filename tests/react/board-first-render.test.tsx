// @vitest-environment jsdom
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { VIRTUALIZE_OVER } from "../../src/board/BoardColumn";
import { BoardView } from "../../src/board/BoardView";
import { applyMove } from "../../src/board/dnd";
import { showsBoard } from "../../src/shell/addresses";
import type { BoardColumnData, TaskCardData } from "../../src/board/types";
import { scrollAfterMount } from "../../src/board/virtualScroll";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function card(i: number): TaskCardData {
  return { _id: `task-${i}` as Id<"tasks">, title: `Task ${i}`, status: "inbox", priority: "medium", tags: [], assigneeSessionKeys: [], delegatedBy: undefined, order: i };
}

describe("the board's first render", () => {
  it("a virtualised column does not scroll as it mounts (element.scrollTo forced a layout mid-commit)", () => {
    const scrollTo = vi.fn();
    Object.defineProperty(HTMLElement.prototype, "scrollTo", { value: scrollTo, configurable: true, writable: true });
    const tasks = Array.from({ length: VIRTUALIZE_OVER * 2 }, (_, i) => card(i));
    const columns: BoardColumnData[] = [{ status: "inbox", truncated: false, tasks }];
    render(<BoardView columns={columns} agents={[]} />);
    expect(screen.getAllByTestId("task-card").length).toBeGreaterThan(0);
    expect(screen.getAllByTestId("task-card").length).toBeLessThan(tasks.length);
    expect(scrollTo).not.toHaveBeenCalled();
  });

  it("scrollAfterMount skips only the mount's scroll to 0; every later scroll goes through", () => {
    const scrollTo = vi.fn();
    const instance = { scrollElement: { scrollTo }, options: { horizontal: false } } as never;
    const none = { adjustments: undefined, behavior: undefined };
    const scroll = scrollAfterMount();
    scroll(0, none, instance);
    expect(scrollTo).not.toHaveBeenCalled();
    scroll(0, none, instance);
    scroll(460, none, instance);
    expect(scrollTo.mock.calls.map(([arg]) => (arg as { top: number }).top)).toEqual([0, 460]);
    // A list that mounts at a remembered offset still gets there.
    const restored = scrollAfterMount();
    restored(120, none, instance);
    expect(scrollTo).toHaveBeenCalledTimes(3);
  });

  it("a column showing its first page counts the whole column, in its header and its tab", () => {
    const columns: BoardColumnData[] = [{ status: "inbox", truncated: false, count: 400, tasks: Array.from({ length: 50 }, (_, i) => card(i)) }];
    render(<BoardView columns={columns} agents={[]} />);
    expect(within(screen.getByTestId("column-inbox")).getByTestId("column-count").textContent).toBe("400");
    expect(within(screen.getByTestId("column-inbox")).getByTestId("column-count").getAttribute("aria-label")).toBe("400 tasks");
    cleanup();
    render(<BoardView columns={columns} agents={[]} columnMode="single" />);
    expect(within(screen.getByTestId("column-tabs")).getByText("400")).toBeTruthy();
  });

  it("a move keeps first-page counts right: one less where the card left, one more where it landed", () => {
    const columns: BoardColumnData[] = [
      { status: "inbox", truncated: false, count: 400, tasks: [card(0), card(1)] },
      { status: "review", truncated: false, count: 90, tasks: [{ ...card(2), status: "review" }] },
      { status: "done", truncated: false, tasks: [] },
    ];
    const moved = applyMove(columns, { taskId: card(0)._id, status: "review", position: 0 });
    expect(moved.map((column) => column.count)).toEqual([399, 91, undefined]);
    const within_ = applyMove(columns, { taskId: card(0)._id, status: "inbox", position: 1 });
    expect(within_[0].count).toBe(400);
  });

  it("the early prefetch runs only where the board is the page", () => {
    expect(showsBoard("/")).toBe(true);
    expect(showsBoard("/d/launch")).toBe(true);
    expect(showsBoard("/d/launch/")).toBe(true);
    expect(showsBoard("/d/launch/tasks/abc123")).toBe(true);
    expect(showsBoard("/d/launch/agents/jarvis")).toBe(false);
    expect(showsBoard("/d/launch/runs")).toBe(false);
    expect(showsBoard("/d/launch/channels/c1")).toBe(false);
    expect(showsBoard("/d/launch/figures")).toBe(false);
  });
});
