// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { NewChatSession } from "../../src/settings/NewChatSession";
import { useState } from "react";
import { SettingsDialog, type SettingsDepartment } from "../../src/settings/SettingsDialog";
import { SettingsForm } from "../../src/settings/SettingsForm";
import { changedSettings, parsePositiveInteger, type ChatSettingsValues } from "../../src/settings/settings";
import { convex, resetConvex } from "./fakeConvex";

/** The header's Settings button, as the shell has it (an address there; a flag here): opens the dialog, which closes itself. */
function SettingsButton({ department }: { department: SettingsDepartment }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Settings
      </button>
      {open && <SettingsDialog department={department} onClose={() => setOpen(false)} />}
    </>
  );
}

// The dialog test drives SettingsDialog through a fake convex/react.
vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const defaults: ChatSettingsValues = { enabled: true, maxMessageChars: 4096, scannerEnabled: true, scannerTimeoutMs: 800 };
const PROBLEM = "Enter a whole number from 1 to 1,000,000.";
const departmentId = "dept-1" as Id<"departments">;

beforeEach(resetConvex);
afterEach(cleanup);

function input(label: string) {
  return screen.getByLabelText(label) as HTMLInputElement;
}

function setup(onSubmit = vi.fn((_changes: unknown) => Promise.resolve())) {
  render(<SettingsForm initial={defaults} onSubmit={onSubmit} />);
  return { onSubmit };
}

describe("settings helpers", () => {
  it("accepts whole numbers from 1 to 1,000,000 only", () => {
    expect(parsePositiveInteger("1")).toEqual({ value: 1 });
    expect(parsePositiveInteger(" 2048 ")).toEqual({ value: 2048 });
    expect(parsePositiveInteger("1000000")).toEqual({ value: 1_000_000 });
    for (const bad of ["", "0", "-5", "1.5", "1e3", "+5", "abc", "1000001"]) {
      expect(parsePositiveInteger(bad), bad).toEqual({ error: PROBLEM });
    }
  });

  it("keeps only the settings that changed", () => {
    expect(changedSettings(defaults, defaults)).toEqual({});
    expect(changedSettings(defaults, { ...defaults, enabled: false, scannerTimeoutMs: 500 })).toEqual({ enabled: false, scannerTimeoutMs: 500 });
  });
});

