// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { RosterList } from "../../src/roster/RosterList";
import { RosterPanel } from "../../src/roster/RosterPanel";
import type { Agent, Tool } from "../../src/roster/types";

// RosterPanel's tests drive it through a fake convex/react: a query's value,
// or an Error to throw as useQuery does.
const convex = vi.hoisted(() => ({ queries: new Map<string, unknown>() }));
vi.mock("convex/react", () => ({
  useQuery: (query: never) => {
    const value = convex.queries.get(getFunctionName(query));
    if (value instanceof Error) throw value;
    return value;
  },
  useMutation: () => () => Promise.resolve(null),
}));

function agent(overrides: Partial<Agent> & Pick<Agent, "name">): Agent {
  return {
    _id: `agent-${overrides.name}` as Id<"agents">,
    role: "Specialist",
    kind: "specialist",
    sessionKey: `agent:${overrides.name.toLowerCase()}:marketing`,
    status: "idle",
    isSquadLead: false,
    allowedTools: [],
    model: undefined,
    systemPrompt: "",
    ...overrides,
  };
}

const agents: Agent[] = [
  agent({ name: "Ada Lovelace", role: "Developer", kind: "coder", status: "active" }),
  agent({ name: "Jarvis", role: "Squad lead", kind: "lead", isSquadLead: true, allowedTools: ["delegate_task"] }),
  agent({ name: "Wordsmith", role: "Copywriter", kind: "writer", status: "offline" }),
];

const tools: Tool[] = [
  { name: "delegate_task", description: "Create a public task for other agents." },
  { name: "post_message", description: "Post a message in a task's thread." },
];

const departmentId = "dept-1" as Id<"departments">;
const noop = () => {};

beforeEach(() => convex.queries.clear());
afterEach(cleanup);

function rows() {
  return screen.getAllByTestId("roster-agent");
}

describe("RosterList", () => {
  it("shows each agent with initials, name, role, status and the lead badge, lead first", () => {
    render(<RosterList agents={agents} isAdmin={false} onNew={noop} onEdit={noop} />);
    const roster = screen.getByTestId("roster");
    expect(within(roster).getByRole("heading", { name: "Squad" })).toBeTruthy();
    expect(within(roster).getByTestId("roster-count").textContent).toBe("3");

    expect(rows().map((row) => row.querySelector("p")?.firstChild?.textContent)).toEqual(["Jarvis", "Ada Lovelace", "Wordsmith"]);
    const [jarvis, ada, wordsmith] = rows();
    expect(within(jarvis).getByText("JA")).toBeTruthy();
    expect(within(jarvis).getByText("Squad lead", { selector: "span.inline-flex" })).toBeTruthy();
    expect(within(jarvis).getByTestId("agent-status").textContent).toBe("Idle");

    expect(within(ada).getByText("AL")).toBeTruthy();
    expect(within(ada).getByText("Developer")).toBeTruthy();
    expect(within(ada).getByTestId("agent-status").textContent).toBe("Active");
    expect(within(ada).queryByText("Squad lead")).toBeNull();
    expect(within(wordsmith).getByTestId("agent-status").textContent).toBe("Offline");
  });

  it("gives a member no New agent or Edit buttons", () => {
    render(<RosterList agents={agents} isAdmin={false} onNew={noop} onEdit={noop} />);
    expect(screen.queryByRole("button", { name: "New agent" })).toBeNull();
    expect(screen.queryByRole("button", { name: /^Edit/ })).toBeNull();
    expect(screen.queryAllByRole("button")).toHaveLength(0);
  });

  it("gives an admin New agent and an Edit button per agent", () => {
    const onNew = vi.fn();
    const onEdit = vi.fn();
    render(<RosterList agents={agents} isAdmin onNew={onNew} onEdit={onEdit} />);

    fireEvent.click(screen.getByRole("button", { name: "New agent" }));
    expect(onNew).toHaveBeenCalledTimes(1);
    expect(screen.getAllByRole("button", { name: /^Edit / })).toHaveLength(3);
    fireEvent.click(screen.getByRole("button", { name: "Edit Ada Lovelace" }));
    expect(onEdit).toHaveBeenCalledWith(agents[0]);
  });

  it("shows a placeholder while loading and a note when there are no agents", () => {
    const { rerender } = render(<RosterList agents={undefined} isAdmin onNew={noop} onEdit={noop} />);
    expect(screen.getByRole("status").textContent).toBe("Loading squad…");
    expect(screen.queryAllByTestId("roster-agent")).toHaveLength(0);
    expect(screen.getByRole("button", { name: "New agent" })).toBeTruthy();

    rerender(<RosterList agents={[]} isAdmin={false} onNew={noop} onEdit={noop} />);
    expect(screen.getByText("No agents in this department yet.")).toBeTruthy();
  });
});

