/**
 * Polish from issue 42 that needs no browser: a tool call in words (the bell's
 * sentence and the approval card's argument lines, from one table), and the
 * event log's wording of DMs and agent-to-agent envelopes.
 */
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { argumentLines, callAsk } from "../../convex/lib/toolCallWords";
import { askText } from "../../convex/lib/waiting";
import type { Id } from "../../convex/_generated/dataModel";
import { eventPlace, eventSummary } from "../../src/audit/eventLog";
import { BoardView } from "../../src/board/BoardView";
import { shortTaskId } from "../../src/board/TaskCard";
import type { BoardColumnData, TaskCardData } from "../../src/board/types";
import { AgentApiKeys } from "../../src/roster/AgentApiKeys";
import { ArgumentList } from "../../src/task/PauseCards";
import { convex, resetConvex } from "./fakeConvex";
import { agentFixture } from "./fixtures";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

beforeEach(resetConvex);
afterEach(cleanup);

/** What the demo squad's Jarvis asks for when told to delegate the launch tagline, urgent. */
const DELEGATION = JSON.stringify({
  assignees: ["Writer"],
  description: "Delegated from “Launch week”: launch tagline.",
  instruction: "Please take the launch tagline for “Launch week” and send it back for review.",
  priority: "high",
  title: "Launch tagline",
});

describe("a tool call in words", () => {
  it("the bell says what a delegation would do, not the tool's first string argument", () => {
    expect(askText({ kind: "approval", tool: "delegate_task", args: DELEGATION })).toBe("asks to delegate “Launch tagline” to Writer");
    expect(callAsk("delegate_task", JSON.stringify({ title: "Copy", assignees: ["Writer", "Dev Bot", "Archie"] }))).toBe("delegate “Copy” to Writer, Dev Bot and Archie");
    expect(callAsk("post_message", JSON.stringify({ content: "Ship it", channel: "launch" }))).toBe("post “Ship it” in #launch");
    expect(callAsk("web_fetch", JSON.stringify({ url: "https://example.com/" }))).toBe("fetch https://example.com/");
    // A tool with no words of its own, or arguments that say too little: "run <tool>" with its first string.
    expect(callAsk("send_email", JSON.stringify({ to: "press@example.com" }))).toBe("run send_email (“press@example.com”)");
    expect(callAsk("delegate_task", "{}")).toBe("run delegate_task");
    expect(callAsk("x", "not json")).toBe("run x");
  });

  it("the card's arguments are key: value lines, a delegation's assignees, title and priority first", () => {
    expect(argumentLines("delegate_task", DELEGATION)?.map((line) => line.key)).toEqual(["assignees", "title", "priority", "instruction", "description"]);
    expect(argumentLines("delegate_task", DELEGATION)?.[0]).toEqual({ key: "assignees", value: "Writer" });
    expect(argumentLines("other", JSON.stringify({ b: 1, a: { deep: true } }))).toEqual([
      { key: "b", value: "1" },
      { key: "a", value: '{"deep":true}' },
    ]);
    expect(argumentLines("other", "[1, 2]")).toBeNull();

    render(<ArgumentList tool="delegate_task" args={DELEGATION} />);
    const list = screen.getByLabelText("Arguments");
    const lines = within(list).getAllByTestId("approval-arg").map((line) => line.textContent);
    expect(lines.slice(0, 3)).toEqual(["assignees: Writer", "title: Launch tagline", "priority: high"]);
    // Wrapped within the card, never a line that runs off the side.
    expect(list.className).not.toMatch(/overflow-x-auto|overflow-auto|whitespace-pre\b/);
    for (const line of within(list).getAllByTestId("approval-arg")) expect(line.className).toContain("whitespace-pre-wrap");
  });

  it("arguments that are not an object show as text, wrapped", () => {
    render(<ArgumentList tool="x" args="plain words" />);
    const text = screen.getByLabelText("Arguments");
    expect(text.textContent).toBe("plain words");
    expect(text.className).toContain("whitespace-pre-wrap");
  });
});

describe("the event log's words", () => {
  it("a DM's creation says so once, and names no place after it", () => {
    const opened = { type: "channels.created" as const, data: { dm: true, participants: 3 }, where: "a DM" };
    expect(eventSummary(opened)).toBe("opened a DM for 3 people");
    expect(eventPlace(opened)).toBeUndefined();
    const posted = { type: "messaging.posted" as const, data: {}, where: "a DM" };
    expect(eventPlace(posted)).toBe("a DM");
    expect(eventPlace({ type: "channels.created", data: { name: "launch" }, where: "#launch" })).toBe("#launch");
  });

  it("agent-to-agent envelopes read as what happened", () => {
    expect(eventSummary({ type: "a2a.delegate", data: { to: "Writer", title: "Launch tagline", intent: "delegate" } })).toBe("delegated “Launch tagline” to Writer");
    expect(eventSummary({ type: "a2a.request_tool", data: { to: "Ada", tool: "web_fetch" } })).toBe("asked Ada to run web_fetch");
    expect(eventSummary({ type: "a2a.status_update", data: { to: "Jarvis", status: "review" } })).toBe("told Jarvis the task is ready for review");
    expect(eventSummary({ type: "a2a.status_update", data: { to: "Jarvis", status: "in_progress" } })).toBe("told Jarvis the task has started");
  });
});

