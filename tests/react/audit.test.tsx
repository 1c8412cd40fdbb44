// @vitest-environment jsdom
/**
 * The screens for what existed only as functions (issue 28): the channel
 * details' pure parts, the event log's words and filters, a webhook
 * delivery's badge, a command record's place and outcome, and the bell's
 * "Mark all read".
 */
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { commandOutcome, commandPlace, commandScopeArgs, commandScopeOptions } from "../../src/audit/commandHistory";
import { actorOptions, channelOptions, EVENT_TYPE_OPTIONS, eventSummary } from "../../src/audit/eventLog";
import { attemptsLabel, deliveryStatus } from "../../src/audit/webhook";
import { BADGE_TONES } from "../../src/components/ui/Badge";
import { addableCandidates, changeAnnouncement } from "../../src/channels/channelAdmin";
import { ChannelDetails } from "../../src/channels/ChannelDetails";
import { WorkspaceContext, type Department } from "../../src/shell/workspace";
import { NotificationsMenuView } from "../../src/shell/NotificationsMenu";

const results = vi.hoisted(() => new Map<string, unknown>());
const calls = vi.hoisted(() => [] as Array<{ name: string; args: unknown }>);
vi.mock("convex/react", () => ({
  useQuery: (query: never) => results.get(getFunctionName(query)),
  useMutation: (mutation: never) => (args: unknown) => {
    calls.push({ name: getFunctionName(mutation), args });
    return Promise.resolve(null);
  },
}));

afterEach(() => {
  cleanup();
  results.clear();
  calls.length = 0;
});

describe("a channel's details", () => {
  it("offer only who is not a member yet, people first, each group by name", () => {
    const people = [
      { key: "member:u2", name: "Grace" },
      { key: "member:u1", name: "Ada" },
      { key: "member:u3", name: "Bob" },
    ];
    const agents = [
      { sessionKey: "agent:writer:p", name: "Writer" },
      { sessionKey: "agent:dev:p", name: "Dev Bot" },
    ];
    expect(addableCandidates(people, agents, ["member:u1", "agent:writer:p"])).toEqual([
      { key: "member:u3", name: "Bob", kind: "person" },
      { key: "member:u2", name: "Grace", kind: "person" },
      { key: "agent:dev:p", name: "Dev Bot", kind: "agent" },
    ]);
    expect(addableCandidates(people.slice(0, 1), [], ["member:u2"])).toEqual([]);
  });

  it("announce what changed in words", () => {
    expect(changeAnnouncement("#launch", { kind: "added", name: "Writer" })).toBe("Writer was added to #launch.");
    expect(changeAnnouncement("#launch", { kind: "removed", name: "Grace" })).toBe("Grace was removed from #launch.");
    expect(changeAnnouncement("#launch", { kind: "topic", topic: "  " })).toBe("The topic of #launch was cleared.");
    expect(changeAnnouncement("#launch", { kind: "topic", topic: "Ship it" })).toBe("The topic of #launch was changed.");
  });
});

