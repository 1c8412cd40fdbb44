// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { A2aServerSettings } from "../../src/settings/A2aServerSettings";
import { convex, resetConvex } from "./fakeConvex";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const departmentId = "dept-1" as Id<"departments">;
const SETTINGS = { enabled: false, path: "/a2a/product/", cardPath: "/a2a/product/.well-known/agent-card.json", siteUrl: "http://127.0.0.1:3211", scope: "a2a:tasks" };

beforeEach(resetConvex);
afterEach(cleanup);

describe("A2aServerSettings: the squad as an A2A agent", () => {
  it("a member reads only that admins decide it: no switch, no address", () => {
    convex.queries.set("a2aServer:settings", SETTINGS);
    render(<A2aServerSettings departmentId={departmentId} departmentName="Product Squad" isAdmin={false} />);
    expect(screen.queryByRole("checkbox")).toBeNull();
    expect(screen.queryByTestId("a2a-card-url")).toBeNull();
    expect(screen.getByTestId("a2a-server-settings").textContent).toContain("set by its owners and admins");
  });

  it("an admin sees the card's address and the scope, off by default, and turns publishing on", async () => {
    convex.queries.set("a2aServer:settings", SETTINGS);
    const set = vi.fn((_args: unknown) => Promise.resolve(null));
    convex.mutations.set("a2aServer:setEnabled", set);
    render(<A2aServerSettings departmentId={departmentId} departmentName="Product Squad" isAdmin />);
    expect(screen.getByTestId("a2a-card-url").textContent).toBe("http://127.0.0.1:3211/a2a/product/.well-known/agent-card.json");
    expect(screen.getByTestId("a2a-server-settings").textContent).toContain("a2a:tasks");
    const box = screen.getByRole("checkbox", { name: /Publish Product Squad as an A2A agent/ }) as HTMLInputElement;
    expect(box.checked).toBe(false);
    await act(async () => {
      fireEvent.click(box);
    });
    expect(set).toHaveBeenCalledWith({ departmentId, enabled: true });
  });

  it("a refused change says why", async () => {
    convex.queries.set("a2aServer:settings", { ...SETTINGS, enabled: true });
    convex.mutations.set("a2aServer:setEnabled", () => Promise.reject(new Error("Only owners and admins can do that.")));
    render(<A2aServerSettings departmentId={departmentId} departmentName="Product Squad" isAdmin />);
    await act(async () => {
      fireEvent.click(screen.getByRole("checkbox"));
    });
    expect(screen.getByRole("alert").textContent).toBeTruthy();
  });
});