describe("SettingsForm", () => {
  it("starts from the current settings", () => {
    setup();
    expect(input("Chat enabled").checked).toBe(true);
    expect(input("Secret scanner enabled").checked).toBe(true);
    expect(input("Max message characters").value).toBe("4096");
    expect(input("Scanner timeout (ms)").value).toBe("800");
  });

  it("submits the changed values as numbers and booleans", async () => {
    const { onSubmit } = setup();
    fireEvent.click(input("Chat enabled"));
    fireEvent.change(input("Max message characters"), { target: { value: "2000" } });
    fireEvent.click(input("Secret scanner enabled"));
    fireEvent.change(input("Scanner timeout (ms)"), { target: { value: "1500" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({ enabled: false, maxMessageChars: 2000, scannerEnabled: false, scannerTimeoutMs: 1500 });
  });

  it("submits only what changed, and nothing when nothing did", async () => {
    const { onSubmit } = setup();
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith({}));
    fireEvent.change(input("Max message characters"), { target: { value: "512" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onSubmit).toHaveBeenLastCalledWith({ maxMessageChars: 512 }));
  });

  it.each(["0", "-3", "1.5", "", "1000001"])("refuses %j as a limit, says why next to the field, and saves nothing", (bad) => {
    const { onSubmit } = setup();
    fireEvent.change(input("Max message characters"), { target: { value: bad } });
    fireEvent.change(input("Scanner timeout (ms)"), { target: { value: "0" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(onSubmit).not.toHaveBeenCalled();
    const max = input("Max message characters");
    expect(max.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(max.getAttribute("aria-describedby")!)?.textContent).toBe(PROBLEM);
    expect(input("Scanner timeout (ms)").getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(max);

    // Fixed, it saves.
    fireEvent.change(max, { target: { value: "100" } });
    fireEvent.change(input("Scanner timeout (ms)"), { target: { value: "800" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(onSubmit).toHaveBeenCalledWith({ maxMessageChars: 100 });
    expect(max.getAttribute("aria-invalid")).toBeNull();
  });

  it("shows the server's refusal inline", async () => {
    setup(vi.fn(() => Promise.reject(new ConvexError({ code: "FORBIDDEN", message: "Only admins can change settings." }))));
    fireEvent.click(input("Chat enabled"));
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Only admins can change settings.");
    expect((screen.getByRole("button", { name: "Save" }) as HTMLButtonElement).disabled).toBe(false);
  });
});

describe("NewChatSession", () => {
  it("asks first, explaining what is lost, and starts the session on confirm", async () => {
    const onConfirm = vi.fn(() => Promise.resolve("session-2"));
    render(<NewChatSession departmentName="Marketing" allowed onConfirm={onConfirm} />);
    fireEvent.click(screen.getByRole("button", { name: "New chat session…" }));
    expect(onConfirm).not.toHaveBeenCalled();
    const group = screen.getByRole("group");
    expect(group.textContent).toContain("Older messages will no longer be visible to agents or in the #maestro pane.");
    fireEvent.click(within(group).getByRole("button", { name: "Start new session" }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
    expect((await screen.findByRole("status")).textContent).toBe("A new session has started.");
  });

  it("can be cancelled", () => {
    const onConfirm = vi.fn(() => Promise.resolve());
    render(<NewChatSession departmentName="Marketing" allowed onConfirm={onConfirm} />);
    fireEvent.click(screen.getByRole("button", { name: "New chat session…" }));
    fireEvent.click(screen.getByRole("button", { name: "Keep this session" }));
    expect(screen.queryByRole("group")).toBeNull();
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it("shows a refusal inline, and only admins of the department get the button", async () => {
    const onConfirm = vi.fn(() => Promise.reject(new ConvexError({ code: "FORBIDDEN", message: "Only admins can start a new chat session." })));
    const { rerender } = render(<NewChatSession departmentName="Marketing" allowed onConfirm={onConfirm} />);
    fireEvent.click(screen.getByRole("button", { name: "New chat session…" }));
    fireEvent.click(screen.getByRole("button", { name: "Start new session" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Only admins can start a new chat session.");

    rerender(<NewChatSession departmentName="Marketing" allowed={false} onConfirm={onConfirm} />);
    expect(screen.queryByRole("button")).toBeNull();
    expect(screen.getByText("Only admins of Marketing can start a new session.")).toBeTruthy();
  });
});

describe("SettingsButton", () => {
  function open() {
    render(<SettingsButton department={{ id: departmentId, name: "Marketing", isAdmin: true }} />);
    fireEvent.click(screen.getByRole("button", { name: "Settings" }));
    return screen.getByRole("dialog", { name: "Settings" });
  }

  it("opens the settings dialog and saves the changes through chat.updateSettings", async () => {
    convex.queries.set("chat:settings", defaults);
    const update = vi.fn((_args: unknown) => Promise.resolve(null));
    convex.mutations.set("chat:updateSettings", update);
    const dialog = open();
    fireEvent.click(within(dialog).getByLabelText("Chat enabled"));
    await act(async () => {
      fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    });
    expect(update).toHaveBeenCalledWith({ departmentId, enabled: false });
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("closes without a call when nothing changed", async () => {
    convex.queries.set("chat:settings", defaults);
    const update = vi.fn((_args: unknown) => Promise.resolve(null));
    convex.mutations.set("chat:updateSettings", update);
    const dialog = open();
    await act(async () => {
      fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    });
    expect(update).not.toHaveBeenCalled();
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("starts a new session for the current department after the confirm step", async () => {
    convex.queries.set("chat:settings", defaults);
    // Loaded, so the dialog's only status line is the session's.
    convex.queries.set("retention:get", {});
    convex.queries.set("departments:about", { name: "Marketing", slug: "marketing" });
    convex.queries.set("injectionSettings:get", { summariser: { kind: "extractive" }, pii: { email: true, phone: true, card: true, iban: true }, hasKey: false });
    convex.queries.set("modelSettings:get", { toolCalls: "auto", chosen: false });
    convex.queries.set("a2aServer:settings", { enabled: false, path: "/a2a/marketing/", cardPath: "/a2a/marketing/.well-known/agent-card.json", siteUrl: null, scope: "a2a:tasks" });
    const newSession = vi.fn((_args: unknown) => Promise.resolve("session-2"));
    convex.mutations.set("chat:newSession", newSession);
    const dialog = open();
    fireEvent.click(within(dialog).getByRole("button", { name: "New chat session…" }));
    await act(async () => {
      fireEvent.click(within(dialog).getByRole("button", { name: "Start new session" }));
    });
    expect(newSession).toHaveBeenCalledWith({ departmentId });
    expect(within(dialog).getByRole("status").textContent).toBe("A new session has started.");
  });
});
