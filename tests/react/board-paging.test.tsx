// @vitest-environment jsdom
/**
 * A board column pages as it scrolls: it shows its first page with the whole
 * column's count, and asks for the next page only once its list nears the
 * last card it holds; a column that holds all its cards asks for nothing.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { MAX_TASKS_PER_COLUMN } from "../../convex/lib/limits";
import { BoardView } from "../../src/board/BoardView";
import { hasMoreCards, LOAD_AHEAD_CARDS, nearEnd, nextLimit } from "../../src/board/paging";
import { columnRequests, FIRST_PAGE_CARDS } from "../../src/board/prefetch";
import type { BoardColumnData, TaskCardData } from "../../src/board/types";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function card(i: number): TaskCardData {
  return { _id: `task-${i}` as Id<"tasks">, title: `Task ${i}`, status: "inbox", priority: "medium", tags: [], assigneeSessionKeys: [], delegatedBy: undefined, order: i };
}

const page = (held: number, count?: number): BoardColumnData => ({
  status: "inbox",
  truncated: false,
  ...(count === undefined ? {} : { count }),
  tasks: Array.from({ length: held }, (_, i) => card(i)),
});

/** Scrolls the inbox column's list to `top` pixels, as a wheel or a drag of its scrollbar does. */
function scrollInbox(top: number) {
  const list = within(screen.getByTestId("column-inbox")).getAllByRole("list")[0].parentElement!;
  Object.defineProperty(list, "scrollTop", { value: top, configurable: true });
  act(() => {
    fireEvent.scroll(list);
  });
}

describe("a column pages as it scrolls", () => {
  it("asks for its next page only once its list nears the last card it holds", () => {
    const onLoadMore = vi.fn();
    render(<BoardView columns={[page(FIRST_PAGE_CARDS, 400)]} agents={[]} onLoadMore={onLoadMore} />);
    // The first screen is far from the 50th card: nothing more is asked.
    expect(within(screen.getByTestId("column-inbox")).getByTestId("column-count").textContent).toBe("400");
    expect(onLoadMore).not.toHaveBeenCalled();
    scrollInbox(1_000);
    expect(onLoadMore).not.toHaveBeenCalled();
    // Near the end of the page held: the next one is asked for, saying how many cards are held.
    scrollInbox(FIRST_PAGE_CARDS * 92);
    expect(onLoadMore).toHaveBeenCalledWith("inbox", FIRST_PAGE_CARDS);
  });

  it("a column holding all its cards asks for nothing, however far it scrolls", () => {
    const onLoadMore = vi.fn();
    render(<BoardView columns={[page(80)]} agents={[]} onLoadMore={onLoadMore} />);
    scrollInbox(80 * 92);
    expect(screen.getAllByTestId("task-card").length).toBeGreaterThan(0);
    expect(onLoadMore).not.toHaveBeenCalled();
  });

  it("past the most a column holds, it says how many it shows of how many", () => {
    render(<BoardView columns={[page(MAX_TASKS_PER_COLUMN, 1_234)]} agents={[]} onLoadMore={vi.fn()} />);
    expect(screen.getByText(`Showing the first ${MAX_TASKS_PER_COLUMN} of 1234 tasks in this column.`)).toBeTruthy();
  });
});

describe("paging rules", () => {
  it("a page more once the page asked for is in, up to the cap", () => {
    expect(nextLimit(FIRST_PAGE_CARDS, FIRST_PAGE_CARDS)).toBe(2 * FIRST_PAGE_CARDS);
    // Still loading (or a shorter column): the same limit.
    expect(nextLimit(2 * FIRST_PAGE_CARDS, FIRST_PAGE_CARDS)).toBe(2 * FIRST_PAGE_CARDS);
    expect(nextLimit(MAX_TASKS_PER_COLUMN - 10, MAX_TASKS_PER_COLUMN - 10)).toBe(MAX_TASKS_PER_COLUMN);
    expect(nextLimit(MAX_TASKS_PER_COLUMN, MAX_TASKS_PER_COLUMN)).toBe(MAX_TASKS_PER_COLUMN);
  });

  it("more cards exist while the count passes what is held, below the cap", () => {
    expect(hasMoreCards(page(50, 400))).toBe(true);
    expect(hasMoreCards(page(50))).toBe(false);
    expect(hasMoreCards(page(MAX_TASKS_PER_COLUMN, 900))).toBe(false);
    expect(nearEnd(50 - LOAD_AHEAD_CARDS, 50)).toBe(true);
    expect(nearEnd(50 - LOAD_AHEAD_CARDS - 1, 50)).toBe(false);
  });

  it("each column is asked for its first page, or the limit it paged to", () => {
    const departmentId = "dept" as Id<"departments">;
    const requests = columnRequests(departmentId, { text: "", statuses: [], mine: false }, { review: 150 });
    expect(requests.inbox?.args).toMatchObject({ departmentId, status: "inbox", limit: FIRST_PAGE_CARDS });
    expect(requests.review?.args).toMatchObject({ status: "review", limit: 150 });
  });
});
