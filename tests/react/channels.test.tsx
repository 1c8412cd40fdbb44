// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { ChannelList } from "../../src/channels/ChannelList";
import { MessageComposer } from "../../src/channels/MessageComposer";
import { MessageItem } from "../../src/channels/MessageItem";
import { ChannelsView } from "../../src/channels/ChannelsView";
import { TaskLinkContext } from "../../src/composer/TaskChips";
import type { ChannelSummary } from "../../src/channels/types";
import { RoleContext } from "../../src/shell/role";
import { convex, resetConvex } from "./fakeConvex";
import { channelMessageFixture } from "./fixtures";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

afterEach(() => {
  cleanup();
  resetConvex();
});

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
  const NOW = Date.parse("2026-01-01T10:05:00Z");
  const signedInAs = (userId: string) => convex.queries.set("users:me", { _id: userId, name: "Me", email: null });

  it("offers its author Edit and Delete; saving sends the new text, and an edited message says so", async () => {
    signedInAs("u1");
    const edit = vi.fn(() => Promise.resolve(null));
    convex.mutations.set("channelMessages:edit", edit);
    const { rerender } = render(<MessageItem message={channelMessageFixture({ body: "teh plan" })} now={NOW} />);
    fireEvent.click(screen.getByRole("button", { name: "Edit" }));
    fireEvent.change(screen.getByRole("textbox", { name: "Edit message" }), { target: { value: "the plan" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(edit).toHaveBeenCalledWith({ channelId: "c1", messageId: "m1", body: "the plan" }));
    rerender(<MessageItem message={channelMessageFixture({ body: "the plan", editedAt: NOW })} now={NOW} />);
    await waitFor(() => expect(screen.getByText("(edited)")).toBeTruthy());
  });

  it("offers another member nothing, an admin Delete (after confirming), and a viewer nothing", async () => {
    signedInAs("u2");
    const remove = vi.fn(() => Promise.resolve(null));
    convex.mutations.set("channelMessages:remove", remove);
    const message = channelMessageFixture({ body: "hello" });
    const { unmount } = render(<MessageItem message={message} now={NOW} />);
    expect(screen.queryByRole("button", { name: "Edit" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete" })).toBeNull();
    unmount();
    render(
      <RoleContext value="admin">
        <MessageItem message={message} now={NOW} />
      </RoleContext>,
    );
    expect(screen.queryByRole("button", { name: "Edit" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Delete" }));
    expect(remove).not.toHaveBeenCalled();
    fireEvent.click(within(screen.getByRole("group", { name: "Confirm delete" })).getByRole("button", { name: "Delete" }));
    expect(remove).toHaveBeenCalledWith({ channelId: "c1", messageId: "m1" });
    cleanup();
    signedInAs("u1");
    render(
      <RoleContext value="viewer">
        <MessageItem message={message} now={NOW} />
      </RoleContext>,
    );
    expect(screen.queryByRole("button", { name: "Edit" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete" })).toBeNull();
  });

  it("a deleted message says so instead of its text", () => {
    render(<MessageItem message={channelMessageFixture({ body: "", deletedAt: NOW })} now={NOW} />);
    expect(screen.getByTestId("message-deleted").textContent).toBe("This message was deleted.");
  });

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

describe("linked tasks and a foreign channel", () => {
  const NOW = Date.parse("2026-01-01T10:05:00Z");

  it("a message's linked task is a chip to the task's address that opens it; one the department does not have says so", () => {
    convex.queries.set("users:me", { _id: "u1", name: "Me", email: null });
    const open = vi.fn();
    const message = channelMessageFixture({ body: "see", artifacts: [{ kind: "task", taskId: "t1" as Id<"tasks"> }, { kind: "task", taskId: "t9" as Id<"tasks"> }] });
    render(
      <TaskLinkContext.Provider value={{ href: (id) => `/d/product/tasks/${id}`, open }}>
        <MessageItem message={message} now={NOW} linkedTasks={new Map([["t1", { _id: "t1", title: "Fix the login page", status: "review" }]])} />
      </TaskLinkContext.Provider>,
    );
    const chip = screen.getByRole("link", { name: "#Fix the login page" });
    expect(chip.getAttribute("href")).toBe("/d/product/tasks/t1");
    fireEvent.click(chip);
    expect(open).toHaveBeenCalledWith("t1");
    expect(screen.getByText("#Task not found")).toBeTruthy();
  });

  it("a channel id the department's list does not hold (another department's, private, gone) is a clear not-found", () => {
    convex.queries.set("channels:list", [channel({ name: "general" })]);
    convex.queries.set("users:me", { _id: "u1", name: "Me", email: null });
    render(<ChannelsView departmentId={"d1" as Id<"departments">} channelId={"c-theirs" as Id<"channels">} onSelect={() => undefined} />);
    expect(screen.getByTestId("channel-not-found").textContent).toMatch(/No such channel or DM here/);
    expect(screen.queryByTestId("channel-view")).toBeNull();
  });
});
