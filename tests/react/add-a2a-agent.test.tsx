// @vitest-environment jsdom
/** "Add A2A agent" (issue 45, part 2): the card URL is looked up, its name, description and skills shown, then added; the roster shows its skills and that it runs over A2A. */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { AddA2aAgentModal } from "../../src/roster/AddA2aAgentModal";
import { RosterList } from "../../src/roster/RosterList";
import { RoleContext } from "../../src/shell/role";
import { A2aRemoteWork } from "../../src/task/A2aRemoteWork";
import { convex, resetConvex } from "./fakeConvex";
import { agentFixture } from "./fixtures";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

beforeEach(resetConvex);
afterEach(cleanup);

const departmentId = "d1" as Id<"departments">;
const CARD = { cardUrl: "https://agents.example.com/.well-known/agent-card.json", name: "Research Scout", description: "Finds and summarises sources.", skills: [{ id: "research", name: "Research", description: "Reads sources and writes a brief." }] };

describe("AddA2aAgentModal", () => {
  it("looks the card up, shows its name, description and skills, and adds the agent by its URL", async () => {
    const preview = vi.fn(() => Promise.resolve(CARD));
    const add = vi.fn(() => Promise.resolve({ agentId: "a1", name: CARD.name, description: CARD.description, skills: CARD.skills }));
    convex.mutations.set("a2aRemoteCalls:preview", preview);
    convex.mutations.set("a2aRemoteCalls:add", add);
    const onClose = vi.fn();
    render(<AddA2aAgentModal departmentId={departmentId} onClose={onClose} />);
    const submit = screen.getByRole("button", { name: "Add agent" }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText("Agent card URL"), { target: { value: ` ${CARD.cardUrl} ` } });
    fireEvent.click(screen.getByRole("button", { name: "Look up" }));
    const card = await screen.findByTestId("a2a-card-preview");
    expect(preview).toHaveBeenCalledWith({ departmentId, cardUrl: CARD.cardUrl });
    expect(within(card).getByText("Research Scout")).toBeTruthy();
    expect(within(card).getByText("Finds and summarises sources.")).toBeTruthy();
    expect(within(card).getByRole("list", { name: "Skills" }).textContent).toContain("Research — Reads sources and writes a brief.");
    fireEvent.click(submit);
    await waitFor(() => expect(add).toHaveBeenCalledWith({ departmentId, cardUrl: CARD.cardUrl }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it("says why a card was refused, and stays open", async () => {
    convex.mutations.set("a2aRemoteCalls:preview", () => Promise.reject(new ConvexError({ code: "INVALID_ARGUMENT", message: "The agent card URL: A2A agents may not target loopback or private addresses." })));
    const add = vi.fn(() => Promise.reject(new ConvexError({ code: "FORBIDDEN", message: "Only owners and admins can do this." })));
    convex.mutations.set("a2aRemoteCalls:add", add);
    const onClose = vi.fn();
    render(<AddA2aAgentModal departmentId={departmentId} onClose={onClose} />);
    fireEvent.change(screen.getByLabelText("Agent card URL"), { target: { value: "http://127.0.0.1/card.json" } });
    fireEvent.click(screen.getByRole("button", { name: "Look up" }));
    expect(await screen.findByText(/may not target loopback or private addresses/)).toBeTruthy();
    expect(screen.queryByTestId("a2a-card-preview")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Add agent" }));
    expect(await screen.findByText("Only owners and admins can do this.")).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
  });
});

describe("the roster and A2A agents", () => {
  const scout = agentFixture({
    name: "Research Scout",
    sessionKey: "agent:research-scout:product",
    role: CARD.description,
    runsOutside: true,
    a2aRemote: { cardUrl: CARD.cardUrl, endpointUrl: "https://agents.example.com/a2a", protocolVersion: "1.0", description: CARD.description, skills: CARD.skills },
  });
  const devBot = agentFixture({ name: "Dev Bot", sessionKey: "agent:dev-bot:product" });

  it("shows an A2A agent's skills and that it runs over A2A; other agents show neither", () => {
    render(<RosterList agents={[scout, devBot]} isAdmin={false} onNew={() => {}} onEdit={() => {}} />);
    const [dev, remote] = screen.getAllByTestId("roster-agent");
    expect(within(remote).getByText("A2A")).toBeTruthy();
    expect(within(remote).getByTestId("roster-agent-skills").textContent).toBe("Skills: Research");
    expect(within(dev).queryByText("A2A")).toBeNull();
    expect(within(dev).queryByTestId("roster-agent-skills")).toBeNull();
  });

  it("offers Add A2A agent to admins only", () => {
    const onAddA2a = vi.fn();
    const { rerender } = render(<RosterList agents={[devBot]} isAdmin={false} onNew={() => {}} onAddA2a={onAddA2a} onEdit={() => {}} />);
    expect(screen.queryByRole("button", { name: "Add A2A agent" })).toBeNull();
    rerender(<RosterList agents={[devBot]} isAdmin onNew={() => {}} onAddA2a={onAddA2a} onEdit={() => {}} />);
    fireEvent.click(screen.getByRole("button", { name: "Add A2A agent" }));
    expect(onAddA2a).toHaveBeenCalled();
  });
});

describe("A2A work on a card", () => {
  const taskId = "t1" as Id<"tasks">;
  const open = [{ _id: "r1", agentId: "a1" as Id<"agents">, phase: "following" as const, remoteState: "working" }];

  it("shows who works on it over A2A, and Stop cancels it", async () => {
    convex.queries.set("a2aRemote:openForTask", open);
    const stop = vi.fn(() => Promise.resolve(1));
    convex.mutations.set("a2aRemote:stop", stop);
    render(<A2aRemoteWork taskId={taskId} agentName={() => "Research Scout"} />);
    expect(screen.getByTestId("a2a-remote-work").textContent).toContain("Research Scout (A2A): working");
    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    await waitFor(() => expect(stop).toHaveBeenCalledWith({ taskId }));
  });

  it("gives a viewer no Stop, and shows nothing when no A2A work is open", () => {
    convex.queries.set("a2aRemote:openForTask", open);
    const { unmount } = render(
      <RoleContext.Provider value="viewer">
        <A2aRemoteWork taskId={taskId} agentName={() => "Research Scout"} />
      </RoleContext.Provider>,
    );
    expect(screen.queryByRole("button", { name: "Stop" })).toBeNull();
    unmount();
    convex.queries.set("a2aRemote:openForTask", []);
    render(<A2aRemoteWork taskId={taskId} agentName={() => "Research Scout"} />);
    expect(screen.queryByTestId("a2a-remote-work")).toBeNull();
  });
});
