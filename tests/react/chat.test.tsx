// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { ChatComposer } from "../../src/chat/ChatComposer";
import { ChatPane } from "../../src/chat/ChatPane";
import { ChatTimeline } from "../../src/chat/ChatTimeline";
import { authorKind, CHAT_DISABLED_TEXT, formatChatTime } from "../../src/chat/format";
import type { ChatMessage } from "../../src/chat/types";

// ChatPane is driven through a fake convex/react: a query's value, or an Error it throws.
const convex = vi.hoisted(() => ({
  queries: new Map<string, unknown>(),
  mutations: new Map<string, (args: unknown) => Promise<unknown>>(),
}));
vi.mock("convex/react", () => ({
  useQuery: (query: never) => {
    const value = convex.queries.get(getFunctionName(query));
    if (value instanceof Error) throw value;
    return value;
  },
  useMutation: (mutation: never) => (args: unknown) => {
    const run = convex.mutations.get(getFunctionName(mutation));
    if (!run) throw new Error(`No fake for ${getFunctionName(mutation)}`);
    return run(args);
  },
}));

const NOW = Date.parse("2025-06-02T15:00:00Z");
const departmentId = "dept-1" as Id<"departments">;

const messages: ChatMessage[] = [
  { id: 1, ts: "2025-06-02T14:01:00Z", author: "@human", text: "Morning squad.\nWho is on the pricing page?" },
  { id: 2, ts: "2025-06-02T14:02:30Z", author: "@dev-bot", text: "Me. PR up in an hour." },
];

beforeEach(() => {
  convex.queries.clear();
  convex.mutations.clear();
  localStorage.clear();
});
afterEach(cleanup);

function timeline() {
  return screen.getByTestId("chat-timeline");
}

/** Gives the jsdom scroller a layout: `scrollHeight` of content in a `clientHeight` box. */
function layout(el: HTMLElement, scrollHeight: number, clientHeight = 200) {
  Object.defineProperty(el, "scrollHeight", { configurable: true, value: scrollHeight });
  Object.defineProperty(el, "clientHeight", { configurable: true, value: clientHeight });
}

describe("chat helpers", () => {
  it("tells @human from agents", () => {
    expect(authorKind("@human")).toBe("human");
    expect(authorKind("@dev-bot")).toBe("agent");
    expect(authorKind("@agent-human")).toBe("agent");
  });

  it("shows a clock time today, a date before, and a malformed ts as it came", () => {
    const today = formatChatTime(new Date(NOW - 60_000).toISOString(), NOW);
    expect(today.short).toMatch(/^\d{1,2}:\d{2}\s?[AP]M$/);
    const earlier = formatChatTime("2025-05-20T10:00:00Z", NOW);
    expect(earlier.short).toMatch(/^May (19|20|21), /);
    expect(formatChatTime("not a time", NOW)).toEqual({ short: "not a time", full: "not a time" });
  });
});

