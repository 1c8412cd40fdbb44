// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { SubtasksView, type SubtaskList } from "../../src/task/Subtasks";

afterEach(cleanup);

function subtask(n: number, title: string, status: SubtaskList["subtasks"][number]["status"], assignees: string[]) {
  return { _id: `task-${n}` as Id<"tasks">, title, status, assignees, delegatedBy: "Jarvis", updatedAt: n };
}

describe("SubtasksView", () => {
  it("lists each subtask with its status and assignees, and opens one on click", () => {
    const onOpenTask = vi.fn();
    render(
      <SubtasksView
        list={{ subtasks: [subtask(1, "Hero copy", "done", ["Writer"]), subtask(2, "Signup form", "in_progress", ["Dev Bot"]), subtask(3, "Logo", "inbox", [])], truncated: false }}
        onOpenTask={onOpenTask}
        hrefFor={(id) => `/d/product/tasks/${id}`}
      />,
    );
    const section = screen.getByRole("region", { name: "Subtasks" });
    expect(within(section).getByText("1 of 3 done")).toBeTruthy();
    const items = within(section).getAllByRole("listitem");
    expect(items.map((item) => item.textContent)).toEqual(["Hero copyWriterDone", "Signup formDev BotIn progress", "LogoNobodyInbox"]);
    expect(within(items[1]).getByRole("link", { name: "Signup form" }).getAttribute("href")).toBe("/d/product/tasks/task-2");
    fireEvent.click(within(items[1]).getByRole("link", { name: "Signup form" }));
    expect(onOpenTask).toHaveBeenCalledWith("task-2");
  });

  it("renders nothing for a task without subtasks, and says when the list is cut", () => {
    const { container } = render(<SubtasksView list={{ subtasks: [], truncated: false }} onOpenTask={() => {}} hrefFor={() => "#"} />);
    expect(container.innerHTML).toBe("");
    render(<SubtasksView list={{ subtasks: [subtask(1, "Hero copy", "review", ["Writer"])], truncated: true }} onOpenTask={() => {}} hrefFor={() => "#"} />);
    expect(screen.getByText("0 of 1+ done")).toBeTruthy();
    expect(screen.getByText("Only the first 1 are listed.")).toBeTruthy();
  });
});
