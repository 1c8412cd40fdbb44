import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChatComposer } from "../../src/chat/ChatComposer";
import { CommandPaletteView } from "../../src/shell/CommandPalette";
import { createSlashInserts, SlashInsertContext } from "../../src/slash/insert";
import { SlashPreviewView, type SlashPreviewResult } from "../../src/slash/SlashPreview";
import { argumentCompletion } from "../../src/slash/arguments";
import { slashQuery, type SlashCommandItem, type SlashResult, type SlashSupport } from "../../src/slash/slash";
import { Composer } from "../../src/task/Composer";

afterEach(cleanup);

// What the shell provides: the palette's picked command goes to the newest composer.
const inserts = createSlashInserts();
const WithSlashInserts = ({ children }: { children: ReactNode }) => <SlashInsertContext.Provider value={inserts}>{children}</SlashInsertContext.Provider>;

const commands: SlashCommandItem[] = [
  { name: "assign", description: "Assign this task to an agent", argumentHint: "<agent>", kind: "action", source: "builtin" },
  { name: "delegate", description: "Delegate a new task to an agent directly", argumentHint: "<agent> <title>", kind: "action", source: "builtin" },
  { name: "help", description: "List the slash commands", argumentHint: "", kind: "action", source: "builtin" },
  { name: "review", description: "Ask for a review", argumentHint: "[focus]", kind: "prompt", source: "department" },
];

function type(textarea: HTMLTextAreaElement, value: string) {
  fireEvent.change(textarea, { target: { value, selectionStart: value.length, selectionEnd: value.length } });
}

function support(run: (text: string) => Promise<SlashResult>, preview: (text: string) => SlashPreviewResult | undefined = () => undefined): SlashSupport {
  return { commands, run, renderPreview: (text) => <SlashPreviewView preview={preview(text)} /> };
}

const composers = [
  {
    name: "task thread composer",
    mount: (slash: SlashSupport, onSend = vi.fn(() => Promise.resolve())) => {
      render(<Composer candidates={[]} onSend={onSend} slash={slash} />, { wrapper: WithSlashInserts });
      return { textarea: screen.getByRole("combobox", { name: "Message" }) as HTMLTextAreaElement, onSend };
    },
  },
  {
    name: "#maestro composer",
    mount: (slash: SlashSupport, onSend = vi.fn(() => Promise.resolve())) => {
      render(<ChatComposer maxMessageChars={4000} onSend={onSend} slash={slash} />, { wrapper: WithSlashInserts });
      return { textarea: screen.getByLabelText("Message #maestro") as HTMLTextAreaElement, onSend };
    },
  },
];

const squad = ["Jarvis", "Dev Bot", "Writer"];
const withArguments: SlashCommandItem[] = [
  { ...commands[0], argument: "agents" },
  { ...commands[1], argument: "agent" },
  { name: "status", description: "Move this task", argumentHint: "<status>", kind: "action", source: "builtin", argument: "status" },
  ...commands.slice(2),
];

describe("argumentCompletion", () => {
  const at = (text: string) => argumentCompletion(text, text.length, withArguments, squad);
  const values = (text: string) => at(text)?.choices.map((c) => c.value) ?? null;

  it("completes agent names, several words included, from where the name starts", () => {
    expect(values("/assign ")).toEqual(squad);
    expect(values("/assign d")).toEqual(["Dev Bot"]);
    expect(at("/assign Dev B")).toMatchObject({ from: 8, choices: [{ value: "Dev Bot", description: "Agent" }] });
    // After one name, the next: the one already named is not offered again.
    expect(values("/assign Dev Bot ")).toEqual(["Jarvis", "Writer"]);
    expect(at("/assign Dev Bot w")).toMatchObject({ from: 16, choices: [{ value: "Writer" }] });
    // Typed in full, or a word that starts no name: nothing to offer.
    expect(at("/assign Dev Bot")).toBeNull();
    expect(at("/assign Zed")).toBeNull();
  });

  it("completes /delegate's agent only (the rest is its title), and statuses for /status", () => {
    expect(values("/delegate wr")).toEqual(["Writer"]);
    expect(at("/delegate Writer draft th")).toBeNull();
    expect(values("/status in")).toEqual(["inbox", "in_progress"]);
    expect(at("/status in pro")).toMatchObject({ from: 8, choices: [{ value: "in_progress", description: "In progress" }] });
    expect(at("/status done")).toBeNull();
    expect(at("/help x")).toBeNull();
    expect(at("/assign")).toBeNull();
  });
});

