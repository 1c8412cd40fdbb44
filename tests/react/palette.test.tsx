import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { CommandPaletteView, paletteItems, type PaletteFiles, type PaletteResults } from "../../src/shell/CommandPalette";
import { isTypingTarget, SHORTCUTS, shortcutFor } from "../../src/shell/shortcuts";
import { ShortcutsHelp } from "../../src/shell/ShortcutsHelp";

afterEach(cleanup);

const results: PaletteResults = {
  tasks: [
    { _id: "t1" as Id<"tasks">, title: "Pricing page copy", status: "assigned" },
    { _id: "t2" as Id<"tasks">, title: "Pricing experiment", status: "done" },
  ],
  agents: [{ _id: "a1" as Id<"agents">, name: "Writer", role: "Copywriter", sessionKey: "agent:writer:product" }],
  channels: [{ _id: "c1" as Id<"channels">, kind: "channel", title: "#pricing" }],
  runs: [{ _id: "r1" as Id<"runs">, agentName: "Writer", taskTitle: "Pricing page copy", status: "completed" }],
};

function press(key: string, extra: Partial<KeyboardEventInit & { defaultPrevented: boolean }> = {}, target: EventTarget | null = document.body) {
  return { key, ctrlKey: false, metaKey: false, altKey: false, defaultPrevented: false, target, ...extra };
}

describe("shortcuts", () => {
  it("maps keys to actions, and Ctrl/Cmd-K works even while typing", () => {
    expect(shortcutFor(press("c"), false)).toBe("newTask");
    expect(shortcutFor(press("/"), false)).toBe("search");
    expect(shortcutFor(press("?"), false)).toBe("help");
    expect(shortcutFor(press("k", { ctrlKey: true }), false)).toBe("palette");
    expect(shortcutFor(press("K", { metaKey: true }), true)).toBe("palette");
    expect(shortcutFor(press("x"), false)).toBeNull();
  });

  it("never eats a letter typed into a field, nor acts under a dialog or with modifiers", () => {
    const input = document.createElement("input");
    const checkbox = Object.assign(document.createElement("input"), { type: "checkbox" });
    const area = document.createElement("textarea");
    expect(isTypingTarget(input)).toBe(true);
    expect(isTypingTarget(area)).toBe(true);
    expect(isTypingTarget(checkbox)).toBe(false);
    expect(isTypingTarget(document.body)).toBe(false);
    expect(shortcutFor(press("c", {}, input), false)).toBeNull();
    expect(shortcutFor(press("k", { ctrlKey: true }, input), false)).toBe("palette");
    expect(shortcutFor(press("c"), true)).toBeNull();
    expect(shortcutFor(press("c", { altKey: true }), false)).toBeNull();
    expect(shortcutFor(press("c", { defaultPrevented: true }), false)).toBeNull();
  });

  it("the help overlay lists every shortcut, the board's j/k/Enter included", () => {
    render(<ShortcutsHelp onClose={vi.fn()} />);
    const help = screen.getByTestId("shortcuts-help");
    for (const shortcut of SHORTCUTS) expect(help.textContent).toContain(shortcut.description);
    for (const key of ["j", "k", "Enter", "Esc", "c", "/", "?"]) expect(SHORTCUTS.some((s) => s.keys.includes(key))).toBe(true);
  });
});

describe("the command palette", () => {
  it("lists tasks, then agents, channels and runs", () => {
    expect(paletteItems(results).map((item) => `${item.kind}:${item.label}`)).toEqual([
      "task:Pricing page copy",
      "task:Pricing experiment",
      "agent:Writer",
      "channel:#pricing",
      "run:Writer on “Pricing page copy”",
    ]);
    expect(paletteItems(undefined)).toEqual([]);
  });

  it("moves with the arrows and opens with Enter or a click", () => {
    const onPick = vi.fn();
    render(<CommandPaletteView text="pri" onText={vi.fn()} results={results} onPick={onPick} onClose={vi.fn()} />);
    const box = screen.getByRole("combobox");
    fireEvent.keyDown(box, { key: "ArrowDown" });
    fireEvent.keyDown(box, { key: "ArrowDown" });
    expect(screen.getAllByRole("option")[2].getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(box, { key: "ArrowDown" });
    fireEvent.keyDown(box, { key: "ArrowDown" });
    fireEvent.keyDown(box, { key: "ArrowDown" });
    expect(screen.getAllByRole("option")[0].getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(box, { key: "ArrowUp" });
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onPick).toHaveBeenLastCalledWith(expect.objectContaining({ kind: "run", id: "r1" }));
    fireEvent.keyDown(box, { key: "ArrowUp" });
    fireEvent.keyDown(box, { key: "ArrowUp" });
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onPick).toHaveBeenLastCalledWith(expect.objectContaining({ kind: "agent", label: "Writer", sessionKey: "agent:writer:product" }));
    expect(screen.getAllByRole("option")[3].textContent).toContain("Channel · channel");
    fireEvent.click(screen.getByText("Pricing experiment"));
    expect(onPick).toHaveBeenLastCalledWith(expect.objectContaining({ kind: "task", id: "t2" }));
  });

  it("lists files after runs, each saying where it was posted, and opens the file's channel or task", () => {
    const files: PaletteFiles = [
      { fileId: "s1" as Id<"_storage">, channelId: "c1" as Id<"channels">, place: "#pricing", name: "pricing-plan.md", contentType: "text/markdown", size: 12, createdAt: 1 },
      { fileId: "s2" as Id<"_storage">, taskId: "t1" as Id<"tasks">, place: "Pricing page copy", name: "pricing-brief.pdf", contentType: "application/pdf", size: 40, createdAt: 2 },
    ];
    expect(paletteItems(results, [], "pri", files).map((item) => `${item.kind}:${item.label}`).slice(-3)).toEqual(["run:Writer on “Pricing page copy”", "file:pricing-plan.md", "file:pricing-brief.pdf"]);
    // A slash command hides everything else.
    expect(paletteItems(results, [], "/", files).some((item) => item.kind === "file")).toBe(false);
    const onPick = vi.fn();
    render(<CommandPaletteView text="pri" onText={vi.fn()} results={results} onPick={onPick} onClose={vi.fn()} files={files} />);
    expect(screen.getAllByRole("option")[6].textContent).toContain("File · in Pricing page copy");
    fireEvent.click(screen.getByText("pricing-plan.md"));
    expect(onPick).toHaveBeenLastCalledWith(expect.objectContaining({ kind: "file", where: { channelId: "c1" } }));
    fireEvent.click(screen.getByText("pricing-brief.pdf"));
    expect(onPick).toHaveBeenLastCalledWith(expect.objectContaining({ kind: "file", where: { taskId: "t1" } }));
  });

  it("says when nothing matches, and closes on Escape", () => {
    const onClose = vi.fn();
    render(<CommandPaletteView text="zzz" onText={vi.fn()} results={{ tasks: [], agents: [], channels: [], runs: [] }} onPick={vi.fn()} onClose={onClose} />);
    expect(screen.getByRole("listbox").textContent).toContain("Nothing matches “zzz”");
    fireEvent.keyDown(screen.getByRole("combobox"), { key: "Escape" });
    expect(onClose).toHaveBeenCalled();
  });
});
