// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { BoardView } from "../../src/board/BoardView";
import type { BoardColumnData, RosterAgent, TaskCardData } from "../../src/board/types";

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
  {
    _id: "agent-1" as Id<"agents">,
    name: "Jarvis",
    role: "Squad Lead",
    kind: "lead",
    sessionKey: "agent:jarvis",
    status: "active",
    isSquadLead: true,
    allowedTools: ["delegate_task"],
    model: undefined,
    systemPrompt: "",
  },
  {
    _id: "agent-2" as Id<"agents">,
    name: "Ada Lovelace",
    role: "Developer",
    kind: "coder",
    sessionKey: "agent:ada",
    status: "idle",
    isSquadLead: false,
    allowedTools: [],
    model: undefined,
    systemPrompt: "",
  },
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

  it("says so when the whole board is empty", () => {
    render(<BoardView columns={[]} agents={agents} />);
    expect(screen.getByText(/This board has no tasks yet/)).toBeTruthy();
    expect(screen.getAllByText("No tasks")).toHaveLength(6);
  });
});
