import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { TaskDrawer, TaskDrawerView } from "../../src/task/TaskDrawer";
import type { Member, TaskDetail, TaskEdits } from "../../src/task/TaskDetails";
import type { ThreadMessage } from "../../src/task/Thread";
import { agentFixture } from "./fixtures";

// The container's hooks, answered per function; the view needs none of them.
const queryResults = new Map<string, unknown>();
const mutations = new Map<string, ReturnType<typeof vi.fn>>();
function mutationFor(name: string) {
  if (!mutations.has(name)) {
    const fn = Object.assign(
      vi.fn(() => Promise.resolve(null)),
      { withOptimisticUpdate: () => fn },
    );
    mutations.set(name, fn);
  }
  return mutations.get(name)!;
}
vi.mock("convex/react", () => ({
  useQuery: (query: never, args: unknown) => (args === "skip" ? undefined : queryResults.get(getFunctionName(query))),
  usePaginatedQuery: (query: never) => queryResults.get(getFunctionName(query)),
  useMutation: (mutation: never) => mutationFor(getFunctionName(mutation)),
  useAction: (action: never) => mutationFor(getFunctionName(action)),
}));

afterEach(() => {
  cleanup();
  queryResults.clear();
  mutations.clear();
});

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const taskId = "task-1" as Id<"tasks">;
const departmentId = "dept-1" as Id<"departments">;

const task: TaskDetail = {
  _id: taskId,
  _creationTime: NOW - 2 * 3_600_000,
  departmentId,
  title: "Signup API rate limits",
  description: "Per-IP and **per-account** limits.",
  status: "in_progress",
  priority: "high",
  tags: ["api"],
  assigneeSessionKeys: ["agent:dev-bot"],
  createdBy: "member:ada",
  parentTaskId: "task-0" as Id<"tasks">,
  parentTitle: "Launch",
  delegatedBy: "agent:jarvis",
  updatedAt: NOW - 60_000,
};

const agents = [
  agentFixture({ name: "Jarvis", role: "Squad Lead", sessionKey: "agent:jarvis", status: "active", isSquadLead: true }),
  agentFixture({ name: "Dev Bot", sessionKey: "agent:dev-bot", status: "active" }),
];
const members: Member[] = [{ _id: "m1" as Id<"members">, userId: "users|ada" as Id<"users">, name: "Ada", email: null, role: "admin", key: "member:ada" }];

function message(n: number, author: ThreadMessage["author"], content: string): ThreadMessage {
  return { _id: `msg-${n}` as Id<"messages">, _creationTime: NOW - (10 - n) * 60_000, taskId, author, content, mentions: [] };
}

/** Newest first, as the query pages them. */
const messages: ThreadMessage[] = [
  message(3, { kind: "system" }, "Dev Bot moved this to **In progress**."),
  message(2, { kind: "agent", sessionKey: "agent:dev-bot", name: "Dev Bot" }, 'Careful: <script>alert("x")</script> and <img src=x onerror="alert(1)">'),
  {
    ...message(1, { kind: "member", userId: "users|ada" as Id<"users">, name: "Ada" }, "@dev bot please add **limits** and [docs](javascript:alert(1)), not `@Dev Bot`."),
    mentions: [{ kind: "agent", key: "agent:dev-bot", name: "Dev Bot" }],
  },
];

function edits(): TaskEdits {
  return { update: vi.fn(() => Promise.resolve()), setStatus: vi.fn(() => Promise.resolve()), assign: vi.fn(() => Promise.resolve()) };
}

function renderView(overrides: Partial<Parameters<typeof TaskDrawerView>[0]> = {}) {
  const props = {
    task,
    agents,
    members,
    messages,
    threadStatus: "CanLoadMore" as const,
    onLoadEarlier: vi.fn(),
    edits: edits(),
    onSend: vi.fn(() => Promise.resolve()),
    onOpenTask: vi.fn(),
    onClose: vi.fn(),
    headingId: "drawer-heading",
    now: NOW,
    ...overrides,
  };
  // Inside the router, at a task's address, as the shell shows it.
  render(
    <MemoryRouter initialEntries={["/d/product/tasks/task-1"]}>
      <Routes>
        <Route path="/d/:slug/tasks/:taskId" element={<TaskDrawerView {...props} />} />
      </Routes>
    </MemoryRouter>,
  );
  return props;
}

