import { describe, expect, it } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { applyMove, columnDropId, computeDrop, normalizeColumns, statusOfColumnDropId } from "../../src/board/dnd";
import { moveTaskInStore, patchTaskInStore, setStatusInStore } from "../../src/board/optimistic";
import type { BoardColumnData, TaskCardData, TaskStatus } from "../../src/board/types";
import { fakeLocalStore } from "./fakeLocalStore";

const id = (name: string) => name as Id<"tasks">;

function card(name: string, status: TaskStatus, order: number): TaskCardData {
  return { _id: id(name), title: name, status, priority: "medium", tags: [], assigneeSessionKeys: [], delegatedBy: undefined, order };
}

/** Inbox: a, b, c; In progress: x, y; the rest empty. */
function board(): BoardColumnData[] {
  return normalizeColumns([
    { status: "inbox", truncated: false, tasks: [card("a", "inbox", 1024), card("b", "inbox", 2048), card("c", "inbox", 3072)] },
    { status: "in_progress", truncated: false, tasks: [card("x", "in_progress", 1024), card("y", "in_progress", 2048)] },
  ]);
}

const titles = (columns: BoardColumnData[], status: TaskStatus) => columns.find((c) => c.status === status)!.tasks.map((t) => t.title);

describe("column drop ids", () => {
  it("round-trip, and card ids are not columns", () => {
    expect(statusOfColumnDropId(columnDropId("review"))).toBe("review");
    expect(statusOfColumnDropId("column:nonsense")).toBeNull();
    expect(statusOfColumnDropId("a")).toBeNull();
  });
});

describe("computeDrop", () => {
  it("moves down within a column to the index of the card it is over", () => {
    expect(computeDrop(board(), "a", "c")).toEqual({ taskId: "a", status: "inbox", position: 2 });
    expect(computeDrop(board(), "a", "b")).toEqual({ taskId: "a", status: "inbox", position: 1 });
  });

  it("moves up within a column", () => {
    expect(computeDrop(board(), "c", "a")).toEqual({ taskId: "c", status: "inbox", position: 0 });
  });

  it("is null when the card would stay where it is", () => {
    expect(computeDrop(board(), "b", "b")).toBeNull();
    expect(computeDrop(board(), "c", columnDropId("inbox"))).toBeNull();
    expect(computeDrop(board(), "a", null)).toBeNull();
    expect(computeDrop(board(), "nope", "a")).toBeNull();
    expect(computeDrop(board(), "a", "unknown-card")).toBeNull();
  });

  it("goes above the card it is over in another column, or below it", () => {
    expect(computeDrop(board(), "a", "y")).toEqual({ taskId: "a", status: "in_progress", position: 1 });
    expect(computeDrop(board(), "a", "y", { below: true })).toEqual({ taskId: "a", status: "in_progress", position: 2 });
    expect(computeDrop(board(), "a", "x")).toEqual({ taskId: "a", status: "in_progress", position: 0 });
  });

  it("goes to the end of a column dropped on as a whole, empty or not", () => {
    expect(computeDrop(board(), "b", columnDropId("done"))).toEqual({ taskId: "b", status: "done", position: 0 });
    expect(computeDrop(board(), "b", columnDropId("in_progress"))).toEqual({ taskId: "b", status: "in_progress", position: 2 });
    expect(computeDrop(board(), "a", columnDropId("inbox"))).toEqual({ taskId: "a", status: "inbox", position: 2 });
  });
});