describe("ChatTimeline", () => {
  it("shows who posted a person's message instead of the @human chip; agents and password posts have no person", () => {
    const posts: ChatMessage[] = [
      { id: 1, ts: "2025-06-02T14:01:00Z", author: "@human", text: "From Ana", postedBy: { userId: "users|ana" as Id<"users">, name: "Ana Lima" } },
      { id: 2, ts: "2025-06-02T14:02:00Z", author: "@human", text: "From the API" },
      { id: 3, ts: "2025-06-02T14:03:00Z", author: "@dev-bot", text: "From Dev Bot", postedBy: { userId: "users|x" as Id<"users">, name: "Spoof" } },
    ];
    render(<ChatTimeline messages={posts} now={NOW} />);
    const [ana, api, bot] = screen.getAllByTestId("chat-message");
    expect(within(ana).getByTestId("chat-person").textContent).toBe("ALAna Lima");
    expect(within(ana).queryByTestId("chat-author")).toBeNull();
    expect(within(api).getByTestId("chat-author").textContent).toBe("@human");
    expect(within(api).queryByTestId("chat-person")).toBeNull();
    expect(within(bot).queryByTestId("chat-person")).toBeNull();
  });

  it("renders each message with its author chip, time and text, oldest first", () => {
    render(<ChatTimeline messages={messages} now={NOW} />);
    const items = screen.getAllByTestId("chat-message");
    expect(items).toHaveLength(2);
    expect(within(items[0]).getByTestId("chat-author").textContent).toBe("@human");
    expect(items[0].getAttribute("data-author-kind")).toBe("human");
    expect(within(items[1]).getByTestId("chat-author").textContent).toBe("@dev-bot");
    expect(items[1].getAttribute("data-author-kind")).toBe("agent");
    expect(items[0].querySelector("time")?.getAttribute("dateTime")).toBe("2025-06-02T14:01:00Z");
    // Line breaks survive, shown by pre-wrap rather than turned into markup.
    const text = within(items[0]).getByTestId("chat-text");
    expect(text.textContent).toBe("Morning squad.\nWho is on the pricing page?");
    expect(text.className).toContain("whitespace-pre-wrap");
    expect(text.querySelector("br")).toBeNull();
  });

  it("highlights @mentions of the roster's agents as threads do, and nothing else", () => {
    const text = "@jarvis and @Dev Bot, not @Devon nor @nobody: <b>@Writer</b>";
    render(<ChatTimeline messages={[{ id: 10, ts: "2025-06-02T14:00:00Z", author: "@human", text }]} now={NOW} mentionNames={["Jarvis", "Dev Bot", "Dev", "Writer"]} />);
    const shown = screen.getByTestId("chat-text");
    expect(shown.textContent).toBe(text);
    expect([...shown.querySelectorAll("[data-mention]")].map((m) => m.textContent)).toEqual(["@jarvis", "@Dev Bot", "@Writer"]);
    expect(shown.querySelector("b")).toBeNull();
  });

  it("shows HTML and markdown as the characters typed", () => {
    const hostile = '<script>alert("x")</script> <img src=x onerror=alert(1)> **bold** [link](javascript:alert(1))';
    render(<ChatTimeline messages={[{ id: 9, ts: "2025-06-02T14:00:00Z", author: "@dev-bot", text: hostile }]} now={NOW} />);
    const text = screen.getByTestId("chat-text");
    expect(text.textContent).toBe(hostile);
    expect(text.children).toHaveLength(0);
    expect(document.querySelector("script, img, strong, a")).toBeNull();
  });

  it("shows a skeleton while loading and a note when the session is empty", () => {
    const { rerender } = render(<ChatTimeline messages={undefined} now={NOW} />);
    expect(screen.getByRole("status").textContent).toContain("Loading messages");
    rerender(<ChatTimeline messages={[]} now={NOW} />);
    expect(screen.getByText(/No messages in this session yet/)).toBeTruthy();
  });

  it("follows new messages, but not while the reader has scrolled up", () => {
    const { rerender } = render(<ChatTimeline messages={messages} now={NOW} />);
    const scroller = timeline();
    layout(scroller, 1000);
    const third = { id: 3, ts: "2025-06-02T14:03:00Z", author: "@wordsmith", text: "Copy is ready." };
    rerender(<ChatTimeline messages={[...messages, third]} now={NOW} />);
    expect(scroller.scrollTop).toBe(1000);

    // The reader scrolls up: new messages leave them where they are, and a button offers the way back.
    scroller.scrollTop = 300;
    fireEvent.scroll(scroller);
    layout(scroller, 1200);
    const fourth = { id: 4, ts: "2025-06-02T14:04:00Z", author: "@human", text: "Thanks!" };
    rerender(<ChatTimeline messages={[...messages, third, fourth]} now={NOW} />);
    expect(scroller.scrollTop).toBe(300);

    fireEvent.click(screen.getByRole("button", { name: /Newest/ }));
    expect(scroller.scrollTop).toBe(1200);
    expect(screen.queryByRole("button", { name: /Newest/ })).toBeNull();
  });

  it("jumps to the newest when the reader sends, even if scrolled up", () => {
    const { rerender } = render(<ChatTimeline messages={messages} now={NOW} followSignal={0} />);
    const scroller = timeline();
    layout(scroller, 1000);
    scroller.scrollTop = 100;
    fireEvent.scroll(scroller);
    rerender(<ChatTimeline messages={messages} now={NOW} followSignal={1} />);
    expect(scroller.scrollTop).toBe(1000);
  });
});

