// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { AgentForm } from "../../src/roster/AgentForm";
import { CreateAgentModal } from "../../src/roster/CreateAgentModal";
import { valuesFromAgent } from "../../src/roster/options";
import type { Tool } from "../../src/roster/types";
import { convex, resetConvex } from "./fakeConvex";
import { agentFixture } from "./fixtures";

// The container test drives CreateAgentModal through a fake convex/react.
vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const tools: Tool[] = [
  { name: "delegate_task", description: "Create a public task for other agents.", approval: "high_priority" },
  { name: "post_message", description: "Post a message in a task's thread." },
  { name: "update_task_status", description: "Move a task to another column." },
  { name: "ask_question", description: "Ask the humans a question." },
];

const jarvis = agentFixture({
  name: "Jarvis",
  role: "Squad lead",
  kind: "lead",
  sessionKey: "agent:jarvis:marketing",
  status: "active",
  isSquadLead: true,
  allowedTools: ["delegate_task", "post_message"],
  model: "gpt-5",
  systemPrompt: "You lead the squad.",
});

const departmentId = "dept-1" as Id<"departments">;

beforeEach(resetConvex);
afterEach(cleanup);

function field(label: RegExp | string) {
  return screen.getByLabelText(label);
}

function type(label: RegExp | string, value: string) {
  fireEvent.change(field(label), { target: { value } });
}

