import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Composer } from "../../src/task/Composer";
import { findMentionQuery, insertMention, matchCandidates, type MentionCandidate } from "../../src/task/mentions";

afterEach(cleanup);

const candidates: MentionCandidate[] = [
  { key: "agent:jarvis", name: "Jarvis", kind: "agent", detail: "Squad Lead" },
  { key: "agent:dev-bot", name: "Dev Bot", kind: "agent", detail: "Full-stack Engineer" },
  { key: "agent:devon", name: "Devon", kind: "agent", detail: "Designer" },
  { key: "member:ada", name: "Ada Lovelace", kind: "member", detail: "Member" },
];

/** Types `value` with the caret at its end, as a user would. */
function type(textarea: HTMLTextAreaElement, value: string) {
  fireEvent.change(textarea, { target: { value, selectionStart: value.length, selectionEnd: value.length } });
}

function setup(onSend: (content: string, clientMessageId: string) => Promise<unknown> = vi.fn(() => Promise.resolve())) {
  render(<Composer candidates={candidates} onSend={onSend} />);
  return { textarea: screen.getByRole("combobox", { name: "Message" }) as HTMLTextAreaElement, onSend };
}

describe("mention helpers", () => {
  it("finds the mention being typed, not e-mail addresses or loose @s", () => {
    expect(findMentionQuery("hi @De", 6)).toEqual({ start: 3, query: "De" });
    expect(findMentionQuery("@Dev B", 6)).toEqual({ start: 0, query: "Dev B" });
    expect(findMentionQuery("ask ada@example.com", 19)).toBeNull();
    expect(findMentionQuery("@ x", 3)).toBeNull();
    expect(findMentionQuery("no mention", 10)).toBeNull();
    expect(findMentionQuery("(@Ja", 4)).toEqual({ start: 1, query: "Ja" });
  });

  it("matches names by prefix first, then by a later word", () => {
    expect(matchCandidates(candidates, "de").map((c) => c.name)).toEqual(["Dev Bot", "Devon"]);
    expect(matchCandidates(candidates, "lov").map((c) => c.name)).toEqual(["Ada Lovelace"]);
    expect(matchCandidates(candidates, "").length).toBe(4);
    expect(matchCandidates(candidates, "zz")).toEqual([]);
  });

  it("inserts the full name and a space, replacing what was typed", () => {
    expect(insertMention("hi @De thanks", 6, { start: 3, query: "De" }, "Dev Bot")).toEqual({ text: "hi @Dev Bot thanks", caret: 12 });
  });
});

describe("Composer", () => {
  it("suggests @De → Dev Bot, and Enter inserts @Dev Bot ", () => {
    const { textarea } = setup();
    type(textarea, "Hey @De");

    const listbox = screen.getByRole("listbox");
    const options = screen.getAllByRole("option");
    expect(options).toHaveLength(2);
    expect(options[0].textContent).toContain("Dev Bot");
    expect(options[0].textContent).toContain("Full-stack Engineer");
    expect(options[1].textContent).toContain("Devon");
    expect(options[0].getAttribute("aria-selected")).toBe("true");
    expect(textarea.getAttribute("aria-expanded")).toBe("true");
    expect(textarea.getAttribute("aria-controls")).toBe(listbox.id);

    fireEvent.keyDown(textarea, { key: "Enter" });
    expect(textarea.value).toBe("Hey @Dev Bot ");
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  it("moves through suggestions with the arrow keys and picks with Tab", () => {
    const { textarea } = setup();
    type(textarea, "@De");
    fireEvent.keyDown(textarea, { key: "ArrowDown" });
    expect(screen.getAllByRole("option")[1].getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(textarea, { key: "ArrowDown" });
    expect(screen.getAllByRole("option")[0].getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(textarea, { key: "ArrowUp" });
    fireEvent.keyDown(textarea, { key: "Tab" });
    expect(textarea.value).toBe("@Devon ");
  });

  it("closes the list with Escape, and marks the key handled so a drawer stays open", () => {
    const { textarea } = setup();
    type(textarea, "@Ja");
    expect(screen.getByRole("listbox")).toBeTruthy();
    const notCancelled = fireEvent.keyDown(textarea, { key: "Escape" });
    expect(notCancelled).toBe(false);
    expect(screen.queryByRole("listbox")).toBeNull();
    // Typing on after Escape keeps it closed for that @.
    type(textarea, "@Jar");
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  it("picks a suggestion with the mouse", () => {
    const { textarea } = setup();
    type(textarea, "cc @lov");
    fireEvent.mouseDown(screen.getByRole("option", { name: /Ada Lovelace/ }));
    expect(textarea.value).toBe("cc @Ada Lovelace ");
  });

  it("sends with Ctrl+Enter and clears on success", async () => {
    const { textarea, onSend } = setup();
    type(textarea, "  Ship it  ");
    fireEvent.keyDown(textarea, { key: "Enter", ctrlKey: true });
    expect(onSend).toHaveBeenCalledWith("Ship it", expect.any(String));
    await waitFor(() => expect(textarea.value).toBe(""));
  });

  it("after a message that began with a picked @mention is sent, the next message's @ opens the list again", async () => {
    const { textarea } = setup();
    type(textarea, "@Ja");
    fireEvent.keyDown(textarea, { key: "Enter" });
    type(textarea, "@Jarvis go");
    fireEvent.keyDown(textarea, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(textarea.value).toBe(""));

    type(textarea, "@");
    type(textarea, "@Ja");
    expect(screen.getByRole("listbox", { name: "People to mention" })).toBeTruthy();
    expect(screen.getAllByRole("option")[0].textContent).toContain("Jarvis");
  });

  it("sends with Cmd+Enter; plain Enter is a newline", () => {
    const { textarea, onSend } = setup();
    type(textarea, "hello");
    fireEvent.keyDown(textarea, { key: "Enter" });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(textarea, { key: "Enter", metaKey: true });
    expect(onSend).toHaveBeenCalledWith("hello", expect.any(String));
  });

  it("keeps the text and shows the server's message when sending fails", async () => {
    const { ConvexError } = await import("convex/values");
    const onSend = vi.fn(() => Promise.reject(new ConvexError({ code: "INVALID_ARGUMENT", message: "A message is too long." })));
    const { textarea } = setup(onSend);
    type(textarea, "hello");
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect((await screen.findByRole("alert")).textContent).toBe("A message is too long.");
    expect(textarea.value).toBe("hello");
  });

  it("retries a failed send with the same client message id, and gives the next message a new one", async () => {
    const ids: string[] = [];
    let fail = true;
    const onSend = vi.fn((_content: string, clientMessageId: string) => {
      ids.push(clientMessageId);
      return fail ? Promise.reject(new Error("offline")) : Promise.resolve();
    });
    const { textarea } = setup(onSend);
    type(textarea, "hello");
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await screen.findByRole("alert");
    fail = false;
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(textarea.value).toBe(""));
    type(textarea, "hello");
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(ids).toHaveLength(3));
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
