// @vitest-environment jsdom
/**
 * Work waiting for a person (issue 27, point 2), as each place shows it: the
 * board card's badge, the roster's agent, the bell (listed first, counted),
 * and the drawer's split of pending cards (beside the composer) from decided
 * ones (folded away).
 */
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { TaskCard } from "../../src/board/TaskCard";
import { RosterList } from "../../src/roster/RosterList";
import type { Agent } from "../../src/roster/types";
import { NotificationsMenuView } from "../../src/shell/NotificationsMenu";
import { WaitingTasksContext, waitingByAgent, waitingByTask, type WaitingItem } from "../../src/shell/waiting";
import { PauseCards } from "../../src/task/PauseCards";

const results = vi.hoisted(() => new Map<string, unknown>());
vi.mock("convex/react", () => ({
  useQuery: (query: never) => results.get(getFunctionName(query)),
  useMutation: () => () => Promise.resolve(null),
}));

afterEach(() => {
  cleanup();
  results.clear();
});

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const taskId = "task-press" as Id<"tasks">;
const writerId = "agent-writer" as Id<"agents">;

const approval: WaitingItem = {
  kind: "approval",
  cardId: "ap-1" as Id<"approvals">,
  taskId,
  taskTitle: "Press release",
  agentId: writerId,
  agentName: "Writer",
  ask: "asks to run send_email (“press@example.com”)",
  since: NOW - 5 * 60_000,
  expiresAt: NOW + 3_600_000,
};
const question: WaitingItem = { ...approval, kind: "question", cardId: "q-1" as Id<"questions">, ask: "asks: Which date?", since: NOW - 60_000 };

describe("the board card", () => {
  const card = { _id: taskId, title: "Press release", status: "in_progress" as const, priority: "high" as const, tags: [], assigneeSessionKeys: [], delegatedBy: undefined, order: 0 };

  it("says what the task's run waits for, with who asks for what in its tooltip", () => {
    render(
      <WaitingTasksContext value={waitingByTask([approval, question])}>
        <ul>
          <TaskCard task={card} agentsByKey={new Map()} />
        </ul>
      </WaitingTasksContext>,
    );
    const badge = within(screen.getByTestId("card-waiting")).getByText("Waits for approval");
    expect(badge.getAttribute("title")).toBe("Writer asks to run send_email (“press@example.com”)");
  });

  it("shows nothing when nothing waits", () => {
    render(
      <ul>
        <TaskCard task={card} agentsByKey={new Map()} />
      </ul>,
    );
    expect(screen.queryByTestId("card-waiting")).toBeNull();
  });
});

describe("the roster", () => {
  it("marks the agent that waits, instead of its (idle) status, and counts the rest", () => {
    const writer: Agent = { _id: writerId, name: "Writer", role: "Copywriter", kind: "writer", sessionKey: "agent:writer", status: "idle", isSquadLead: false, allowedTools: [], model: undefined, systemPrompt: "" };
    const dev: Agent = { ...writer, _id: "agent-dev" as Id<"agents">, name: "Dev Bot", sessionKey: "agent:dev" };
    render(
      <MemoryRouter>
        <RosterList agents={[writer, dev]} isAdmin={false} onNew={() => {}} onEdit={() => {}} waiting={waitingByAgent([approval, question])} />
      </MemoryRouter>,
    );
    const [devRow, writerRow] = screen.getAllByTestId("roster-agent");
    expect(within(writerRow).getByTestId("agent-waiting").textContent).toBe("Waits for approval +1");
    expect(within(writerRow).getByTestId("agent-waiting").getAttribute("title")).toContain("Writer asks: Which date? — Press release");
    expect(within(devRow).getByTestId("agent-status").textContent).toBe("Idle");
  });
});

describe("the bell", () => {
  it("counts waiting work with the unread notifications and lists it first, who asks for what; picking one opens its task", () => {
    const onOpenTask = vi.fn();
    render(<NotificationsMenuView data={{ unreadCount: 1, unreadMentionTaskIds: [], notifications: [], dms: [] }} onOpenTask={onOpenTask} waiting={[approval]} />);
    const bell = screen.getByRole("button", { name: /Notifications, 2 unread \(1 waiting for a person\)/ });
    expect(screen.getByTestId("notification-count").textContent).toBe("2");
    fireEvent.click(bell);
    const section = screen.getByRole("region", { name: "Waiting for a person" });
    const item = within(section).getByTestId("waiting-item");
    expect(item.textContent).toContain("Writer asks to run send_email (“press@example.com”)");
    expect(item.textContent).toContain("Waits for approval on Press release");
    fireEvent.click(item);
    expect(onOpenTask).toHaveBeenCalledWith(taskId);
  });
});

describe("the drawer's cards", () => {
  const base = { runId: "run-1" as Id<"runs">, taskId, agentName: "Writer" };
  const pending = { ...base, _id: "ap-2" as Id<"approvals">, _creationTime: NOW - 1000, status: "pending" as const, toolCallId: "run-1:0", tool: "send_email", args: "{}", expiresAt: NOW + 3_600_000 };
  const decided = { ...pending, _id: "ap-1" as Id<"approvals">, _creationTime: NOW - 9000, status: "approved" as const, decidedBy: "Ada", decidedAt: NOW - 5000 };

  function show(which: "pending" | "decided") {
    results.set("approvals:listForTask", [pending, decided]);
    results.set("questions:listForTask", []);
    results.set("plans:listForTask", []);
    return render(<PauseCards taskId={taskId} now={NOW} show={which} />);
  }

  it("pending: only what still waits, open", () => {
    show("pending");
    expect(screen.getAllByTestId("approval-card").map((c) => c.dataset.state)).toEqual(["pending"]);
    expect(screen.queryByTestId("decided-cards")).toBeNull();
  });

  it("decided: folded away under a summary that counts them", () => {
    show("decided");
    const folded = screen.getByTestId("decided-cards");
    expect(folded.tagName).toBe("DETAILS");
    expect((folded as HTMLDetailsElement).open).toBe(false);
    expect(within(folded).getByText("1 decided request (approvals, questions, plans)")).toBeTruthy();
    expect(within(folded).getAllByTestId("approval-card").map((c) => c.dataset.state)).toEqual(["approved"]);
  });
});