describe("AgentForm", () => {
  it("submits the filled-in fields and the checked tools, in registry order", async () => {
    const onSubmit = vi.fn(() => Promise.resolve());
    render(<AgentForm tools={tools} onSubmit={onSubmit} submitLabel="Create agent" />);

    type("Name", "  Dev Bot ");
    type("Role", "Developer");
    fireEvent.change(field("Kind"), { target: { value: "coder" } });
    type(/Model/, "gpt-5-mini");
    type("System prompt", "You write code.");
    fireEvent.click(screen.getByTestId("tool-ask_question"));
    fireEvent.click(screen.getByTestId("tool-post_message"));
    fireEvent.click(screen.getByTestId("tool-update_task_status"));
    fireEvent.click(screen.getByTestId("tool-update_task_status")); // and off again
    fireEvent.click(screen.getByRole("button", { name: "Create agent" }));

    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({
      name: "Dev Bot",
      role: "Developer",
      kind: "coder",
      model: "gpt-5-mini",
      systemPrompt: "You write code.",
      isSquadLead: false,
      allowedTools: ["post_message", "ask_question"],
      toolApprovals: [],
    });
  });

  it("ticking Squad lead allows delegate_task too; a lead without it is told it can only answer", async () => {
    const onSubmit = vi.fn((_values: unknown) => Promise.resolve());
    render(<AgentForm tools={tools} onSubmit={onSubmit} />);
    type("Name", "Nova");
    type("Role", "Lead");
    expect((screen.getByTestId("tool-delegate_task") as HTMLInputElement).checked).toBe(false);
    fireEvent.click(screen.getByRole("checkbox", { name: /Squad lead/ }));
    expect((screen.getByTestId("tool-delegate_task") as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByTestId("lead-without-delegate")).toBeNull();
    fireEvent.click(screen.getByTestId("tool-delegate_task"));
    expect(screen.getByTestId("lead-without-delegate").textContent).toContain("Without delegate_task this lead is told it may not delegate");
    fireEvent.click(screen.getByTestId("tool-delegate_task"));
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0][0]).toMatchObject({ isSquadLead: true, allowedTools: ["delegate_task"] });
  });

  it("says why when delegate_task is not offered at all", () => {
    render(<AgentForm tools={tools.filter((tool) => tool.name !== "delegate_task")} onSubmit={() => Promise.resolve()} />);
    fireEvent.click(screen.getByRole("checkbox", { name: /Squad lead/ }));
    expect(screen.getByTestId("lead-without-delegate").textContent).toBe("delegate_task is not available here, so this lead can only answer.");
  });

  it("sets a per-tool approval policy for each allowed tool, starting from the tool's default", async () => {
    const onSubmit = vi.fn((_values: unknown) => Promise.resolve());
    render(<AgentForm tools={tools} onSubmit={onSubmit} />);
    type("Name", "Newbie");
    type("Role", "Lead");
    // Only an allowed tool has a policy to set.
    expect(screen.queryByTestId("approval-delegate_task")).toBeNull();
    fireEvent.click(screen.getByTestId("tool-delegate_task"));
    fireEvent.click(screen.getByTestId("tool-post_message"));
    fireEvent.click(screen.getByTestId("tool-ask_question"));
    const delegate = screen.getByRole("combobox", { name: "Approval for delegate_task" });
    expect(delegate).toHaveProperty("value", "high_priority");
    expect([...(delegate as HTMLSelectElement).options].map((o) => o.text)).toEqual(["Never", "Always", "When priority is high"]);
    expect(screen.getByRole("combobox", { name: "Approval for post_message" })).toHaveProperty("value", "never");
    fireEvent.change(delegate, { target: { value: "always" } });
    fireEvent.change(screen.getByRole("combobox", { name: "Approval for post_message" }), { target: { value: "high_priority" } });
    fireEvent.change(screen.getByRole("combobox", { name: "Approval for ask_question" }), { target: { value: "always" } });
    // A tool taken away loses its policy.
    fireEvent.click(screen.getByTestId("tool-ask_question"));
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect((onSubmit.mock.calls[0][0] as { toolApprovals: unknown }).toolApprovals).toEqual([
      { tool: "delegate_task", policy: "always" },
      { tool: "post_message", policy: "high_priority" },
    ]);
  });

  it("pre-fills an agent's own policies and drops one set back to the default", async () => {
    const onSubmit = vi.fn((_values: unknown) => Promise.resolve());
    const initial = { ...valuesFromAgent(jarvis), toolApprovals: [{ tool: "delegate_task", policy: "never" as const }] };
    render(<AgentForm tools={tools} initial={initial} onSubmit={onSubmit} />);
    const delegate = screen.getByRole("combobox", { name: "Approval for delegate_task" });
    expect(delegate).toHaveProperty("value", "never");
    fireEvent.change(delegate, { target: { value: "high_priority" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect((onSubmit.mock.calls[0][0] as { toolApprovals: unknown }).toolApprovals).toEqual([]);
  });

  it("leaves out an empty model and can make the agent squad lead", async () => {
    const onSubmit = vi.fn((_values: unknown) => Promise.resolve());
    render(<AgentForm tools={tools} onSubmit={onSubmit} />);
    type("Name", "Lead");
    type("Role", "Lead");
    type(/Model/, "   ");
    fireEvent.click(screen.getByRole("checkbox", { name: /Squad lead/ }));
    fireEvent.click(screen.getByRole("button", { name: "Save" }));

    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    const values = onSubmit.mock.calls[0][0] as Record<string, unknown>;
    expect("model" in values).toBe(false);
    expect(values.isSquadLead).toBe(true);
    expect(values.kind).toBe("specialist");
    // A lead delegates: ticking Squad lead allowed delegate_task with it.
    expect(values.allowedTools).toEqual(["delegate_task"]);
  });

  it("pre-fills an agent being edited, tools pre-checked", async () => {
    const onSubmit = vi.fn(() => Promise.resolve());
    render(<AgentForm tools={tools} initial={valuesFromAgent(jarvis)} onSubmit={onSubmit} />);

    expect(field("Name")).toHaveProperty("value", "Jarvis");
    expect(field("Role")).toHaveProperty("value", "Squad lead");
    expect(field("Kind")).toHaveProperty("value", "lead");
    expect(field(/Model/)).toHaveProperty("value", "gpt-5");
    expect(field("System prompt")).toHaveProperty("value", "You lead the squad.");
    expect(screen.getByRole("checkbox", { name: /Squad lead/ })).toHaveProperty("checked", true);
    expect(screen.getByTestId("tool-delegate_task")).toHaveProperty("checked", true);
    expect(screen.getByTestId("tool-post_message")).toHaveProperty("checked", true);
    expect(screen.getByTestId("tool-update_task_status")).toHaveProperty("checked", false);
    expect(screen.getByTestId("tool-ask_question")).toHaveProperty("checked", false);

    fireEvent.click(screen.getByTestId("tool-delegate_task"));
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ name: "Jarvis", allowedTools: ["post_message"] }));
  });

  it("shows the tools' descriptions", () => {
    render(<AgentForm tools={tools} onSubmit={() => Promise.resolve()} />);
    const checkbox = screen.getByRole("checkbox", { name: "ask_question", description: "Ask the humans a question." });
    expect(checkbox).toBe(screen.getByTestId("tool-ask_question"));
  });

  it("shows the server's error message in an alert and stays open for another try", async () => {
    const onSubmit = vi.fn(() => Promise.reject(new ConvexError({ code: "CONFLICT", message: "An agent called Jarvis already exists in this department." })));
    render(<AgentForm tools={tools} onSubmit={onSubmit} />);
    type("Name", "Jarvis");
    type("Role", "Lead");
    fireEvent.click(screen.getByRole("button", { name: "Save" }));

    expect((await screen.findByRole("alert")).textContent).toBe("An agent called Jarvis already exists in this department.");
    expect(screen.getByRole("button", { name: "Save" }).getAttribute("aria-disabled")).toBe("false");
  });

  it("shows a generic message for an error that is not a ConvexError", async () => {
    render(<AgentForm tools={tools} onSubmit={() => Promise.reject(new Error("socket closed"))} />);
    type("Name", "X");
    type("Role", "Y");
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Something went wrong. Please try again.");
  });

  it("asks for a name and a role before calling the server", () => {
    const onSubmit = vi.fn(() => Promise.resolve());
    render(<AgentForm tools={tools} onSubmit={onSubmit} />);
    type("Name", "   ");
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(field("Name").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByRole("textbox", { name: "Name", description: "Give the agent a name." })).toBe(document.activeElement);
    expect(screen.getByRole("textbox", { name: "Role", description: "Give the agent a role." })).toBeTruthy();

    type("Name", "Dev Bot");
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(field("Name").getAttribute("aria-invalid")).toBeNull();
    expect(document.activeElement).toBe(field("Role"));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("ignores another Save while the save is in flight", async () => {
    let finish: () => void = () => {};
    const onSubmit = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    render(<AgentForm tools={tools} onSubmit={onSubmit} />);
    type("Name", "Dev Bot");
    type("Role", "Developer");
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    const busy = await screen.findByRole("button", { name: "Saving…" });
    expect(busy.getAttribute("aria-disabled")).toBe("true");
    fireEvent.click(busy);
    expect(onSubmit).toHaveBeenCalledTimes(1);
    finish();
    await screen.findByRole("button", { name: "Save" });
  });
});

describe("CreateAgentModal", () => {
  it("creates an agent in the department and closes", async () => {
    convex.queries.set("tools/registry:list", tools);
    const create = vi.fn((_args: unknown) => Promise.resolve("agent-9"));
    convex.mutations.set("agents:create", create);
    const onClose = vi.fn();
    render(<CreateAgentModal departmentId={departmentId} onClose={onClose} />);

    expect(screen.getByRole("dialog", { name: "New agent" })).toBeTruthy();
    type("Name", "Dev Bot");
    type("Role", "Developer");
    fireEvent.click(screen.getByTestId("tool-post_message"));
    fireEvent.click(screen.getByRole("button", { name: "Create agent" }));

    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
    expect(create).toHaveBeenCalledWith({
      departmentId,
      name: "Dev Bot",
      role: "Developer",
      kind: "specialist",
      systemPrompt: "",
      isSquadLead: false,
      allowedTools: ["post_message"],
      toolApprovals: [],
    });
  });

  it("updates the agent being edited, and shows FORBIDDEN in the form without closing", async () => {
    convex.queries.set("tools/registry:list", tools);
    const update = vi.fn((_args: unknown) => Promise.reject(new ConvexError({ code: "FORBIDDEN", message: "Only admins can create or edit agents." })));
    convex.mutations.set("agents:update", update);
    convex.queries.set("agents:toolApprovals", [{ tool: "delegate_task", policy: "always" }]);
    const onClose = vi.fn();
    render(<CreateAgentModal departmentId={departmentId} agent={jarvis} onClose={onClose} />);

    expect(screen.getByRole("dialog", { name: "Edit Jarvis" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));

    expect((await screen.findByRole("alert")).textContent).toBe("Only admins can create or edit agents.");
    expect(update).toHaveBeenCalledWith({ agentId: jarvis._id, ...valuesFromAgent(jarvis), toolApprovals: [{ tool: "delegate_task", policy: "always" }] });
    expect(onClose).not.toHaveBeenCalled();
  });

  it("is a labelled modal dialog that starts on the name field and closes on Esc, Close and Cancel", () => {
    convex.queries.set("tools/registry:list", tools);
    const onClose = vi.fn();
    render(<CreateAgentModal departmentId={departmentId} onClose={onClose} />);
    const dialog = screen.getByRole("dialog", { name: "New agent" });
    expect(dialog.getAttribute("aria-modal")).toBe("true");
    expect(document.activeElement).toBe(within(dialog).getByLabelText("Name"));

    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    expect(onClose).toHaveBeenCalledTimes(1);
    fireEvent.click(within(dialog).getByRole("button", { name: "Close" }));
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(onClose).toHaveBeenCalledTimes(3);
  });

  it("shows a placeholder until the tools arrive", () => {
    render(<CreateAgentModal departmentId={departmentId} onClose={() => {}} />);
    expect(within(screen.getByRole("dialog")).getByRole("status")).toBeTruthy();
    expect(screen.queryByLabelText("Name")).toBeNull();
  });
});
