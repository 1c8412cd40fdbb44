import { act, renderHook } from "@testing-library/react";
import { createElement } from "react";
import { MemoryRouter, useLocation, useNavigate, useNavigationType } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { serverMove } from "../../src/board/dnd";
import { filterArgs, hasFilters, NO_FILTERS, parseFilters, shownStatuses, useBoardFilters, writeFilters } from "../../src/board/filters";
import { collapsedColumns, COLUMN_GAP_PX, COLUMN_MIN_PX, parseCollapseChoices } from "../../src/board/layout";
import { moveTaskInStore, patchTaskInStore, setStatusInStore } from "../../src/board/optimistic";
import { BOARD_SHORTCUTS, isTypingTarget, nextCardId } from "../../src/board/shortcuts";
import type { BoardColumnData, TaskCardData, TaskStatus } from "../../src/board/types";
import { fakeLocalStore } from "./fakeLocalStore";

const id = (name: string) => name as Id<"tasks">;
const departmentId = "dept-1" as Id<"departments">;

function card(name: string, status: TaskStatus, order: number): TaskCardData {
  return { _id: id(name), title: name, status, priority: "medium", tags: [], assigneeSessionKeys: [], delegatedBy: undefined, order };
}
const column = (status: TaskStatus, ...tasks: TaskCardData[]): BoardColumnData => ({ status, truncated: false, tasks });
const titles = (value: BoardColumnData | undefined) => value?.tasks.map((task) => task.title);

describe("filters in the URL", () => {
  afterEach(() => window.history.replaceState(null, "", "/"));

  it("round-trip through the query string, keeping other parameters", () => {
    const filters = { text: "launch copy", assignee: "agent:writer:product", tag: "web", priority: "high" as const, statuses: ["review" as const, "done" as const], mine: true };
    const search = writeFilters("?invite=abc", filters);
    expect(search).toContain("invite=abc");
    expect(parseFilters(search)).toEqual(filters);
    expect(writeFilters("?q=x&tag=y", NO_FILTERS)).toBe("");
  });

  it("drop what they don't know: a typo'd priority or status, an empty value", () => {
    expect(parseFilters("?priority=urgent&status=inbox,nope,inbox&assignee=&mine=yes")).toEqual({
      text: "",
      assignee: undefined,
      tag: undefined,
      priority: undefined,
      statuses: ["inbox"],
      mine: false,
    });
  });

  it("say whether anything narrows, which columns show, and what the server is asked", () => {
    expect(hasFilters(NO_FILTERS)).toBe(false);
    expect(hasFilters({ ...NO_FILTERS, text: "  " })).toBe(false);
    expect(hasFilters({ ...NO_FILTERS, mine: true })).toBe(true);
    expect(shownStatuses(NO_FILTERS)).toHaveLength(6);
    expect(shownStatuses({ ...NO_FILTERS, statuses: ["done", "inbox"] })).toEqual(["inbox", "done"]);
    expect(filterArgs(NO_FILTERS)).toEqual({});
    expect(filterArgs({ ...NO_FILTERS, text: " api ", priority: "low", mine: true })).toEqual({ text: "api", priority: "low", mine: true });
  });

  it("useBoardFilters reads the address, writes it in place through the router, and follows back/forward", () => {
    const { result } = renderHook(() => ({ filters: useBoardFilters(), location: useLocation(), type: useNavigationType(), navigate: useNavigate() }), {
      wrapper: ({ children }) =>
        createElement(MemoryRouter, { initialEntries: ["/d/p?priority=high", { pathname: "/d/p", search: "?tag=web", hash: "#x", state: { fromBoard: true } }], initialIndex: 1 }, children),
    });
    const [filters, setFilters] = result.current.filters;
    expect(filters.tag).toBe("web");

    act(() => setFilters({ ...filters, text: "pricing", tag: undefined }));
    expect(result.current.filters[0]).toMatchObject({ text: "pricing", tag: undefined });
    expect(result.current.location).toMatchObject({ search: "?q=pricing", hash: "#x", state: { fromBoard: true } });
    expect(result.current.type).toBe("REPLACE");

    act(() => void result.current.navigate(-1));
    expect(result.current.filters[0]).toEqual({ ...NO_FILTERS, priority: "high" });
  });
});

