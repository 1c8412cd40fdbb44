import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import type { RosterAgent } from "../../src/board/types";
import { NewTaskDialog, NewTaskForm } from "../../src/task/NewTaskDialog";
import { EMPTY_DRAFT, parseTags, validateNewTask } from "../../src/task/newTask";

const createTask = vi.fn();
const channelList = vi.fn((): unknown => undefined);
vi.mock("convex/react", () => ({ useMutation: () => createTask, useQuery: () => channelList() }));

afterEach(() => {
  cleanup();
  createTask.mockReset();
  channelList.mockReset();
});

function agent(name: string, sessionKey: string, isSquadLead = false): RosterAgent {
  return {
    _id: `id-${sessionKey}` as Id<"agents">,
    name,
    role: isSquadLead ? "Squad Lead" : "Engineer",
    kind: isSquadLead ? "lead" : "coder",
    sessionKey,
    status: "idle",
    isSquadLead,
    allowedTools: [],
    model: undefined,
    systemPrompt: "",
  };
}

const agents = [agent("Dev Bot", "agent:dev-bot"), agent("Jarvis", "agent:jarvis", true)];

function setup(onSubmit = vi.fn((_value: unknown) => Promise.resolve())) {
  const onCancel = vi.fn();
  render(<NewTaskForm agents={agents} onSubmit={onSubmit} onCancel={onCancel} />);
  return { onSubmit, onCancel };
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

describe("new task validation", () => {
  it("parses comma-separated tags: trimmed, no empties, no repeats", () => {
    expect(parseTags(" launch, web ,, Launch , ui")).toEqual(["launch", "web", "ui"]);
    expect(parseTags("")).toEqual([]);
  });

  it("needs a title and keeps to the server's limits", () => {
    expect(validateNewTask({ ...EMPTY_DRAFT, title: "   " })).toEqual({ ok: false, errors: { title: "Give the task a title." } });
    const tooMany = Array.from({ length: 11 }, (_, i) => `t${i}`).join(",");
    const result = validateNewTask({ ...EMPTY_DRAFT, title: "x".repeat(201), tags: tooMany });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.title).toMatch(/200 characters/);
      expect(result.errors.tags).toMatch(/at most 10 tags/);
    }
    expect(validateNewTask({ ...EMPTY_DRAFT, title: " Ship ", tags: "a, b" })).toEqual({
      ok: true,
      value: { title: "Ship", description: "", priority: "medium", tags: ["a", "b"], assigneeSessionKeys: [] },
    });
  });
});

describe("NewTaskForm", () => {
  it("shows an error on the title and does not submit without one", () => {
    const { onSubmit } = setup();
    fireEvent.click(screen.getByRole("button", { name: "Create task" }));
    expect(screen.getByText("Give the task a title.")).toBeTruthy();
    expect(field("Title").getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(field("Title"));
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("submits every field, assignees included", async () => {
    const { onSubmit } = setup();
    fireEvent.change(field("Title"), { target: { value: "  Write the launch post " } });
    fireEvent.change(field("Description"), { target: { value: "Short and **friendly**." } });
    fireEvent.change(field("Priority"), { target: { value: "high" } });
    fireEvent.change(field("Tags"), { target: { value: "launch, copy" } });
    const assignees = screen.getByRole("group", { name: /Assignees/ });
    fireEvent.click(within(assignees).getByRole("checkbox", { name: /Dev Bot/ }));
    fireEvent.click(screen.getByRole("button", { name: "Create task" }));

    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({
      title: "Write the launch post",
      description: "Short and **friendly**.",
      priority: "high",
      tags: ["launch", "copy"],
      assigneeSessionKeys: ["agent:dev-bot"],
    });
  });

  it("shows the server's message inline and stays open when creating fails", async () => {
    const onSubmit = vi.fn(() => Promise.reject(new ConvexError({ code: "INVALID_ARGUMENT", message: "Unknown assignee: agent:gone." })));
    setup(onSubmit);
    fireEvent.change(field("Title"), { target: { value: "A task" } });
    fireEvent.click(screen.getByRole("button", { name: "Create task" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Unknown assignee: agent:gone.");
    expect(field("Title").value).toBe("A task");
    expect((screen.getByRole("button", { name: "Create task" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("cancels", () => {
    const { onCancel } = setup();
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(onCancel).toHaveBeenCalled();
  });
});

describe("NewTaskDialog", () => {
  it("creates the task in its department and closes", async () => {
    createTask.mockResolvedValue("task-new");
    const onClose = vi.fn();
    const onCreated = vi.fn();
    render(<NewTaskDialog departmentId={"dept-1" as Id<"departments">} agents={agents} onClose={onClose} onCreated={onCreated} />);

    const dialog = screen.getByRole("dialog", { name: "New task" });
    fireEvent.change(within(dialog).getByLabelText("Title"), { target: { value: "Plan the launch" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Create task" }));

    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(createTask).toHaveBeenCalledWith({
      departmentId: "dept-1",
      title: "Plan the launch",
      description: "",
      priority: "medium",
      tags: [],
      assigneeSessionKeys: [],
    });
    expect(onCreated).toHaveBeenCalledWith("task-new");
  });

  it("follows the new task in a channel picked from those the caller can read (no DMs, nothing archived)", async () => {
    createTask.mockResolvedValue("task-new");
    const summary = { visibility: "project", joined: true, subscribed: false, unread: 0, lastMessageAt: undefined };
    channelList.mockReturnValue([
      { _id: "ch-launch", kind: "channel", name: "launch", title: "launch", archived: false, ...summary },
      { _id: "ch-old", kind: "channel", name: "old", title: "old", archived: true, ...summary },
      { _id: "ch-dm", kind: "dm", name: "", title: "Grace", archived: false, ...summary },
    ]);
    const onClose = vi.fn();
    render(<NewTaskDialog departmentId={"dept-1" as Id<"departments">} agents={agents} onClose={onClose} />);
    const dialog = screen.getByRole("dialog", { name: "New task" });
    const select = within(dialog).getByLabelText("Follow in channel") as HTMLSelectElement;
    expect([...select.options].map((o) => o.text)).toEqual(["No channel", "#launch"]);
    fireEvent.change(within(dialog).getByLabelText("Title"), { target: { value: "Plan the launch" } });
    fireEvent.change(select, { target: { value: "ch-launch" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Create task" }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(createTask).toHaveBeenCalledWith(expect.objectContaining({ departmentId: "dept-1", title: "Plan the launch", channelId: "ch-launch" }));
  });

  it("closes on Escape", () => {
    const onClose = vi.fn();
    render(<NewTaskDialog departmentId={"dept-1" as Id<"departments">} agents={agents} onClose={onClose} />);
    fireEvent.keyDown(screen.getByLabelText("Title"), { key: "Escape" });
    expect(onClose).toHaveBeenCalled();
    expect(createTask).not.toHaveBeenCalled();
  });
});
