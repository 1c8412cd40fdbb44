import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { withTaskLinks as readableForAgents } from "../../convex/lib/taskLinks";
import { MessageComposer } from "../../src/channels/MessageComposer";
import { Composer as TaskComposer, type SendExtras } from "../../src/task/Composer";
import { withTaskLinks } from "../../src/channels/types";
import { findTaskQuery, insertTaskLink, rankTasks, taskChips, taskLinksIn, type TaskOption } from "../../src/composer/taskLinks";
import type { TaskLinkSupport } from "../../src/composer/useCompletions";
import type { SlashSupport } from "../../src/slash/slash";
import type { MentionCandidate } from "../../src/task/mentions";
import type { Id } from "../../convex/_generated/dataModel";

afterEach(cleanup);

const LOGIN: TaskOption = { _id: "t1", title: "Fix the login page", status: "in_progress" };
const COPY: TaskOption = { _id: "t2", title: "Launch copy", status: "inbox" };
const LOG: TaskOption = { _id: "t3", title: "Read the logs", status: "review" };

describe("# completion, as text", () => {
  it("finds the # being typed, not headings, C# or a # inside a word", () => {
    expect(findTaskQuery("see #fix", 8)).toEqual({ start: 4, query: "fix" });
    expect(findTaskQuery("#", 1)).toEqual({ start: 0, query: "" });
    expect(findTaskQuery("see #Fix the lo", 15)).toEqual({ start: 4, query: "Fix the lo" });
    expect(findTaskQuery("# Heading", 9)).toBeNull();
    expect(findTaskQuery("I like C#", 9)).toBeNull();
    expect(findTaskQuery("issue#4", 7)).toBeNull();
    expect(findTaskQuery("#fix\nnext", 9)).toBeNull();
    expect(findTaskQuery("#fix  it", 8)).toBeNull();
    expect(findTaskQuery("no hash here", 12)).toBeNull();
  });

  it("ranks titles starting with the query first, then a later word, then the rest in the server's order", () => {
    // "Read the logs" has a later word starting "lo", "Fix the login page" too; neither title starts with it.
    expect(rankTasks([COPY, LOG, LOGIN], "lo").map((t) => t._id)).toEqual(["t3", "t1", "t2"]);
    expect(rankTasks([LOG, COPY], "la").map((t) => t._id)).toEqual(["t2", "t3"]);
    expect(rankTasks([COPY, LOGIN], "fix").map((t) => t._id)).toEqual(["t1", "t2"]);
    expect(rankTasks([COPY, LOGIN], "").map((t) => t._id)).toEqual(["t2", "t1"]);
  });

  it("inserts #Title and a space in place of what was typed", () => {
    expect(insertTaskLink("see #fi now", 7, { start: 4, query: "fi" }, LOGIN)).toEqual({ text: "see #Fix the login page now", caret: 24 });
    expect(insertTaskLink("#", 1, { start: 0, query: "" }, { title: "  Two\n lines " })).toEqual({ text: "#Two lines ", caret: 11 });
  });

  it("a send links the picked tasks its text still names, each once", () => {
    expect(taskLinksIn("see #Fix the login page and #Launch copy", [LOGIN, COPY, LOGIN])).toEqual([LOGIN, COPY]);
    expect(taskLinksIn("see #Fix the", [LOGIN])).toEqual([]);
  });
});

describe("chips", () => {
  it("a message's task artifacts become chips, titled when the department resolved them", () => {
    const known = new Map([["t1", LOGIN]]);
    expect(taskChips([{ kind: "file" }, { kind: "task", taskId: "t1" }, { kind: "task", taskId: "t9" }, { kind: "task", taskId: "t1" }], known)).toEqual([
      { taskId: "t1", title: "Fix the login page", status: "in_progress" },
      { taskId: "t9", title: null, status: null },
    ]);
  });

  it("a post carries its files, then its links as task artifacts", () => {
    const file = { kind: "file" as const, storageId: "s1", name: "a.png", contentType: "image/png", size: 3 };
    expect(withTaskLinks([file] as never, ["t1" as Id<"tasks">])).toEqual([file, { kind: "task", taskId: "t1" }]);
    expect(withTaskLinks([], undefined)).toEqual([]);
  });

  it("agents read each link by title and id, a missing one said so", () => {
    expect(readableForAgents("Look", [{ taskId: "t1", title: "Fix the login page" }, { taskId: "t9", title: null }])).toBe(
      "Look\n[linked task: “Fix the login page” (task id t1)]\n[linked task: one that was deleted or is not in this department (task id t9)]",
    );
    expect(readableForAgents("Plain", [])).toBe("Plain");
  });
});

const CANDIDATES: MentionCandidate[] = [
  { key: "agent:dev", name: "Dev Bot", kind: "agent", detail: "Engineer" },
  { key: "member:u1", name: "Grace", kind: "member", detail: "Member" },
];

