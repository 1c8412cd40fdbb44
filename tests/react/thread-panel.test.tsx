// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { ThreadPanel } from "../../src/channels/ThreadPanel";
import type { ChannelMessage } from "../../src/channels/types";
import { channelMessageFixture } from "./fixtures";

// A fake convex/react: the thread query's value, and every mutation call recorded by name.
// Like Convex's, a mutation's function is the same on every render.
const convex = vi.hoisted(() => ({ queries: new Map<string, unknown>(), calls: [] as Array<[string, unknown]>, mutations: new Map<string, (args: unknown) => Promise<number>>() }));
vi.mock("convex/react", () => ({
  useQuery: (query: never) => convex.queries.get(getFunctionName(query)),
  useMutation: (mutation: never) => {
    const name = getFunctionName(mutation);
    if (!convex.mutations.has(name)) {
      convex.mutations.set(name, (args: unknown) => {
        convex.calls.push([name, args]);
        return Promise.resolve(0);
      });
    }
    return convex.mutations.get(name)!;
  },
  useAction: () => () => Promise.resolve(null),
}));

afterEach(() => {
  cleanup();
  convex.queries.clear();
  convex.calls.length = 0;
});

const channelId = "c1" as Id<"channels">;
const message = (id: string, body: string, threadRootId?: string): ChannelMessage =>
  channelMessageFixture({
    _id: id as Id<"channelMessages">,
    channelId,
    body,
    from: { kind: "member", userId: "u1" as Id<"users">, name: "Grace" },
    ...(threadRootId === undefined ? {} : { type: "thread", threadRootId: threadRootId as Id<"channelMessages"> }),
  });
const reads = () => convex.calls.filter(([name]) => name === "inbox:markRead").map(([, args]) => args);

describe("ThreadPanel", () => {
  it("marks what it shows read, and again only when a new reply arrives", () => {
    const root = message("m1", "Kick-off at ten");
    convex.queries.set("channelMessages:thread", { root, replies: [message("r1", "Copy is ready", "m1")], more: false });
    const panel = <ThreadPanel channelId={channelId} messageId={root._id} onClose={() => {}} writable />;
    const { rerender } = render(panel);
    expect(screen.getByText("1 reply")).toBeTruthy();
    expect(reads()).toEqual([{ channelId, messageIds: ["m1", "r1"] }]);

    rerender(<ThreadPanel channelId={channelId} messageId={root._id} onClose={() => {}} writable />);
    expect(reads()).toHaveLength(1);

    convex.queries.set("channelMessages:thread", { root, replies: [message("r1", "Copy is ready", "m1"), message("r2", "Shipping", "m1")], more: false });
    rerender(<ThreadPanel channelId={channelId} messageId={root._id} onClose={() => {}} writable />);
    expect(reads()).toEqual([
      { channelId, messageIds: ["m1", "r1"] },
      { channelId, messageIds: ["m1", "r1", "r2"] },
    ]);
  });

  it("a thread with no replies yet marks nothing", () => {
    const root = message("m1", "Kick-off at ten");
    convex.queries.set("channelMessages:thread", { root, replies: [], more: false });
    render(<ThreadPanel channelId={channelId} messageId={root._id} onClose={() => {}} writable />);
    expect(screen.getByText("0 replies")).toBeTruthy();
    expect(reads()).toEqual([]);
  });
});