describe("cards with one title", () => {
  const card = (id: string, title: string, status: TaskCardData["status"]): TaskCardData => ({
    _id: id as Id<"tasks">,
    title,
    status,
    priority: "high",
    tags: [],
    assigneeSessionKeys: [],
    delegatedBy: undefined,
    order: 0,
  });
  const columns: BoardColumnData[] = [
    { status: "review", truncated: false, tasks: [card("k17aaaaaaaaaaaaaaaaaaaaaaaa1x2y3", "Launch tagline", "review"), card("k17bbbbbbbbbbbbbbbbbbbbbbbbb9q8r", "Hero copy", "review")] },
    { status: "in_progress", truncated: false, tasks: [card("k17cccccccccccccccccccccccc7m6n5", "launch  Tagline", "in_progress")] },
  ];

  it("show what tells them apart (their short ids); a card with a title of its own shows none", () => {
    // Ids that differ only before a shared ending (the offline backend's end in their table's name) still differ.
    expect(shortTaskId("12;tasks")).not.toBe(shortTaskId("13;tasks"));
    render(<BoardView columns={columns} agents={[]} />);
    const cards = screen.getAllByTestId("task-card");
    const idOf = (title: RegExp) => cards.find((c) => title.test(c.textContent ?? ""))!;
    const shortIds = cards.map((c) => within(c).queryByTestId("card-short-id")?.textContent ?? null);
    expect(shortIds.filter((id) => id !== null)).toHaveLength(2);
    const first = within(idOf(/^Launch tagline/)).getByTestId("card-short-id").textContent;
    const second = within(idOf(/^launch {2}Tagline/)).getByTestId("card-short-id").textContent;
    expect(first).toBe(`Task ${shortTaskId("k17aaaaaaaaaaaaaaaaaaaaaaaa1x2y3")}`);
    expect(first).toMatch(/^Task #[0-9a-z]{5}$/);
    expect(second).not.toBe(first);
    expect(within(idOf(/^Hero copy/)).queryByTestId("card-short-id")).toBeNull();
  });
});

describe("an API key's dialog", () => {
  const devBot = agentFixture({ name: "Dev Bot", sessionKey: "agent:dev-bot:product", allowedTools: ["chat.post"] });
  const KEY = `mk_${"a".repeat(40)}`;

  it("says what the key will let the agent do from the ticked scopes, not a fixed blurb", () => {
    convex.queries.set("agentApiKeys:list", []);
    render(<AgentApiKeys agent={devBot} />);
    // The section claims nothing a key may lack (a default key writes no tasks).
    expect(screen.getByTestId("api-keys-about").textContent).not.toMatch(/tasks|#maestro chat/);
    fireEvent.click(screen.getByRole("button", { name: "Create key" }));
    const dialog = screen.getByRole("dialog", { name: "New API key for Dev Bot" });
    const powers = () => within(dialog).getByTestId("key-powers").textContent ?? "";
    expect(powers()).toContain("Read the #maestro chat");
    expect(powers()).not.toContain("Put tasks on the board");
    fireEvent.click(within(dialog).getByRole("checkbox", { name: /tasks:write/ }));
    expect(powers()).toContain("Put tasks on the board");
    fireEvent.click(within(dialog).getByRole("checkbox", { name: /chat:read/ }));
    expect(powers()).not.toContain("Read the #maestro chat");
  });

  it("makes nothing until Create key; once made, offers only Copy and Done", async () => {
    convex.queries.set("agentApiKeys:list", []);
    const create = vi.fn((_args: unknown) => Promise.resolve({ keyId: "key-3", key: KEY, prefix: KEY.slice(0, 12) }));
    convex.mutations.set("agentApiKeys:create", create);
    render(<AgentApiKeys agent={devBot} />);
    fireEvent.click(screen.getByRole("button", { name: "Create key" }));
    const dialog = screen.getByRole("dialog", { name: "New API key for Dev Bot" });
    expect(create).not.toHaveBeenCalled();
    // Cancel before Create makes nothing.
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(create).not.toHaveBeenCalled();

    fireEvent.click(screen.getByRole("button", { name: "Create key" }));
    fireEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Create key" }));
    const made = await screen.findByRole("dialog", { name: "API key for Dev Bot" });
    expect(within(made).getByTestId("new-api-key").textContent).toBe(KEY);
    expect(within(made).getAllByRole("button").map((b) => b.textContent)).toEqual(["Copy", "Done"]);
    expect(within(made).getByTestId("key-powers").textContent).toContain("This key lets Dev Bot:");
    expect(create).toHaveBeenCalledTimes(1);
  });
});
