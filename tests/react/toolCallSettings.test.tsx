// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { ToolCallSettings } from "../../src/settings/ToolCallSettings";
import { convex, resetConvex } from "./fakeConvex";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const departmentId = "dept-1" as Id<"departments">;

beforeEach(resetConvex);
afterEach(cleanup);

describe("ToolCallSettings: how agents call tools", () => {
  it("a member reads the mode in force and who changes it, with no form", () => {
    convex.queries.set("modelSettings:get", { toolCalls: "auto", chosen: false });
    render(<ToolCallSettings departmentId={departmentId} departmentName="Product Squad" isAdmin={false} />);
    expect(screen.queryByRole("form")).toBeNull();
    const summary = screen.getByTestId("tool-call-summary").textContent;
    expect(summary).toContain("Product Squad uses Auto (the deployment's default)");
    expect(summary).toContain("Only owners and admins change it.");
  });

  it("an admin picks Text and saves it; going back to the deployment's default sends null", async () => {
    convex.queries.set("modelSettings:get", { toolCalls: "native", chosen: true });
    const set = vi.fn((_args: unknown) => Promise.resolve(null));
    convex.mutations.set("modelSettings:setToolCalls", set);
    render(<ToolCallSettings departmentId={departmentId} departmentName="Product Squad" isAdmin />);
    expect(screen.getByTestId("tool-call-summary").textContent).toContain("Product Squad uses Native:");
    const save = screen.getByRole("button", { name: "Save tool calls" }) as HTMLButtonElement;
    // Nothing changed yet: nothing to save.
    expect(save.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText("Tool calls"), { target: { value: "text" } });
    await act(async () => {
      fireEvent.click(save);
    });
    expect(set).toHaveBeenLastCalledWith({ departmentId, toolCalls: "text" });
    fireEvent.change(screen.getByLabelText("Tool calls"), { target: { value: "default" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Save tool calls" }));
    });
    expect(set).toHaveBeenLastCalledWith({ departmentId, toolCalls: null });
  });

  it("a refused save says why and keeps the choice", async () => {
    convex.queries.set("modelSettings:get", { toolCalls: "auto", chosen: false });
    convex.mutations.set("modelSettings:setToolCalls", () => Promise.reject(new Error("Only owners and admins change the model settings.")));
    render(<ToolCallSettings departmentId={departmentId} departmentName="Product Squad" isAdmin />);
    fireEvent.change(screen.getByLabelText("Tool calls"), { target: { value: "text" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Save tool calls" }));
    });
    expect((screen.getByLabelText("Tool calls") as HTMLSelectElement).value).toBe("text");
    expect(screen.getByRole("alert").textContent).toBeTruthy();
  });
});
