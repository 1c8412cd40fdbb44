// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { BoardView } from "../../src/board/BoardView";
import type { BoardColumnData, RosterAgent, TaskCardData } from "../../src/board/types";
import { agentFixture } from "./fixtures";

afterEach(cleanup);

function task(overrides: Partial<TaskCardData> & Pick<TaskCardData, "title" | "status">): TaskCardData {
  return {
    _id: `task-${overrides.title}` as Id<"tasks">,
    priority: "medium",
    tags: [],
    assigneeSessionKeys: [],
    delegatedBy: undefined,
    order: 0,
    ...overrides,
  };
}

const agents: RosterAgent[] = [
  agentFixture({ name: "Jarvis", role: "Squad Lead", kind: "lead", sessionKey: "agent:jarvis", status: "active", isSquadLead: true, allowedTools: ["delegate_task"] }),
  agentFixture({ name: "Ada Lovelace", role: "Developer", sessionKey: "agent:ada" }),
];

const columns: BoardColumnData[] = [
  {
    status: "inbox",
    truncated: false,
    tasks: [
      task({ title: "Write the launch post", status: "inbox", priority: "high", tags: ["content", "launch"] }),
      task({ title: "Triage bug reports", status: "inbox", priority: "low" }),
    ],
  },
  {
    status: "in_progress",
    truncated: true,
    tasks: [
      task({
        title: "Build the board",
        status: "in_progress",
        assigneeSessionKeys: ["agent:ada", "agent:jarvis"],
        delegatedBy: "agent:jarvis",
      }),
    ],
  },
  { status: "assigned", truncated: false, tasks: [] },
  { status: "review", truncated: false, tasks: [] },
  { status: "done", truncated: false, tasks: [] },
  // "blocked" left out on purpose: the board must still show it, empty.
];

function column(status: string) {
  return screen.getByTestId(`column-${status}`);
}

describe("BoardView", () => {
  it("shows every column in order with its label and count", () => {
    render(<BoardView columns={columns} agents={agents} />);

    const board = screen.getByTestId("board");
    const order = Array.from(board.querySelectorAll("[data-testid^='column-']"))
      .map((el) => el.getAttribute("data-testid"))
      .filter((id) => id !== "column-count");
    expect(order).toEqual([
      "column-inbox",
      "column-assigned",
      "column-in_progress",
      "column-review",
      "column-done",
      "column-blocked",
    ]);
    expect(within(column("inbox")).getByRole("heading").textContent).toBe("Inbox");
    expect(within(column("in_progress")).getByRole("heading").textContent).toBe("In progress");
    expect(within(column("inbox")).getByTestId("column-count").textContent).toBe("2");
    expect(within(column("assigned")).getByTestId("column-count").textContent).toBe("0");
  });

  it("renders cards with priority, tags and no delegated badge when not delegated", () => {
    render(<BoardView columns={columns} agents={agents} />);

    const cards = within(column("inbox")).getAllByTestId("task-card");
    expect(cards).toHaveLength(2);
    const launch = cards[0];
    expect(within(launch).getByText("Write the launch post")).toBeTruthy();
    expect(within(launch).getByText("High")).toBeTruthy();
    expect(within(launch).getByText("content")).toBeTruthy();
    expect(within(launch).getByText("launch")).toBeTruthy();
    expect(within(launch).queryByText("Delegated")).toBeNull();
    expect(within(cards[1]).getByText("Low")).toBeTruthy();
  });

  it("shows assignee initials from the roster and the delegated badge", () => {
    render(<BoardView columns={columns} agents={agents} />);

    const card = within(column("in_progress")).getByTestId("task-card");
    expect(within(card).getByText("Delegated")).toBeTruthy();
    expect(within(card).getByLabelText("Assigned to Ada Lovelace").textContent).toBe("AL");
    expect(within(card).getByLabelText("Assigned to Jarvis").textContent).toBe("JA");
  });

  it("says when a column is empty or truncated", () => {
    render(<BoardView columns={columns} agents={agents} />);

    expect(within(column("review")).getByText("No tasks")).toBeTruthy();
    expect(within(column("blocked")).getByText("No tasks")).toBeTruthy();
    expect(within(column("inbox")).queryByText("No tasks")).toBeNull();
    expect(within(column("in_progress")).getByText(/Showing the first 1 tasks/)).toBeTruthy();
    expect(within(column("inbox")).queryByText(/Showing the first/)).toBeNull();
  });

  it("marks tasks with an unread mention and names the delegating agent", () => {
    render(<BoardView columns={columns} agents={agents} unreadTaskIds={new Set(["task-Build the board"])} />);

    const card = within(column("in_progress")).getByTestId("task-card");
    expect(within(card).getByText("Unread mention")).toBeTruthy();
    expect(within(card).getByText("Delegated").getAttribute("title")).toBe("Delegated by Jarvis");
    const inbox = within(column("inbox")).getAllByTestId("task-card");
    expect(within(inbox[0]).queryByText("Unread mention")).toBeNull();
  });

  it("opens a task when its card is clicked, and gives each card a keyboard grip", () => {
    const onOpenTask = vi.fn();
    render(<BoardView columns={columns} agents={agents} onOpenTask={onOpenTask} />);

    fireEvent.click(screen.getByRole("button", { name: "Write the launch post" }));
    expect(onOpenTask).toHaveBeenCalledWith("task-Write the launch post");
    const grip = screen.getByRole("button", { name: "Move Triage bug reports" });
    expect(grip.getAttribute("aria-roledescription")).toBe("sortable");
  });

  it("a read-only board (a viewer's) opens cards but offers no grip to move them", () => {
    const onOpenTask = vi.fn();
    render(<BoardView columns={columns} agents={agents} onOpenTask={onOpenTask} readOnly />);
    fireEvent.click(screen.getByRole("button", { name: "Write the launch post" }));
    expect(onOpenTask).toHaveBeenCalledWith("task-Write the launch post");
    expect(screen.queryAllByRole("button", { name: /^Move / })).toEqual([]);
  });

  it("says so when the whole board is empty", () => {
    render(<BoardView columns={[]} agents={agents} />);
    expect(screen.getByText(/This board has no tasks yet/)).toBeTruthy();
    expect(screen.getAllByText("No tasks")).toHaveLength(6);
  });
});