describe("the channel details dialog", () => {
  const card = (canManage: boolean) => ({
    _id: "c1" as Id<"channels">,
    kind: "channel" as const,
    name: "design",
    topic: "Fonts",
    visibility: "private" as const,
    archived: false,
    canManage,
    viewerSubscribed: true,
    members: [
      { key: "member:u1", name: "Ada", kind: "member" as const, subscribed: true },
      { key: "agent:writer:p", name: "Writer", kind: "agent" as const, subscribed: true },
    ],
  });
  const product = { _id: "d1" as Id<"departments">, slug: "product", name: "Product", role: "owner" } as Department;
  const show = (canManage: boolean) =>
    render(
      <WorkspaceContext.Provider value={{ departments: [product], department: product, fallback: product }}>
        <ChannelDetails channel={card(canManage)} title="#design" onClose={() => undefined} />
      </WorkspaceContext.Provider>,
    );

  it("for its creator or an admin: the topic to edit, a Remove per member, and only non-members to add; a change is announced", async () => {
    results.set("members:list", [
      { key: "member:u1", name: "Ada" },
      { key: "member:u2", name: "Grace" },
    ]);
    results.set("agents:list", [{ sessionKey: "agent:writer:p", name: "Writer" }]);
    show(true);
    const dialog = screen.getByTestId("channel-details");
    expect(within(dialog).getByLabelText("Topic")).toHaveProperty("value", "Fonts");
    expect(within(dialog).getAllByRole("button", { name: /^Remove/ }).map((b) => b.getAttribute("aria-label"))).toEqual(["Remove Ada from #design", "Remove Writer from #design"]);
    const picker = within(dialog).getByLabelText("Add a member");
    expect(Array.from(picker.querySelectorAll("option"), (o) => o.textContent)).toEqual(["Pick a person or an agent", "Grace (person)"]);
    fireEvent.change(picker, { target: { value: "member:u2" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Add" }));
    expect(calls).toEqual([{ name: "channels:addMember", args: { channelId: "c1", key: "member:u2" } }]);
    await within(dialog).findByText("Grace was added to #design.");
  });

  it("for anyone else: the topic and members to read, no controls", () => {
    show(false);
    const dialog = screen.getByTestId("channel-details");
    expect(within(dialog).getByTestId("channel-topic").textContent).toBe("Fonts");
    expect(within(dialog).queryByRole("button", { name: /^Remove/ })).toBeNull();
    expect(within(dialog).queryByLabelText("Topic")).toBeNull();
    expect(within(dialog).queryByLabelText("Add a member")).toBeNull();
    expect(within(dialog).getByTestId("channel-manage-note").textContent).toContain("Only #design’s creator");
  });
});

describe("the event log", () => {
  it("filters by every event type, by anyone, Maestro, a person or an agent, and by a channel (not a DM)", () => {
    expect(EVENT_TYPE_OPTIONS[0]).toEqual({ value: "", label: "All types" });
    expect(EVENT_TYPE_OPTIONS.map((o) => o.value)).toContain("webhooks.test");
    expect(actorOptions([{ key: "member:u1", name: "Ada" }], [{ sessionKey: "agent:writer:p", name: "Writer" }])).toEqual([
      { value: "", label: "Anyone" },
      { value: "system", label: "Maestro (system)" },
      { value: "member:u1", label: "Ada" },
      { value: "agent:writer:p", label: "Writer (agent)" },
    ]);
    const channels = [
      { _id: "c2", kind: "channel" as const, name: "zeta" },
      { _id: "d1", kind: "dm" as const, name: "dm:x" },
      { _id: "c1", kind: "channel" as const, name: "alpha" },
    ];
    expect(channelOptions(channels).map((o) => o.label)).toEqual(["Any channel", "#alpha", "#zeta"]);
  });

  it("says what each event did", () => {
    const said = (type: Parameters<typeof eventSummary>[0]["type"], data: Record<string, string | number | boolean | null>) => eventSummary({ type, data });
    expect(said("channels.created", { name: "launch", visibility: "private" })).toBe("created the channel (private)");
    expect(said("channels.created", { dm: true, participants: 2 })).toBe("opened a DM for 2 people");
    expect(said("channels.updated", { added: "Writer" })).toBe("added Writer");
    expect(said("channels.updated", { removed: "Grace" })).toBe("removed Grace");
    expect(said("channels.updated", { topic: "" })).toBe("cleared the topic");
    expect(said("channels.updated", { topic: "Ship it" })).toBe("set the topic to “Ship it”");
    expect(said("channels.updated", { archived: false })).toBe("unarchived the channel");
    expect(said("messaging.posted", { importance: "high", blocking: true })).toBe("posted a message (high, blocking)");
    expect(said("messaging.posted", { importance: "normal", blocking: false })).toBe("posted a message");
    expect(said("messaging.read", { count: 1 })).toBe("read 1 message");
    expect(said("messaging.read", { count: 4 })).toBe("read 4 messages");
    expect(said("webhooks.test", { test: true })).toBe("sent a test delivery to the webhook");
    expect(said("a2a.status_update", { to: "Jarvis" })).toBe("sent Jarvis a status update");
  });
});

describe("a webhook delivery", () => {
  it("reads as delivered, failed, retrying or sending, with its attempts", () => {
    expect(deliveryStatus({ status: "delivered" })).toEqual({ label: "Delivered", className: BADGE_TONES.success });
    expect(deliveryStatus({ status: "failed" }).label).toBe("Failed");
    expect(deliveryStatus({ status: "pending", nextAttemptAt: 5 }).label).toBe("Retrying");
    expect(deliveryStatus({ status: "pending" }).label).toBe("Sending");
    expect([attemptsLabel(0), attemptsLabel(1), attemptsLabel(3)]).toEqual([null, "1 attempt", "3 attempts"]);
  });
});

describe("a command record", () => {
  it("names where it was typed and how it went", () => {
    expect(commandPlace({ taskId: undefined, taskTitle: undefined })).toBe("#maestro");
    expect(commandPlace({ taskId: "t1" as Id<"tasks">, taskTitle: "Ship login" })).toBe("Ship login");
    expect(commandPlace({ taskId: "t1" as Id<"tasks">, taskTitle: undefined })).toBe("a deleted task");
    // Typed in a channel: its name, not #maestro.
    expect(commandPlace({ channelId: "c1" as Id<"channels">, channelName: "#launch" })).toBe("#launch");
    expect(commandPlace({ channelId: "c1" as Id<"channels">, channelName: undefined })).toBe("a deleted channel");
    expect(commandOutcome({ type: "slash_command_failed", name: "stop", invokedAs: "/stop", error: "Nothing is running." })).toEqual({
      label: "Failed",
      className: BADGE_TONES.failure,
      detail: "Nothing is running.",
    });
    expect(commandOutcome({ type: "slash_command_invoked", name: "help", invokedAs: "/help", args: "" }).label).toBe("Done");
  });
});

describe("the command history's places", () => {
  it("filters by everywhere, #maestro or one channel (DMs are not offered), as listCommandEvents' arguments", () => {
    const channels = [
      { _id: "c2", kind: "channel" as const, name: "zeta" },
      { _id: "d1", kind: "dm" as const, name: "dm" },
      { _id: "c1", kind: "channel" as const, name: "launch" },
    ];
    expect(commandScopeOptions(channels).map((o) => [o.value, o.label])).toEqual([
      ["department", "Everywhere"],
      ["chat", "#maestro only"],
      ["channel:c1", "#launch only"],
      ["channel:c2", "#zeta only"],
    ]);
    expect(commandScopeArgs("department")).toEqual({ scope: "department" });
    expect(commandScopeArgs("chat")).toEqual({ scope: "chat" });
    expect(commandScopeArgs("channel:c1")).toEqual({ channelId: "c1" });
  });
});

describe("the bell's Mark all read", () => {
  const data = {
    unreadCount: 2,
    unreadMentionTaskIds: [] as Array<Id<"tasks">>,
    notifications: [{ _id: "n1" as Id<"notifications">, _creationTime: 0, kind: "mention" as const, taskId: "t1" as Id<"tasks">, taskTitle: "Ship login", messageId: undefined, from: "Ada" }],
    dms: [{ channelId: "c1" as Id<"channels">, title: "Ada", unread: 1 }],
  };

  it("is offered while something is unread, marks everything, and says so when it fails", async () => {
    const marks: string[] = [];
    const onMarkAllRead = vi.fn(() => {
      marks.push("all");
      return marks.length === 1 ? Promise.reject(new Error("offline")) : Promise.resolve({ messages: 1, notifications: 1, more: false });
    });
    render(<NotificationsMenuView data={data} onOpenTask={() => undefined} onMarkAllRead={onMarkAllRead} />);
    fireEvent.click(screen.getByRole("button", { name: /Notifications, 2 unread/ }));
    fireEvent.click(screen.getByRole("button", { name: "Mark all read" }));
    expect(await screen.findByRole("alert")).toHaveProperty("textContent", "Something went wrong. Please try again.");
    fireEvent.click(screen.getByRole("button", { name: "Mark all read" }));
    await vi.waitFor(() => expect(screen.queryByRole("alert")).toBeNull());
    expect(onMarkAllRead).toHaveBeenCalledTimes(2);
  });

  it("is not offered when all is read", () => {
    render(<NotificationsMenuView data={{ ...data, unreadCount: 0, notifications: [], dms: [] }} onOpenTask={() => undefined} onMarkAllRead={() => Promise.resolve()} />);
    fireEvent.click(screen.getByRole("button", { name: /Notifications/ }));
    expect(screen.getByText("You’re all caught up.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Mark all read" })).toBeNull();
  });
});