/** The department's tasks as the server would answer, searched as the composer asks. */
function useFakeTasks(): TaskLinkSupport {
  const [query, setQuery] = useState<string | null>(null);
  // Like the title search index: a task matches any word typed.
  const words = (query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  const results = query === null ? undefined : [LOGIN, COPY, LOG].filter((t) => words.length === 0 || words.some((w) => t.title.toLowerCase().includes(w)));
  return { results, search: setQuery };
}

function Composer({ onSend, slash }: { onSend: (draft: unknown) => Promise<unknown>; slash?: SlashSupport }) {
  const tasks = useFakeTasks();
  return <MessageComposer placeholder="Message #launch" maxChars={500} onSend={onSend} candidates={CANDIDATES} tasks={tasks} slash={slash} />;
}

function type(box: HTMLElement, value: string) {
  fireEvent.change(box, { target: { value, selectionStart: value.length } });
  (box as HTMLTextAreaElement).setSelectionRange(value.length, value.length);
  fireEvent.select(box);
}

describe("the channel composer", () => {
  it("# opens the tasks as a listbox; arrows move, Enter picks, and the send carries the link", async () => {
    const onSend = vi.fn(async () => null);
    render(<Composer onSend={onSend} />);
    const box = screen.getByLabelText("Message #launch");
    type(box, "please see #l");
    const list = await screen.findByRole("listbox", { name: "Tasks to link" });
    expect(box.getAttribute("aria-expanded")).toBe("true");
    expect(box.getAttribute("aria-controls")).toBe(list.id);
    const options = () => within(list).getAllByRole("option");
    expect(options().map((o) => o.textContent)).toEqual(["Launch copyInbox", "Fix the login pageIn progress", "Read the logsReview"]);
    fireEvent.keyDown(box, { key: "ArrowDown" });
    expect(options()[1].getAttribute("aria-selected")).toBe("true");
    expect(box.getAttribute("aria-activedescendant")).toBe(options()[1].id);
    fireEvent.keyDown(box, { key: "Enter" });
    expect((box as HTMLTextAreaElement).value).toBe("please see #Fix the login page ");
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(screen.getByTestId("pending-task-link").textContent).toBe("#Fix the login page");
    fireEvent.keyDown(box, { key: "Enter" });
    await waitFor(() => expect(onSend).toHaveBeenCalledWith(expect.objectContaining({ body: "please see #Fix the login page", links: ["t1"] })));
  });

  it("Escape closes the list without sending; a link whose text was removed is not sent", async () => {
    const onSend = vi.fn(async () => null);
    render(<Composer onSend={onSend} />);
    const box = screen.getByLabelText("Message #launch");
    type(box, "#fix");
    await screen.findByRole("listbox", { name: "Tasks to link" });
    fireEvent.keyDown(box, { key: "Tab" });
    expect((box as HTMLTextAreaElement).value).toBe("#Fix the login page ");
    type(box, "never mind #co");
    await screen.findByRole("listbox", { name: "Tasks to link" });
    fireEvent.keyDown(box, { key: "Escape" });
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: "Enter" });
    await waitFor(() => expect(onSend).toHaveBeenCalledTimes(1));
    expect(onSend.mock.calls[0]).toEqual([expect.not.objectContaining({ links: expect.anything() })]);
  });

  it("@ completes people and agents, as in a task's thread", async () => {
    render(<Composer onSend={async () => null} />);
    const box = screen.getByLabelText("Message #launch");
    type(box, "ping @De");
    await screen.findByRole("listbox", { name: "People to mention" });
    fireEvent.keyDown(box, { key: "Enter" });
    expect((box as HTMLTextAreaElement).value).toBe("ping @Dev Bot ");
  });

  it("/ lists the commands given; sending one runs it instead of posting, and a refusal keeps the draft", async () => {
    const onSend = vi.fn(async () => null);
    const run = vi.fn(async (text: string) => (text.startsWith("/status") ? { ok: false as const, error: "/status works in a task's thread." } : { ok: true as const, message: "Posted in #launch." }));
    const slash: SlashSupport = { commands: [{ name: "review", description: "Review it", argumentHint: "<what>", kind: "prompt", source: "global" }], run };
    render(<Composer onSend={onSend} slash={slash} />);
    const box = screen.getByLabelText("Message #launch");
    type(box, "/re");
    await screen.findByRole("listbox", { name: "Slash commands" });
    fireEvent.keyDown(box, { key: "Enter" });
    expect((box as HTMLTextAreaElement).value).toBe("/review ");
    type(box, "/review the copy");
    fireEvent.keyDown(box, { key: "Enter" });
    await waitFor(() => expect(run).toHaveBeenCalledWith("/review the copy"));
    expect(await screen.findByText("Posted in #launch.")).toBeTruthy();
    type(box, "/status done");
    fireEvent.keyDown(box, { key: "Enter" });
    expect(await screen.findByText("/status works in a task's thread.")).toBeTruthy();
    expect((box as HTMLTextAreaElement).value).toBe("/status done");
    expect(onSend).not.toHaveBeenCalled();
  });
});

describe("the task thread's composer", () => {
  function TaskThreadComposer({ onSend }: { onSend: (content: string, clientMessageId: string, extras?: SendExtras) => Promise<unknown> }) {
    const tasks = useFakeTasks();
    return <TaskComposer candidates={CANDIDATES} tasks={tasks} onSend={onSend} />;
  }

  it("# links a task there too: the send carries it, a plain message carries none", async () => {
    const onSend = vi.fn(async () => null);
    render(<TaskThreadComposer onSend={onSend} />);
    const box = screen.getByRole("combobox", { name: "Message" });
    type(box, "blocked by #cop");
    await screen.findByRole("listbox", { name: "Tasks to link" });
    fireEvent.keyDown(box, { key: "Enter" });
    expect((box as HTMLTextAreaElement).value).toBe("blocked by #Launch copy ");
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(onSend).toHaveBeenCalledWith("blocked by #Launch copy", expect.any(String), { taskLinks: ["t2"] }));
    await waitFor(() => expect((box as HTMLTextAreaElement).value).toBe(""));
    type(box, "plain");
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(onSend).toHaveBeenCalledTimes(2));
    expect(onSend.mock.calls[1]).toEqual(["plain", expect.any(String)]);
  });
});