describe("applyMove", () => {
  it("reorders within a column and keeps the column sorted by order", () => {
    const next = applyMove(board(), { taskId: id("a"), status: "inbox", position: 2 });
    expect(titles(next, "inbox")).toEqual(["b", "c", "a"]);
    const orders = next.find((c) => c.status === "inbox")!.tasks.map((t) => t.order);
    expect([...orders].sort((p, q) => p - q)).toEqual(orders);
  });

  it("moves a card to another column with its new status, between its neighbours", () => {
    const next = applyMove(board(), { taskId: id("b"), status: "in_progress", position: 1 });
    expect(titles(next, "inbox")).toEqual(["a", "c"]);
    expect(titles(next, "in_progress")).toEqual(["x", "b", "y"]);
    const moved = next.find((c) => c.status === "in_progress")!.tasks[1];
    expect(moved.status).toBe("in_progress");
    expect(moved.order).toBeGreaterThan(1024);
    expect(moved.order).toBeLessThan(2048);
  });

  it("clamps a position past the end, and leaves the input untouched", () => {
    const before = board();
    const snapshot = JSON.stringify(before);
    const next = applyMove(before, { taskId: id("x"), status: "done", position: 99 });
    expect(titles(next, "done")).toEqual(["x"]);
    expect(JSON.stringify(before)).toBe(snapshot);
  });

  it("renumbers a column whose gap is too small to split", () => {
    const tight = normalizeColumns([
      { status: "inbox", truncated: false, tasks: [card("a", "inbox", 1), card("b", "inbox", 1 + 1e-7), card("c", "inbox", 5)] },
    ]);
    const next = applyMove(tight, { taskId: id("c"), status: "inbox", position: 1 });
    const inbox = next.find((col) => col.status === "inbox")!.tasks;
    expect(inbox.map((t) => t.title)).toEqual(["a", "c", "b"]);
    expect(inbox.map((t) => t.order)).toEqual([1024, 2048, 3072]);
  });
});

describe("optimistic updates on the local store", () => {
  const departmentId = "dept-1" as Id<"departments">;

  it("moveTaskInStore moves the card in the loaded board and the open task's status", () => {
    const store = fakeLocalStore();
    store.setQuery(api.tasks.list, { departmentId }, board());
    const otherBoard = normalizeColumns([{ status: "inbox", truncated: false, tasks: [card("q", "inbox", 1024)] }]);
    store.setQuery(api.tasks.list, { departmentId: "dept-2" as Id<"departments"> }, otherBoard);
    const detail = { ...card("a", "inbox", 1024), _creationTime: 1, departmentId, description: "", createdBy: "system", updatedAt: 1, parentTitle: undefined };
    const { order: _order, ...detailWithoutOrder } = detail;
    store.setQuery(api.tasks.get, { taskId: id("a") }, detailWithoutOrder);

    moveTaskInStore(store, { taskId: id("a"), status: "review", position: 0 });

    const next = store.getQuery(api.tasks.list, { departmentId })!;
    expect(titles(next, "inbox")).toEqual(["b", "c"]);
    expect(titles(next, "review")).toEqual(["a"]);
    expect(store.getQuery(api.tasks.get, { taskId: id("a") })!.status).toBe("review");
    // A board without the card is left alone.
    expect(store.getQuery(api.tasks.list, { departmentId: "dept-2" as Id<"departments"> })).toBe(otherBoard);
  });

  it("moveTaskInStore skips boards still loading", () => {
    const store = fakeLocalStore();
    store.setQuery(api.tasks.list, { departmentId }, undefined);
    expect(() => moveTaskInStore(store, { taskId: id("a"), status: "done", position: 0 })).not.toThrow();
    expect(store.getQuery(api.tasks.list, { departmentId })).toBeUndefined();
  });

  it("setStatusInStore puts the card on top of its new column", () => {
    const store = fakeLocalStore();
    store.setQuery(api.tasks.list, { departmentId }, board());
    setStatusInStore(store, { taskId: id("a"), status: "in_progress" });
    expect(titles(store.getQuery(api.tasks.list, { departmentId })!, "in_progress")).toEqual(["a", "x", "y"]);
  });

  it("patchTaskInStore edits the card in place", () => {
    const store = fakeLocalStore();
    store.setQuery(api.tasks.list, { departmentId }, board());
    patchTaskInStore(store, { taskId: id("b"), title: "  Renamed  ", tags: [" ui ", ""], priority: "high" });
    const b = store.getQuery(api.tasks.list, { departmentId })!.find((c) => c.status === "inbox")!.tasks[1];
    expect(b).toMatchObject({ title: "Renamed", tags: ["ui"], priority: "high", order: 2048 });
  });
});