describe("TaskDrawerView", () => {
  it("shows the task's details and provenance", () => {
    renderView();
    expect(screen.getByRole("heading", { name: "Signup API rate limits" })).toBeTruthy();
    expect((screen.getByLabelText("Status") as HTMLSelectElement).value).toBe("in_progress");
    expect((screen.getByLabelText("Priority") as HTMLSelectElement).value).toBe("high");
    expect(screen.getByText("api")).toBeTruthy();
    expect(screen.getAllByText("Dev Bot").length).toBeGreaterThan(0);
    expect(screen.getByText("Jarvis", { selector: "dd" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "Launch" }).getAttribute("href")).toBe("/d/product/tasks/task-0");
    expect(screen.getByText(/by Ada/)).toBeTruthy();
    expect(screen.getByText("per-account").tagName).toBe("STRONG");
  });

  it("lists messages oldest first with author styling and relative times", () => {
    renderView();
    const items = within(screen.getByRole("list", { name: "Messages" })).getAllByTestId("message");
    expect(items.map((item) => item.dataset.authorKind)).toEqual(["member", "agent", "system"]);
    expect(within(items[0]).getByText("Ada")).toBeTruthy();
    // A person is badged with their role in the department (it said "Member" for an owner or admin).
    expect(within(items[0]).getByText("Admin")).toBeTruthy();
    expect(within(items[1]).getByText("Agent")).toBeTruthy();
    expect(within(items[2]).getByText("Maestro")).toBeTruthy();
    expect(within(items[0]).getByText("9 min. ago")).toBeTruthy();
  });

  it("renders markdown but shows raw HTML as text, never as elements", () => {
    renderView();
    const drawer = screen.getByTestId("task-drawer");
    expect(drawer.querySelector("script")).toBeNull();
    expect(drawer.querySelector("img")).toBeNull();
    expect(drawer.textContent).toContain('<script>alert("x")</script>');
    expect(drawer.textContent).toContain('<img src=x onerror="alert(1)">');
    // Markdown still works, and a javascript: link loses its URL.
    expect(screen.getByText("limits").tagName).toBe("STRONG");
    const docs = screen.getByText("docs").closest("a")!;
    expect(docs.getAttribute("href") ?? "").not.toMatch(/javascript/i);
  });

  it("highlights @mentions outside code", () => {
    renderView();
    const highlighted = screen.getByTestId("task-drawer").querySelectorAll("[data-mention]");
    expect(Array.from(highlighted, (el) => el.textContent)).toEqual(["@dev bot"]);
    expect(screen.getByText("@Dev Bot").tagName).toBe("CODE");
  });

  it("loads earlier messages and opens the parent task", () => {
    const props = renderView();
    fireEvent.click(screen.getByRole("button", { name: "Load earlier messages" }));
    expect(props.onLoadEarlier).toHaveBeenCalled();
    fireEvent.click(screen.getByRole("link", { name: "Launch" }));
    expect(props.onOpenTask).toHaveBeenCalledWith("task-0");
  });

  it("has designed empty and loading threads", () => {
    renderView({ messages: [], threadStatus: "Exhausted" });
    expect(screen.getByText("No messages yet")).toBeTruthy();
    cleanup();
    renderView({ messages: [], threadStatus: "LoadingFirstPage" });
    expect(screen.getByText("Loading the thread…")).toBeTruthy();
  });

  it("edits the title, status and assignees through its callbacks", async () => {
    const props = renderView();
    fireEvent.click(screen.getByRole("button", { name: "Signup API rate limits" }));
    const input = screen.getByLabelText("Title");
    fireEvent.change(input, { target: { value: "Rate limits for signup" } });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(props.edits.update).toHaveBeenCalledWith({ title: "Rate limits for signup" });

    fireEvent.change(screen.getByLabelText("Status"), { target: { value: "review" } });
    expect(props.edits.setStatus).toHaveBeenCalledWith("review");

    fireEvent.click(screen.getByRole("button", { name: "Edit assignees" }));
    fireEvent.click(screen.getByRole("checkbox", { name: /Jarvis/ }));
    expect(props.edits.assign).toHaveBeenCalledWith(["agent:jarvis", "agent:dev-bot"]);
    await waitFor(() => expect(screen.queryByRole("alert")).toBeNull());
  });

  it("refuses an empty title without saving", () => {
    const props = renderView();
    fireEvent.click(screen.getByRole("button", { name: "Signup API rate limits" }));
    fireEvent.change(screen.getByLabelText("Title"), { target: { value: "  " } });
    fireEvent.keyDown(screen.getByLabelText("Title"), { key: "Enter" });
    expect(screen.getByText("Give the task a title.")).toBeTruthy();
    expect(props.edits.update).not.toHaveBeenCalled();
  });
});

describe("TaskDrawer", () => {
  it("loads the task, posts messages and marks its notifications read", async () => {
    queryResults.set("tasks:get", task);
    queryResults.set("agents:list", agents);
    queryResults.set("members:list", members);
    queryResults.set("messages:list", { results: messages, status: "Exhausted", loadMore: vi.fn(), isLoading: false });
    const onClose = vi.fn();
    render(<TaskDrawer taskId={taskId} onClose={onClose} onOpenTask={vi.fn()} />);

    const dialog = screen.getByRole("dialog", { name: "Signup API rate limits" });
    await waitFor(() => expect(mutationFor("notifications:markRead")).toHaveBeenCalledWith({ taskId }));

    const composer = within(dialog).getByRole("combobox", { name: "Message" });
    fireEvent.change(composer, { target: { value: "On it" } });
    fireEvent.keyDown(composer, { key: "Enter", ctrlKey: true });
    expect(mutationFor("messages:create")).toHaveBeenCalledWith({ taskId, content: "On it", clientMessageId: expect.any(String) });

    fireEvent.click(within(dialog).getByRole("button", { name: "Close task" }));
    expect(onClose).toHaveBeenCalled();
  });

  it("shows a skeleton while loading and closes on Escape", () => {
    queryResults.set("messages:list", { results: [], status: "LoadingFirstPage", loadMore: vi.fn(), isLoading: true });
    const onClose = vi.fn();
    render(<TaskDrawer taskId={taskId} onClose={onClose} onOpenTask={vi.fn()} />);
    expect(screen.getByRole("dialog", { name: "Loading task…" })).toBeTruthy();
    expect(mutationFor("notifications:markRead")).not.toHaveBeenCalled();
    fireEvent.keyDown(screen.getByRole("dialog"), { key: "Escape" });
    expect(onClose).toHaveBeenCalled();
  });
});