describe("ChatComposer", () => {
  function setup(max = 20, onSend = vi.fn((_text: string) => Promise.resolve())) {
    render(<ChatComposer maxMessageChars={max} onSend={onSend} />);
    return { box: screen.getByRole("textbox", { name: "Message #maestro" }) as HTMLTextAreaElement, onSend };
  }

  it("sends the trimmed text with Ctrl+Enter (or ⌘+Enter) and clears on success; plain Enter does not send", async () => {
    const { box, onSend } = setup();
    fireEvent.change(box, { target: { value: "  Ship it\nnow  " } });
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    expect(onSend).toHaveBeenCalledWith("Ship it\nnow", expect.any(String));
    await waitFor(() => expect(box.value).toBe(""));

    fireEvent.change(box, { target: { value: "again" } });
    fireEvent.keyDown(box, { key: "Enter", metaKey: true });
    expect(onSend).toHaveBeenLastCalledWith("again", expect.any(String));
  });

  it("sends with the Send button, which is off while the box is blank", () => {
    const { box, onSend } = setup();
    const send = screen.getByRole("button", { name: "Send" }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    fireEvent.change(box, { target: { value: "   " } });
    expect(send.disabled).toBe(true);
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.change(box, { target: { value: "hello" } });
    fireEvent.click(send);
    expect(onSend).toHaveBeenCalledWith("hello", expect.any(String));
  });

  it("counts characters and says a message past the limit will be truncated", () => {
    const { box } = setup(10);
    fireEvent.change(box, { target: { value: "0123456789" } });
    expect(screen.getByTestId("chat-char-count").textContent).toBe("10 / 10");
    expect(screen.queryByText(/truncated/)).toBeNull();
    expect(box.getAttribute("aria-invalid")).toBeNull();

    fireEvent.change(box, { target: { value: "0123456789A" } });
    expect(screen.getByTestId("chat-char-count").textContent).toBe("11 / 10");
    expect(screen.getByRole("status").textContent).toBe("Over the limit: the message will be truncated to 10 characters.");
    expect(box.getAttribute("aria-invalid")).toBe("true");
    // Still sendable: the server cuts it and marks the cut.
    expect((screen.getByRole("button", { name: "Send" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("shows a failure inline and keeps the text", async () => {
    const onSend = vi.fn(() => Promise.reject(new ConvexError({ code: "INVALID_ARGUMENT", message: "A chat message must not be empty." })));
    const { box } = setup(100, onSend);
    fireEvent.change(box, { target: { value: "hi" } });
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    expect((await screen.findByRole("alert")).textContent).toBe("A chat message must not be empty.");
    expect(box.value).toBe("hi");
  });
});

describe("ChatPane", () => {
  it("says exactly “Chat disabled by configuration” and offers no composer when chat is off", () => {
    convex.queries.set("chat:status", { enabled: false, maxMessageChars: 4096 });
    render(<ChatPane departmentId={departmentId} />);
    const pane = screen.getByTestId("chat-pane");
    expect(within(pane).getByRole("heading").textContent).toBe("#maestro");
    expect(screen.getByTestId("chat-disabled").textContent).toBe(CHAT_DISABLED_TEXT);
    expect(CHAT_DISABLED_TEXT).toBe("Chat disabled by configuration");
    expect(within(pane).queryByRole("textbox")).toBeNull();
    expect(within(pane).queryByTestId("chat-composer")).toBeNull();
  });

  it("shows the disabled text, not an error, if the list refuses because chat was just turned off", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    convex.queries.set("chat:status", { enabled: true, maxMessageChars: 4096 });
    convex.queries.set("chat:list", new ConvexError({ code: "NOT_FOUND", message: "Chat disabled by configuration" }));
    render(<ChatPane departmentId={departmentId} />);
    expect(screen.getByTestId("chat-disabled").textContent).toBe(CHAT_DISABLED_TEXT);
    expect(screen.queryByRole("textbox")).toBeNull();
    vi.mocked(console.error).mockRestore();
  });

  it("lists the session's messages and posts as @human to the department", async () => {
    convex.queries.set("chat:status", { enabled: true, maxMessageChars: 4096 });
    convex.queries.set("chat:list", messages);
    const post = vi.fn((_args: unknown) => Promise.resolve({ id: 3, success: true }));
    convex.mutations.set("chat:postAsHuman", post);
    render(<ChatPane departmentId={departmentId} />);
    expect(screen.getAllByTestId("chat-message")).toHaveLength(2);
    expect(screen.getByTestId("chat-char-count").textContent).toBe("0 / 4,096");

    const box = screen.getByRole("combobox", { name: "Message #maestro" });
    fireEvent.change(box, { target: { value: "Status, please" } });
    await act(async () => {
      fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    });
    expect(post).toHaveBeenCalledWith({ departmentId, text: "Status, please", clientMessageId: expect.any(String) });
  });

  it("folds away and back, remembering the choice", () => {
    convex.queries.set("chat:status", { enabled: true, maxMessageChars: 4096 });
    convex.queries.set("chat:list", messages);
    render(<ChatPane departmentId={departmentId} />);
    const toggle = screen.getByRole("button", { name: "Hide" });
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    fireEvent.click(toggle);
    expect(screen.getByRole("button", { name: "Show" }).getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByRole("textbox")).toBeNull();
    expect(localStorage.getItem("maestro.chat.collapsed")).toBe("true");
    cleanup();
    render(<ChatPane departmentId={departmentId} />);
    fireEvent.click(screen.getByRole("button", { name: "Show" }));
    expect(screen.getByRole("combobox", { name: "Message #maestro" })).toBeTruthy();
  });
});
