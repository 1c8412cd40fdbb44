// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { ChannelList } from "../../src/channels/ChannelList";
import { MessageComposer } from "../../src/channels/MessageComposer";
import { MessageItem } from "../../src/channels/MessageItem";
import type { ChannelSummary } from "../../src/channels/types";
import { channelMessageFixture } from "./fixtures";

afterEach(cleanup);

const channel = (fields: Partial<ChannelSummary>): ChannelSummary => ({
  _id: `c-${fields.name}` as Id<"channels">,
  kind: "channel",
  name: "general",
  title: "general",
  topic: undefined,
  visibility: "project",
  archived: false,
  joined: true,
  subscribed: true,
  unread: 0,
  lastMessageAt: undefined,
  ...fields,
});

describe("ChannelList", () => {
  it("lists channels and DMs apart, with unread badges capped at 99+", () => {
    const onSelect = vi.fn();
    render(
      <ChannelList
        selected={null}
        onSelect={onSelect}
        channels={[
          channel({ name: "launch", unread: 3 }),
          channel({ name: "design", unread: 140 }),
          channel({ name: "dm:x", kind: "dm", title: "Grace, Writer", visibility: "private", unread: 1 }),
        ]}
      />,
    );
    const rows = screen.getAllByTestId("channel-row");
    expect(rows.map((r) => r.textContent)).toEqual(["#design99+", "#launch3", "Grace, Writer1"]);
    expect(within(rows[0]).getByLabelText("140 unread")).toBeTruthy();
    fireEvent.click(rows[2]);
    expect(onSelect).toHaveBeenCalledWith("c-dm:x");
  });
});

describe("MessageComposer", () => {
  it("sends with Enter, carrying importance and blocking, and clears the draft", async () => {
    const onSend = vi.fn(async () => null);
    render(<MessageComposer placeholder="Message #general" maxChars={50} onSend={onSend} />);
    const box = screen.getByLabelText("Message #general");
    fireEvent.change(box, { target: { value: "  Ship it  " } });
    fireEvent.change(screen.getByLabelText("Importance"), { target: { value: "critical" } });
    fireEvent.click(screen.getByRole("checkbox"));
    fireEvent.keyDown(box, { key: "Enter" });
    await waitFor(() => expect(onSend).toHaveBeenCalledWith({ body: "Ship it", importance: "critical", blocking: true, files: [], clientMessageId: expect.any(String) }));
    await waitFor(() => expect((box as HTMLTextAreaElement).value).toBe(""));
  });

  it("keeps the draft and shows the server's reason when a send is refused; too long cannot be sent", async () => {
    const onSend = vi.fn(async () => {
      throw new ConvexError({ code: "RATE_LIMITED", message: "Too many messages: try again in 3 s." });
    });
    render(<MessageComposer placeholder="Message" maxChars={5} onSend={onSend} />);
    const box = screen.getByLabelText("Message");
    fireEvent.change(box, { target: { value: "hello" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText("Too many messages: try again in 3 s.")).toBeTruthy();
    expect((box as HTMLTextAreaElement).value).toBe("hello");
    fireEvent.change(box, { target: { value: "hello!" } });
    expect((screen.getByRole("button", { name: "Send" }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("MessageItem", () => {
  it("shows who posted, importance, blocking, links safely, and the thread count", () => {
    const message = channelMessageFixture({
      body: "Release at **noon**",
      artifacts: [{ kind: "link", url: "https://example.com/plan", title: "Plan" }],
      importance: "high",
      blocking: true,
      replyCount: 2,
    });
    const onOpenThread = vi.fn();
    render(<MessageItem message={message} now={Date.parse("2026-01-01T10:05:00Z")} onOpenThread={onOpenThread} />);
    expect(screen.getByText("Ana Lima")).toBeTruthy();
    expect(screen.getByTestId("importance").textContent).toBe("high");
    expect(screen.getByText("blocking")).toBeTruthy();
    expect(screen.getByText("noon").tagName).toBe("STRONG");
    expect(screen.getByRole("link", { name: "Plan" }).getAttribute("rel")).toContain("noopener");
    fireEvent.click(screen.getByRole("button", { name: "2 replies" }));
    expect(onOpenThread).toHaveBeenCalled();
  });
});
