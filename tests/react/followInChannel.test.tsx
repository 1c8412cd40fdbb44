// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import type { MemberRole } from "../../convex/validators";
import { RoleContext } from "../../src/shell/role";
import { FollowInChannel, followOptions } from "../../src/task/FollowInChannel";
import { convex, resetConvex } from "./fakeConvex";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const taskId = "task-1" as Id<"tasks">;
const departmentId = "dept-1" as Id<"departments">;
const launch = "ch-launch" as Id<"channels">;
const secret = "ch-secret" as Id<"channels">;

function channel(id: string, title: string, fields: { kind?: "channel" | "dm"; archived?: boolean } = {}) {
  return { _id: id as Id<"channels">, kind: fields.kind ?? "channel", name: title, title, visibility: "project" as const, archived: fields.archived ?? false, joined: true, subscribed: false, unread: 0, lastMessageAt: undefined };
}

const CHANNELS = [channel(launch, "launch"), channel("ch-design", "design"), channel("ch-old", "old", { archived: true }), channel("ch-dm", "Grace", { kind: "dm" })];

function renderAs(role: MemberRole, channelId?: Id<"channels">) {
  return render(
    <RoleContext value={role}>
      <FollowInChannel task={{ _id: taskId, departmentId, ...(channelId === undefined ? {} : { channelId }) }} />
    </RoleContext>,
  );
}

beforeEach(resetConvex);
afterEach(cleanup);

describe("followOptions", () => {
  it("offers no channel, then the live channels by name (no DMs, nothing archived); a follow the list lacks stays as the last entry", () => {
    expect(followOptions(CHANNELS, undefined).map((o) => o.label)).toEqual(["No channel", "#design", "#launch"]);
    expect(followOptions(CHANNELS, "ch-old" as Id<"channels">).at(-1)).toEqual({ value: "ch-old", label: "#old (archived)" });
    expect(followOptions(CHANNELS, secret).at(-1)).toEqual({ value: secret, label: "A private channel" });
  });
});

describe("FollowInChannel", () => {
  it("a member follows the task in a channel and stops following it", async () => {
    convex.queries.set("channels:list", CHANNELS);
    const setChannel = vi.fn((_args: unknown) => Promise.resolve(null));
    convex.mutations.set("tasks:setChannel", setChannel);
    renderAs("member");
    const select = screen.getByLabelText("Follow in");
    await act(async () => {
      fireEvent.change(select, { target: { value: launch } });
    });
    expect(setChannel).toHaveBeenLastCalledWith({ taskId, channelId: launch });
    cleanup();
    renderAs("admin", launch);
    expect((screen.getByLabelText("Follow in") as HTMLSelectElement).value).toBe(launch);
    await act(async () => {
      fireEvent.change(screen.getByLabelText("Follow in"), { target: { value: "" } });
    });
    expect(setChannel).toHaveBeenLastCalledWith({ taskId, channelId: null });
  });

  it("shows the server's refusal", async () => {
    convex.queries.set("channels:list", CHANNELS);
    convex.mutations.set("tasks:setChannel", () => Promise.reject(new ConvexError({ code: "INVALID_ARGUMENT", message: "#launch is archived." })));
    renderAs("member");
    await act(async () => {
      fireEvent.change(screen.getByLabelText("Follow in"), { target: { value: launch } });
    });
    expect(screen.getByRole("alert").textContent).toBe("#launch is archived.");
  });

  it("a follow in a private channel the member is not in cannot be moved from here", () => {
    convex.queries.set("channels:list", CHANNELS);
    renderAs("member", secret);
    const select = screen.getByLabelText("Follow in") as HTMLSelectElement;
    expect(select.disabled).toBe(true);
    expect(select.value).toBe(secret);
    expect(screen.getByText("Followed in a private channel you are not in.")).toBeTruthy();
  });

  it("a viewer is not offered it", () => {
    convex.queries.set("channels:list", CHANNELS);
    renderAs("viewer", launch);
    expect(screen.queryByLabelText("Follow in")).toBeNull();
    expect(screen.queryByRole("region", { name: "Follow in channel" })).toBeNull();
  });
});