describe.each(composers)("argument completion in the $name", ({ mount }) => {
  it("lists the agents matching what is typed; Tab puts the whole name in, ready for the next", () => {
    const { textarea } = mount({ ...support(vi.fn()), commands: withArguments, agents: squad });
    type(textarea, "/assign Dev B");
    const menu = screen.getByRole("listbox", { name: "Argument values" });
    expect(within(menu).getAllByRole("option").map((o) => o.getAttribute("data-command"))).toEqual(["Dev Bot"]);
    fireEvent.keyDown(textarea, { key: "Tab" });
    expect(textarea.value).toBe("/assign Dev Bot ");
    type(textarea, "/status rev");
    fireEvent.keyDown(textarea, { key: "Enter" });
    expect(textarea.value).toBe("/status review ");
  });
});

describe("slashQuery", () => {
  it("is the name being typed right after a leading /", () => {
    expect(slashQuery("/de", 3)).toBe("de");
    expect(slashQuery("/", 1)).toBe("");
    expect(slashQuery("/delegate Dev", 13)).toBeNull();
    expect(slashQuery("hi /de", 6)).toBeNull();
  });
});

describe.each(composers)("the / autocomplete in the $name", ({ mount }) => {
  it("opens on /, filters by name, shows description and argument hint", () => {
    const { textarea } = mount(support(vi.fn()));
    type(textarea, "/");
    const menu = screen.getByRole("listbox", { name: "Slash commands" });
    expect(within(menu).getAllByRole("option")).toHaveLength(4);
    type(textarea, "/de");
    const options = within(screen.getByRole("listbox", { name: "Slash commands" })).getAllByRole("option");
    expect(options).toHaveLength(1);
    expect(options[0].textContent).toContain("/delegate");
    expect(options[0].textContent).toContain("<agent> <title>");
    expect(options[0].textContent).toContain("Delegate a new task to an agent directly");
  });

  it("arrow keys move, Enter picks (inserting /name ), Tab picks too, Escape closes", () => {
    const { textarea } = mount(support(vi.fn()));
    type(textarea, "/");
    const selected = () => screen.getByRole("option", { selected: true }).getAttribute("data-command");
    expect(selected()).toBe("assign");
    fireEvent.keyDown(textarea, { key: "ArrowDown" });
    expect(selected()).toBe("delegate");
    fireEvent.keyDown(textarea, { key: "ArrowUp" });
    fireEvent.keyDown(textarea, { key: "ArrowUp" });
    expect(selected()).toBe("review");
    fireEvent.keyDown(textarea, { key: "ArrowDown" });
    fireEvent.keyDown(textarea, { key: "ArrowDown" });
    fireEvent.keyDown(textarea, { key: "Enter" });
    expect(textarea.value).toBe("/delegate ");
    expect(screen.queryByRole("listbox", { name: "Slash commands" })).toBeNull();

    type(textarea, "/he");
    fireEvent.keyDown(textarea, { key: "Tab" });
    expect(textarea.value).toBe("/help ");

    type(textarea, "/re");
    // Handled (default prevented), so a drawer around the composer stays open.
    expect(fireEvent.keyDown(textarea, { key: "Escape" })).toBe(false);
    expect(screen.queryByRole("listbox", { name: "Slash commands" })).toBeNull();
    type(textarea, "/rev");
    expect(screen.getByRole("listbox", { name: "Slash commands" })).toBeTruthy();
  });

  it("previews the rendered command before sending", () => {
    const preview = vi.fn((): SlashPreviewResult => ({ ok: true, kind: "prompt", text: '<slash-command name="review" invokedAs="/review tests">…', target: "Dev Bot" }));
    const { textarea } = mount(support(vi.fn(), preview));
    type(textarea, "/review tests");
    expect(preview).toHaveBeenLastCalledWith("/review tests");
    const box = screen.getByTestId("slash-preview");
    expect(box.textContent).toContain("Preview · sends to Dev Bot");
    expect(box.textContent).toContain('<slash-command name="review" invokedAs="/review tests">');
  });

  it("an unknown command shows its error inline and nothing is sent", async () => {
    const run = vi.fn(async (): Promise<SlashResult> => ({ ok: false, error: "Unknown command /nope. Type /help for the list." }));
    const { textarea, onSend } = mount(support(run, () => ({ ok: false, error: "Unknown command /nope. Type /help for the list." })));
    type(textarea, "/nope now");
    expect(screen.getByTestId("slash-error").textContent).toBe("Unknown command /nope. Type /help for the list.");
    fireEvent.keyDown(textarea, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(screen.getAllByRole("alert").some((a) => a.textContent === "Unknown command /nope. Type /help for the list." && a.getAttribute("data-testid") !== "slash-error")).toBe(true));
    expect(run).toHaveBeenCalledWith("/nope now");
    expect(onSend).not.toHaveBeenCalled();
    expect(textarea.value).toBe("/nope now");
  });

  it("a command that works clears the box and says what it did; plain text is posted as before", async () => {
    const run = vi.fn(async (): Promise<SlashResult> => ({ ok: true, message: "Delegated “Fix it” to Dev Bot." }));
    const { textarea, onSend } = mount(support(run));
    type(textarea, "/delegate Dev-Bot Fix it");
    fireEvent.keyDown(textarea, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(screen.getByTestId("slash-result").textContent).toBe("Delegated “Fix it” to Dev Bot."));
    expect(textarea.value).toBe("");
    type(textarea, "hello /world");
    fireEvent.keyDown(textarea, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(onSend).toHaveBeenCalledWith("hello /world", expect.any(String)));
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("takes a command picked in the command palette", () => {
    const { textarea } = mount(support(vi.fn()));
    expect(inserts.request("/review ")).toBe(true);
    return waitFor(() => expect(textarea.value).toBe("/review "));
  });
});

describe("without slash support", () => {
  it("/ is plain text", async () => {
    const onSend = vi.fn(() => Promise.resolve());
    render(<ChatComposer maxMessageChars={4000} onSend={onSend} />);
    const textarea = screen.getByLabelText("Message #maestro") as HTMLTextAreaElement;
    type(textarea, "/help");
    expect(screen.queryByRole("listbox")).toBeNull();
    fireEvent.keyDown(textarea, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(onSend).toHaveBeenCalledWith("/help", expect.any(String)));
  });
});

describe("the command palette", () => {
  it("lists slash commands after a /, and picks them", () => {
    const onPick = vi.fn();
    render(<CommandPaletteView text="/del" onText={vi.fn()} results={{ tasks: [], agents: [], channels: [], runs: [] }} onPick={onPick} onClose={vi.fn()} commands={commands} />);
    const items = screen.getAllByTestId("palette-item");
    expect(items.map((i) => i.textContent)).toEqual([expect.stringContaining("/delegate")]);
    fireEvent.keyDown(screen.getByRole("combobox"), { key: "Enter" });
    expect(onPick).toHaveBeenCalledWith({ kind: "command", id: "delegate", label: "/delegate", detail: "Delegate a new task to an agent directly" });
  });
});

describe("the preview while the list is open", () => {
  it("shows for a name typed in full, not for a partial one", () => {
    const preview = vi.fn((): SlashPreviewResult => ({ ok: true, kind: "action", text: "Lists the commands.", target: null }));
    render(<ChatComposer maxMessageChars={4000} onSend={vi.fn()} slash={support(vi.fn(), preview)} />);
    const textarea = screen.getByLabelText("Message #maestro") as HTMLTextAreaElement;
    type(textarea, "/he");
    expect(screen.queryByTestId("slash-preview")).toBeNull();
    type(textarea, "/help");
    expect(screen.getByRole("listbox", { name: "Slash commands" })).toBeTruthy();
    expect(screen.getByTestId("slash-preview").textContent).toContain("Lists the commands.");
  });
});
