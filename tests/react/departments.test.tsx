// @vitest-environment jsdom
/**
 * Departments from the app (issue 27, point 11): the department menu's
 * "New department…" for owners and admins, its dialog, and the Clerk owner
 * setup screen (the setup password, as for email accounts).
 */
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { ExternalOwnerSetup } from "../../src/auth/ExternalOwnerSetup";
import { DepartmentSwitcher } from "../../src/shell/DepartmentSwitcher";
import { NewDepartmentDialog } from "../../src/shell/NewDepartmentDialog";
import { convex, resetConvex } from "./fakeConvex";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

afterEach(() => {
  cleanup();
  resetConvex();
});

const departments = [{ _id: "d1" as Id<"departments">, name: "Product Squad", slug: "product", role: "admin" as const }];

describe("the department menu", () => {
  it("offers owners and admins a new department; picking it opens the dialog instead of switching", () => {
    const onSelect = vi.fn();
    const onCreate = vi.fn();
    render(<DepartmentSwitcher departments={departments} selectedId="d1" onSelect={onSelect} onCreate={onCreate} />);
    fireEvent.change(screen.getByRole("combobox"), { target: { value: "new-department" } });
    expect(onCreate).toHaveBeenCalled();
    expect(onSelect).not.toHaveBeenCalled();
  });

  it("without onCreate (members, viewers) there is no such entry", () => {
    render(<DepartmentSwitcher departments={departments} selectedId="d1" onSelect={() => {}} />);
    expect(screen.queryByRole("option", { name: /New department/ })).toBeNull();
  });

  it("the dialog creates it by name and hands its id on", async () => {
    const create = vi.fn(() => Promise.resolve("d2"));
    convex.mutations.set("departments:create", create);
    const onCreated = vi.fn();
    render(<NewDepartmentDialog onClose={() => {}} onCreated={onCreated} />);
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Design Crew" } });
    fireEvent.click(screen.getByRole("button", { name: "Create department" }));
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith("d2"));
    expect(create).toHaveBeenCalledWith({ name: "Design Crew" });
  });
});

describe("the Clerk owner setup", () => {
  it("sends the setup password and shows a refusal in words", async () => {
    const ensure = vi.fn(() => Promise.reject(new ConvexError({ code: "FORBIDDEN", message: "Wrong setup password: use the WebUI password." })));
    convex.mutations.set("users:ensureExternal", ensure);
    render(<ExternalOwnerSetup name="Olive" onSignOut={() => {}} />);
    expect(screen.getByText(/Olive, you are the first person here/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Setup password"), { target: { value: "guess" } });
    fireEvent.click(screen.getByRole("button", { name: "Become the owner" }));
    await screen.findByText("Wrong setup password: use the WebUI password.");
    expect(ensure).toHaveBeenCalledWith({ setupPassword: "guess" });
  });
});
