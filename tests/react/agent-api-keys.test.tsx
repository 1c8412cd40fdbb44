// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { AgentApiKeys } from "../../src/roster/AgentApiKeys";
import { CreateAgentModal } from "../../src/roster/CreateAgentModal";
import { convex, resetConvex } from "./fakeConvex";
import { agentFixture } from "./fixtures";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const devBot = agentFixture({ name: "Dev Bot", sessionKey: "agent:dev-bot:product", allowedTools: ["chat.post"] });

const KEY = `mk_${"a".repeat(40)}`;
const keys = [
  { _id: "key-2" as Id<"agentApiKeys">, prefix: "mk_bbbbbbbbb", createdAt: Date.UTC(2026, 0, 2), createdByName: "Ada", revokedAt: null },
  { _id: "key-1" as Id<"agentApiKeys">, prefix: "mk_ccccccccc", createdAt: Date.UTC(2026, 0, 1), createdByName: "Ada", revokedAt: Date.UTC(2026, 0, 3) },
];

beforeEach(resetConvex);
afterEach(cleanup);

describe("AgentApiKeys", () => {
  it("lists keys by prefix, marks revoked ones, and revokes an active one", async () => {
    convex.queries.set("agentApiKeys:list", keys);
    const revoke = vi.fn((_args: unknown) => Promise.resolve(null));
    convex.mutations.set("agentApiKeys:revoke", revoke);
    render(<AgentApiKeys agent={devBot} />);

    const section = screen.getByRole("region", { name: "API keys" });
    const items = within(section).getAllByRole("listitem");
    expect(items.map((li) => li.querySelector("code")?.textContent)).toEqual(["mk_bbbbbbbbb…", "mk_ccccccccc…"]);
    expect(within(items[0]).getByText(/by Ada/)).toBeTruthy();
    expect(within(items[1]).getByText("Revoked")).toBeTruthy();
    expect(within(items[1]).queryByRole("button")).toBeNull();

    fireEvent.click(within(items[0]).getByRole("button", { name: "Revoke key mk_bbbbbbbbb" }));
    await waitFor(() => expect(revoke).toHaveBeenCalledWith({ keyId: "key-2" }));
  });

  it("shows a new key's plaintext once, with the warning, until Done", async () => {
    convex.queries.set("agentApiKeys:list", []);
    const create = vi.fn((_args: unknown) => Promise.resolve({ keyId: "key-3", key: KEY, prefix: KEY.slice(0, 12) }));
    convex.mutations.set("agentApiKeys:create", create);
    render(<AgentApiKeys agent={devBot} />);
    expect(screen.getByText("No keys yet.")).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Create key" }));
    expect((await screen.findByTestId("new-api-key")).textContent).toBe(KEY);
    expect(create).toHaveBeenCalledWith({ agentId: devBot._id });
    expect(screen.getByRole("status").textContent).toContain("it won’t be shown again");

    fireEvent.click(screen.getByRole("button", { name: "Done" }));
    expect(screen.queryByTestId("new-api-key")).toBeNull();
  });

  it("shows why a create failed, and offers architects no key", async () => {
    convex.queries.set("agentApiKeys:list", []);
    convex.mutations.set("agentApiKeys:create", () =>
      Promise.reject(new ConvexError({ code: "CONFLICT", message: "Dev Bot already has 10 active API keys; revoke one first." })),
    );
    render(<AgentApiKeys agent={devBot} />);
    fireEvent.click(screen.getByRole("button", { name: "Create key" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Dev Bot already has 10 active API keys; revoke one first.");
    cleanup();

    render(<AgentApiKeys agent={{ ...devBot, kind: "architect" }} />);
    expect(screen.queryByRole("button", { name: "Create key" })).toBeNull();
    expect(screen.getByText(/Architects take no part in chat/)).toBeTruthy();
  });

  it("is in the modal when editing an agent, not when creating one", () => {
    convex.queries.set("tools/registry:list", []);
    convex.queries.set("agents:toolApprovals", []);
    convex.queries.set("agentApiKeys:list", []);
    render(<CreateAgentModal departmentId={"dept-1" as Id<"departments">} agent={devBot} onClose={() => {}} />);
    expect(screen.getByRole("region", { name: "API keys" })).toBeTruthy();
    cleanup();
    render(<CreateAgentModal departmentId={"dept-1" as Id<"departments">} onClose={() => {}} />);
    expect(screen.queryByRole("region", { name: "API keys" })).toBeNull();
  });
});
