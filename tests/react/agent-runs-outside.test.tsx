// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AgentRunsOutside } from "../../src/roster/AgentRunsOutside";
import { convex, resetConvex } from "./fakeConvex";
import { agentFixture } from "./fixtures";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

beforeEach(resetConvex);
afterEach(cleanup);

describe("AgentRunsOutside", () => {
  it("marks the agent as run outside Maestro, saves its endpoint and shows the signing secret once", async () => {
    const setRunsOutside = vi.fn((args: unknown) => Promise.resolve({ secret: (args as { endpointUrl?: string | null }).endpointUrl ? "whsec_abc" : null }));
    convex.mutations.set("agents:setRunsOutside", setRunsOutside);
    const devBot = agentFixture({ name: "Dev Bot", sessionKey: "agent:dev-bot:product" });
    const { rerender } = render(<AgentRunsOutside agent={devBot} />);
    fireEvent.click(screen.getByRole("checkbox", { name: /Runs outside Maestro/ }));
    await waitFor(() => expect(setRunsOutside).toHaveBeenCalledWith({ agentId: devBot._id, runsOutside: true, endpointUrl: undefined }));

    rerender(<AgentRunsOutside agent={{ ...devBot, runsOutside: true }} />);
    fireEvent.change(screen.getByLabelText(/Endpoint URL/), { target: { value: " https://agents.example.com/dev-bot " } });
    fireEvent.click(screen.getByRole("button", { name: "Save endpoint" }));
    await waitFor(() => expect(setRunsOutside).toHaveBeenLastCalledWith({ agentId: devBot._id, runsOutside: true, endpointUrl: "https://agents.example.com/dev-bot" }));
    expect((await screen.findByRole("status")).textContent).toContain("whsec_abc");
  });

  it("the squad lead cannot be moved outside", () => {
    render(<AgentRunsOutside agent={agentFixture({ name: "Jarvis", sessionKey: "agent:jarvis:product", isSquadLead: true })} />);
    expect((screen.getByRole("checkbox", { name: /Runs outside Maestro/ }) as HTMLInputElement).disabled).toBe(true);
  });
});