describe("column layout", () => {
  const all: TaskStatus[] = ["inbox", "assigned", "in_progress", "review", "done", "blocked"];
  const fits = all.length * COLUMN_MIN_PX + (all.length - 1) * COLUMN_GAP_PX;

  it("folds Done and Blocked only when the six columns don't fit, and never before the width is known", () => {
    expect([...collapsedColumns(fits, all, {})]).toEqual([]);
    expect([...collapsedColumns(fits - 1, all, {})]).toEqual(["done", "blocked"]);
    expect([...collapsedColumns(0, all, {})]).toEqual([]);
    // Fewer columns shown (a status filter) fit in less.
    expect([...collapsedColumns(500, ["inbox", "done"], {})]).toEqual([]);
  });

  it("lets the person's choice win either way", () => {
    expect([...collapsedColumns(fits - 1, all, { done: false })]).toEqual(["blocked"]);
    expect([...collapsedColumns(fits + 500, all, { blocked: true })]).toEqual(["blocked"]);
  });

  it("reads stored choices, ignoring anything malformed", () => {
    expect(parseCollapseChoices('{"done":true,"blocked":"yes"}')).toEqual({ done: true });
    expect(parseCollapseChoices("not json")).toEqual({});
    expect(parseCollapseChoices("null")).toEqual({});
    expect(parseCollapseChoices(null)).toEqual({});
  });
});

describe("board keys", () => {
  const columns = [column("inbox", card("a", "inbox", 1), card("b", "inbox", 2)), column("assigned"), column("review", card("c", "review", 1))];

  it("j and k walk column by column and stop at the ends", () => {
    expect(nextCardId(columns, null, 1)).toBe("a");
    expect(nextCardId(columns, null, -1)).toBe("c");
    expect(nextCardId(columns, "b", 1)).toBe("c");
    expect(nextCardId(columns, "c", 1)).toBe("c");
    expect(nextCardId(columns, "c", -1)).toBe("b");
    expect(nextCardId(columns, "a", -1)).toBe("a");
    expect(nextCardId([column("inbox")], null, 1)).toBeNull();
  });

  it("leave typing alone, and are listed for the help overlay", () => {
    const input = document.createElement("input");
    const button = document.createElement("button");
    const editable = document.createElement("div");
    editable.contentEditable = "true";
    Object.defineProperty(editable, "isContentEditable", { value: true });
    expect(isTypingTarget(input)).toBe(true);
    expect(isTypingTarget(editable)).toBe(true);
    expect(isTypingTarget(button)).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
    expect(BOARD_SHORTCUTS.map((shortcut) => shortcut.keys[0])).toEqual(["j", "k", "Enter", "Space"]);
  });
});

describe("moves on a filtered board", () => {
  const columns = [column("inbox", card("a", "inbox", 1)), column("review", card("x", "review", 1), card("y", "review", 5))];

  it("are sent as they are when nothing is filtered", () => {
    const move = { taskId: id("a"), status: "review" as const, position: 1 };
    expect(serverMove(move, columns, false)).toBe(move);
  });

  it("name the shown card they land before, or go to the column's end past the last one", () => {
    expect(serverMove({ taskId: id("a"), status: "review", position: 1 }, columns, true)).toEqual({
      taskId: id("a"),
      status: "review",
      position: 1,
      beforeTaskId: id("y"),
    });
    const last = serverMove({ taskId: id("a"), status: "review", position: 2 }, columns, true);
    expect(last.beforeTaskId).toBeUndefined();
    expect(last.position).toBeGreaterThanOrEqual(1_000);
  });
});

