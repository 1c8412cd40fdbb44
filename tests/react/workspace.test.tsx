import { act, cleanup, render, screen } from "@testing-library/react";
import { useEffect } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { DepartmentWorkspace } from "../../src/shell/AppShell";

// The side panel's parts are tested on their own; here they only need to be there.
vi.mock("../../src/roster/RosterPanel", () => ({ RosterPanel: () => <p>roster</p> }));
vi.mock("../../src/chat/ChatPane", () => ({ ChatPane: () => <p>chat</p> }));
vi.mock("../../src/activity/ActivityFeed", () => ({ ActivityFeed: () => <p>activity</p> }));

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
    render(<DepartmentWorkspace departmentId={"d1" as Id<"departments">} departmentSlug="product" isAdmin={false} main={<Page />} />);
    expect(screen.getByRole("tablist", { name: "Department" })).toBeTruthy();
    expect(screen.getByTestId("tab-panel-board").textContent).toBe("the page");

    turn(true);
    expect(screen.queryByRole("tablist")).toBeNull();
    expect(screen.getByTestId("side-panel").textContent).toBe("rosterchatactivity");
    turn(false);
    expect(screen.getByTestId("tab-panel-board").textContent).toBe("the page");
    // StrictMode is off here: one mount, however the screen turned.
    expect(mounts).toHaveBeenCalledTimes(1);
  });
});
