import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { useEffect } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { DepartmentWorkspace } from "../../src/shell/AppShell";

// The side panel's parts are tested on their own; here they only need to be there.
vi.mock("../../src/roster/RosterPanel", () => ({ RosterPanel: () => <p>roster</p> }));
vi.mock("../../src/chat/ChatPane", () => ({ ChatPane: () => <p>chat</p> }));
vi.mock("../../src/activity/ActivityFeed", () => ({ ActivityFeed: () => <p>activity</p> }));
vi.mock("convex/react", () => ({ useQuery: () => undefined }));

/** A screen that can be turned across the `lg` breakpoint. */
let wide = false;
const listeners = new Set<() => void>();
beforeEach(() => {
  wide = false;
  window.matchMedia = ((query: string) => ({
    media: query,
    get matches() {
      return wide;
    },
    addEventListener: (_: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
  })) as unknown as typeof window.matchMedia;
});
afterEach(() => {
  cleanup();
  listeners.clear();
});

function turn(toWide: boolean) {
  wide = toWide;
  act(() => listeners.forEach((listener) => listener()));
}

describe("a department's workspace", () => {
  it("keeps the page (the board and a task's drawer) mounted when the screen crosses the breakpoint", () => {
    const mounts = vi.fn();
    function Page() {
      useEffect(() => mounts(), []);
      return <p>the page</p>;
    }
    render(<DepartmentWorkspace departmentId={"d1" as Id<"departments">} departmentSlug="product" isAdmin={false} main={<Page />} />, {
      wrapper: ({ children }) => <MemoryRouter initialEntries={["/d/product/channels"]}>{children}</MemoryRouter>,
    });
    expect(screen.getAllByRole("navigation", { name: "Department" })).toHaveLength(1);
    expect(screen.getByTestId("pane-page").textContent).toBe("the page");

    turn(true);
    expect(screen.queryByRole("navigation", { name: "Department" })).toBeNull();
    expect(screen.getByTestId("side-panel").textContent).toBe("rosterchatactivity");
    turn(false);
    expect(screen.getByTestId("pane-page").textContent).toBe("the page");
    // StrictMode is off here: one mount, however the screen turned.
    expect(mounts).toHaveBeenCalledTimes(1);
  });

  it("on a narrow screen, one row: the pages, then Chat, Activity and Squad; the place on screen is the one marked", () => {
    render(<DepartmentWorkspace departmentId={"d1" as Id<"departments">} departmentSlug="product" isAdmin={false} main={<p>the page</p>} />, {
      wrapper: ({ children }) => <MemoryRouter initialEntries={["/d/product/channels"]}>{children}</MemoryRouter>,
    });
    const nav = screen.getByRole("navigation", { name: "Department" });
    // The event log is for admins: a member's row has no Events.
    expect(within(nav).getAllByRole("link").map((link) => link.textContent)).toEqual(["Board", "Channels", "Runs", "Figures", "Commands"]);
    expect(within(nav).getAllByRole("button").map((button) => button.textContent)).toEqual(["Chat", "Activity", "Squad"]);
    const current = () => Array.from(nav.querySelectorAll('[aria-current]:not([aria-current="false"])')).map((item) => item.textContent);
    // The channels page marks Channels, not Board.
    expect(current()).toEqual(["Channels"]);

    fireEvent.click(within(nav).getByRole("button", { name: "Chat" }));
    expect(current()).toEqual(["Chat"]);
    expect(screen.getByTestId("pane-page").hidden).toBe(true);
    expect(screen.getByTestId("pane-chat").hidden).toBe(false);

    fireEvent.click(within(nav).getByRole("link", { name: "Channels" }));
    expect(current()).toEqual(["Channels"]);
    expect(screen.getByTestId("pane-page").hidden).toBe(false);
  });

  it("an admin's row also holds the event log", () => {
    render(<DepartmentWorkspace departmentId={"d1" as Id<"departments">} departmentSlug="product" isAdmin main={<p>the page</p>} />, {
      wrapper: ({ children }) => <MemoryRouter initialEntries={["/d/product/events"]}>{children}</MemoryRouter>,
    });
    const nav = screen.getByRole("navigation", { name: "Department" });
    expect(within(nav).getAllByRole("link").map((link) => link.textContent)).toEqual(["Board", "Channels", "Runs", "Figures", "Commands", "Events"]);
    expect(within(nav).getByRole("link", { name: "Events" }).getAttribute("href")).toBe("/d/product/events");
  });
});