describe("BoardView layouts and keys", () => {
  it("folds a column to a strip that keeps its name and count, and unfolds on a click", () => {
    const onToggle = vi.fn();
    const withDone = columns.map((c) => (c.status === "done" ? { ...c, tasks: [task({ title: "Shipped", status: "done" })] } : c));
    render(<BoardView columns={withDone} agents={agents} collapsed={new Set(["done"])} onToggleCollapsed={onToggle} />);
    const done = column("done");
    expect(done.hasAttribute("data-collapsed")).toBe(true);
    expect(within(done).getByRole("heading", { name: "Done" })).toBeTruthy();
    expect(within(done).getByTestId("column-count").textContent).toBe("1");
    expect(within(done).queryByTestId("task-card")).toBeNull();
    fireEvent.click(within(done).getByRole("button", { name: "Show the Done column" }));
    expect(onToggle).toHaveBeenCalledWith("done");
    // Only Done and Blocked fold.
    fireEvent.click(within(column("blocked")).getByRole("button", { name: "Fold the Blocked column" }));
    expect(onToggle).toHaveBeenCalledWith("blocked");
    expect(within(column("inbox")).queryByRole("button", { name: /Fold/ })).toBeNull();
  });

  it("one column at a time shows a tab per column with its count; a status filter shows only its columns", () => {
    render(<BoardView columns={columns} agents={agents} columnMode="single" statuses={["inbox", "in_progress"]} />);
    expect(screen.getByTestId("board").getAttribute("data-column-mode")).toBe("single");
    const tabs = within(screen.getByTestId("column-tabs")).getAllByRole("button");
    expect(tabs.map((tab) => tab.textContent)).toEqual(["Inbox2", "In progress1"]);
    expect(tabs[0].getAttribute("aria-current")).toBe("true");
    expect(screen.queryByTestId("column-done")).toBeNull();
  });

  it("says when filters leave nothing, instead of the empty-board hint", () => {
    render(<BoardView columns={[]} agents={agents} filtered />);
    expect(screen.getByText("No tasks match these filters.")).toBeTruthy();
    expect(screen.queryByText(/This board has no tasks yet/)).toBeNull();
  });

  it("j and k move the focus between cards, skipping keys typed into a field; Enter opens", () => {
    const onOpen = vi.fn();
    // jsdom has no layout, so no scrollIntoView; the board calls it to bring the focused card into view.
    Element.prototype.scrollIntoView = vi.fn();
    render(
      <>
        <input aria-label="elsewhere" />
        <BoardView columns={columns} agents={agents} onOpenTask={onOpen} />
      </>,
    );
    const focusedTitle = () => (document.activeElement as HTMLElement | null)?.textContent;
    fireEvent.keyDown(document.body, { key: "j" });
    expect(focusedTitle()).toBe("Write the launch post");
    fireEvent.keyDown(document.activeElement!, { key: "j" });
    fireEvent.keyDown(document.activeElement!, { key: "j" });
    expect(focusedTitle()).toBe("Build the board");
    fireEvent.keyDown(document.activeElement!, { key: "k" });
    expect(focusedTitle()).toBe("Triage bug reports");
    const field = screen.getByRole("textbox", { name: "elsewhere" });
    field.focus();
    fireEvent.keyDown(field, { key: "j" });
    expect(document.activeElement).toBe(field);
    // The card is a button: Enter (a click) opens it.
    screen.getByRole("button", { name: "Triage bug reports" }).click();
    expect(onOpen).toHaveBeenCalledWith("task-Triage bug reports");
  });
});