describe("RosterPanel", () => {
  it("opens the agent modal from Edit, pre-filled, and closes it on Esc", () => {
    convex.queries.set("agents:list", agents);
    convex.queries.set("tools/registry:list", tools);
    convex.queries.set("agents:toolApprovals", []);
    render(<RosterPanel departmentId={departmentId} isAdmin />);

    fireEvent.click(screen.getByRole("button", { name: "Edit Jarvis" }));
    const dialog = screen.getByRole("dialog", { name: "Edit Jarvis" });
    expect(within(dialog).getByLabelText("Name")).toHaveProperty("value", "Jarvis");
    expect(within(dialog).getByTestId("tool-delegate_task")).toHaveProperty("checked", true);
    expect(within(dialog).getByTestId("tool-post_message")).toHaveProperty("checked", false);

    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "New agent" }));
    expect(within(screen.getByRole("dialog", { name: "New agent" })).getByLabelText("Name")).toHaveProperty("value", "");
  });

  it("badges each agent with what it has unread, live; none, no badge", () => {
    convex.queries.set("agents:list", agents);
    convex.queries.set("inbox:agentUnread", [
      { sessionKey: agents[1].sessionKey, unread: 2, more: false },
      { sessionKey: agents[2].sessionKey, unread: 9, more: true },
    ]);
    const { rerender } = render(<RosterPanel departmentId={departmentId} isAdmin={false} />);
    const badges = () => screen.queryAllByTestId("agent-unread").map((b) => [b.closest("li")!.querySelector("[data-testid=roster-agent-name]")!.textContent, b.textContent, b.getAttribute("aria-label")]);
    expect(badges()).toEqual([
      ["Jarvis", "2", "Jarvis has 2 unread"],
      ["Wordsmith", "9+", "Wordsmith has 9+ unread"],
    ]);
    convex.queries.set("inbox:agentUnread", [{ sessionKey: agents[2].sessionKey, unread: 1, more: false }]);
    rerender(<RosterPanel departmentId={departmentId} isAdmin={false} />);
    expect(badges()).toEqual([["Wordsmith", "1", "Wordsmith has 1 unread"]]);
  });

  it("shows only the roster to a member", () => {
    convex.queries.set("agents:list", agents);
    render(<RosterPanel departmentId={departmentId} isAdmin={false} />);
    expect(rows()).toHaveLength(3);
    expect(screen.queryAllByRole("button")).toHaveLength(0);
  });

  it("shows a loading placeholder until the agents arrive", () => {
    render(<RosterPanel departmentId={departmentId} isAdmin={false} />);
    expect(within(screen.getByTestId("roster")).getByRole("status")).toBeTruthy();
  });

  it("shows a failing query's message in the panel, with a retry", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    convex.queries.set("agents:list", new ConvexError({ code: "FORBIDDEN", message: "You are not a member of this department." }));
    render(<RosterPanel departmentId={departmentId} isAdmin />);
    const roster = screen.getByTestId("roster");
    expect(within(roster).getByRole("alert").textContent).toContain("You are not a member of this department.");

    convex.queries.set("agents:list", agents);
    fireEvent.click(within(roster).getByRole("button", { name: "Try again" }));
    expect(rows()).toHaveLength(3);
    vi.mocked(console.error).mockRestore();
  });
});
