// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { AgentApiKeys } from "../../src/roster/AgentApiKeys";
import { API_SCOPES, DEFAULT_SCOPES, scopeChoiceError, scopeSummary, toggleScope } from "../../src/roster/apiKeyScopes";
import { CreateAgentModal } from "../../src/roster/CreateAgentModal";
import { convex, resetConvex } from "./fakeConvex";
import { agentFixture } from "./fixtures";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const devBot = agentFixture({ name: "Dev Bot", sessionKey: "agent:dev-bot:product", allowedTools: ["chat.post"] });

const KEY = `mk_${"a".repeat(40)}`;
const keys = [
  { _id: "key-2" as Id<"agentApiKeys">, prefix: "mk_bbbbbbbbb", createdAt: Date.UTC(2026, 0, 2), createdByName: "Ada", revokedAt: null, scopes: ["messages:read", "messages:write"] },
  { _id: "key-1" as Id<"agentApiKeys">, prefix: "mk_ccccccccc", createdAt: Date.UTC(2026, 0, 1), createdByName: "Ada", revokedAt: Date.UTC(2026, 0, 3), scopes: [...API_SCOPES] },
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
    expect(items.map((li) => within(li).getByTestId("key-scopes").textContent)).toEqual(["messages:read, messages:write", "All scopes"]);
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
    // The dialog's own button makes it with the defaults.
    fireEvent.click(within(screen.getByRole("dialog", { name: "New API key for Dev Bot" })).getByRole("button", { name: "Create key" }));
    expect((await screen.findByTestId("new-api-key")).textContent).toBe(KEY);
    expect(create).toHaveBeenCalledWith({ agentId: devBot._id, scopes: [...DEFAULT_SCOPES] });
    expect(screen.getByRole("status").textContent).toContain("it won’t be shown again");

    fireEvent.click(screen.getByRole("button", { name: "Done" }));
    expect(screen.queryByTestId("new-api-key")).toBeNull();
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("makes a key with the scopes ticked, and refuses to make one with none", async () => {
    convex.queries.set("agentApiKeys:list", []);
    const create = vi.fn((_args: unknown) => Promise.resolve({ keyId: "key-3", key: KEY, prefix: KEY.slice(0, 12), scopes: ["messages:read"] }));
    convex.mutations.set("agentApiKeys:create", create);
    render(<AgentApiKeys agent={devBot} />);
    fireEvent.click(screen.getByRole("button", { name: "Create key" }));
    const dialog = screen.getByRole("dialog", { name: "New API key for Dev Bot" });
    const chooser = within(dialog).getByRole("group", { name: "What the new key may do" });
    const boxes = within(chooser).getAllByRole("checkbox");
    expect(boxes).toHaveLength(API_SCOPES.length);
    expect(boxes.filter((b) => (b as HTMLInputElement).checked)).toHaveLength(DEFAULT_SCOPES.length);

    // Untick everything: no key, a clear reason.
    for (const box of boxes) if ((box as HTMLInputElement).checked) fireEvent.click(box);
    fireEvent.click(within(dialog).getByRole("button", { name: "Create key" }));
    expect(within(chooser).getByText("Choose at least one scope.")).toBeTruthy();
    expect(create).not.toHaveBeenCalled();

    fireEvent.click(within(chooser).getByRole("checkbox", { name: /messages:read/ }));
    expect(within(chooser).queryByText("Choose at least one scope.")).toBeNull();
    fireEvent.click(within(dialog).getByRole("button", { name: "Create key" }));
    await screen.findByTestId("new-api-key");
    expect(create).toHaveBeenCalledWith({ agentId: devBot._id, scopes: ["messages:read"] });
    expect(screen.queryByRole("group", { name: "What the new key may do" })).toBeNull();
  });

  it("keeps the scope choice in the server's order, and sums up a key's scopes", () => {
    expect(toggleScope(["messages:write"], "projects:read", true)).toEqual(["projects:read", "messages:write"]);
    expect(toggleScope(["projects:read", "messages:write"], "messages:write", false)).toEqual(["projects:read"]);
    expect(scopeChoiceError([])).toBe("Choose at least one scope.");
    expect(scopeChoiceError(["chat:read"])).toBeNull();
    expect(scopeSummary([...API_SCOPES])).toBe("All scopes");
    expect(scopeSummary(["chat:read", "chat:write"])).toBe("chat:read, chat:write");
    // Defaults leave out the scopes that create projects, change channels or answer a waiting run's tool call.
    expect(DEFAULT_SCOPES).not.toContain("projects:write");
    expect(DEFAULT_SCOPES).not.toContain("channels:manage");
    expect(DEFAULT_SCOPES).not.toContain("tools:run");
  });

  it("shows why a create failed, and offers architects no key", async () => {
    convex.queries.set("agentApiKeys:list", []);
    convex.mutations.set("agentApiKeys:create", () =>
      Promise.reject(new ConvexError({ code: "CONFLICT", message: "Dev Bot already has 10 active API keys; revoke one first." })),
    );
    render(<AgentApiKeys agent={devBot} />);
    fireEvent.click(screen.getByRole("button", { name: "Create key" }));
    fireEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Create key" }));
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