describe("optimistic updates on per-column queries", () => {
  it("move the card out of its column query and into the target column's, per set of filters", () => {
    const store = fakeLocalStore();
    const base = { departmentId };
    const filtered = { departmentId, tag: "web" };
    store.setQuery(api.tasks.listColumn, { ...base, status: "inbox" }, column("inbox", card("a", "inbox", 1024), card("b", "inbox", 2048)));
    store.setQuery(api.tasks.listColumn, { ...base, status: "review" }, column("review", card("x", "review", 1024)));
    const untouched = column("done");
    store.setQuery(api.tasks.listColumn, { ...base, status: "done" }, untouched);
    store.setQuery(api.tasks.listColumn, { ...filtered, status: "inbox" }, column("inbox", card("a", "inbox", 1024)));
    store.setQuery(api.tasks.listColumn, { ...filtered, status: "review" }, column("review"));
    store.setQuery(api.tasks.listColumn, { ...base, status: "assigned" }, undefined);

    moveTaskInStore(store, { taskId: id("a"), status: "review", position: 1 });

    expect(titles(store.getQuery(api.tasks.listColumn, { ...base, status: "inbox" }))).toEqual(["b"]);
    const review = store.getQuery(api.tasks.listColumn, { ...base, status: "review" })!;
    expect(titles(review)).toEqual(["x", "a"]);
    expect(review.tasks[1]).toMatchObject({ status: "review", order: 2048 });
    expect(store.getQuery(api.tasks.listColumn, { ...base, status: "done" })).toBe(untouched);
    expect(titles(store.getQuery(api.tasks.listColumn, { ...filtered, status: "inbox" }))).toEqual([]);
    expect(titles(store.getQuery(api.tasks.listColumn, { ...filtered, status: "review" }))).toEqual(["a"]);
    expect(store.getQuery(api.tasks.listColumn, { ...base, status: "assigned" })).toBeUndefined();
  });

  it("columns paged to different sizes are one board: the card leaves one and lands in the other", () => {
    const store = fakeLocalStore();
    store.setQuery(api.tasks.listColumn, { departmentId, status: "inbox", limit: 100 }, { ...column("inbox", card("a", "inbox", 1024), card("b", "inbox", 2048)), count: 300 });
    store.setQuery(api.tasks.listColumn, { departmentId, status: "review", limit: 50 }, { ...column("review", card("x", "review", 1024)), count: 80 });
    moveTaskInStore(store, { taskId: id("a"), status: "review", position: 0 });
    const inbox = store.getQuery(api.tasks.listColumn, { departmentId, status: "inbox", limit: 100 })!;
    const review = store.getQuery(api.tasks.listColumn, { departmentId, status: "review", limit: 50 })!;
    expect([titles(inbox), inbox.count]).toEqual([["b"], 299]);
    expect([titles(review), review.count]).toEqual([["a", "x"], 81]);
  });

  it("a move to a column not loaded (hidden by the status filter) takes the card off the board", () => {
    const store = fakeLocalStore();
    store.setQuery(api.tasks.listColumn, { departmentId, status: "inbox" }, column("inbox", card("a", "inbox", 1024)));
    moveTaskInStore(store, { taskId: id("a"), status: "done", position: 0, beforeTaskId: id("z") });
    expect(titles(store.getQuery(api.tasks.listColumn, { departmentId, status: "inbox" }))).toEqual([]);
  });

  it("setStatus and edits reach the column queries too", () => {
    const store = fakeLocalStore();
    store.setQuery(api.tasks.listColumn, { departmentId, status: "inbox" }, column("inbox", card("a", "inbox", 1024)));
    store.setQuery(api.tasks.listColumn, { departmentId, status: "done" }, column("done", card("d", "done", 1024)));
    patchTaskInStore(store, { taskId: id("a"), title: "  Renamed  ", tags: ["web"] });
    expect(store.getQuery(api.tasks.listColumn, { departmentId, status: "inbox" })!.tasks[0]).toMatchObject({ title: "Renamed", tags: ["web"] });
    setStatusInStore(store, { taskId: id("a"), status: "done" });
    expect(titles(store.getQuery(api.tasks.listColumn, { departmentId, status: "done" }))).toEqual(["Renamed", "d"]);
    expect(titles(store.getQuery(api.tasks.listColumn, { departmentId, status: "inbox" }))).toEqual([]);
  });
});
