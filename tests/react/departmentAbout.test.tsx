// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { LIMITS } from "../../convex/lib/limits";
import { DepartmentAbout, DescriptionForm } from "../../src/settings/DepartmentAbout";
import { useState } from "react";
import { SettingsDialog, type SettingsDepartment } from "../../src/settings/SettingsDialog";
import { convex, resetConvex } from "./fakeConvex";

/** The header's Settings button, as the shell has it (an address there; a flag here): opens the dialog, which closes itself. */
function SettingsButton({ department }: { department: SettingsDepartment }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Settings
      </button>
      {open && <SettingsDialog department={department} onClose={() => setOpen(false)} />}
    </>
  );
}

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const departmentId = "dept-1" as Id<"departments">;

beforeEach(resetConvex);
afterEach(cleanup);

describe("DescriptionForm", () => {
  it("saves the trimmed text, refuses one over the limit without saving, and saves an empty one (clearing it)", async () => {
    const onSubmit = vi.fn((_description: string) => Promise.resolve(null));
    render(<DescriptionForm initial="Launch work" onSubmit={onSubmit} />);
    const box = screen.getByLabelText("Description") as HTMLTextAreaElement;
    expect(box.value).toBe("Launch work");

    fireEvent.change(box, { target: { value: "x".repeat(LIMITS.departmentDescriptionChars + 1) } });
    expect(box.getAttribute("aria-invalid")).toBe("true");
    expect((screen.getByRole("button", { name: "Save description" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.submit(screen.getByRole("form", { name: "Department description" }));
    expect(onSubmit).not.toHaveBeenCalled();

    fireEvent.change(box, { target: { value: "  The launch squad: pages, copy and pricing.  " } });
    fireEvent.click(screen.getByRole("button", { name: "Save description" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith("The launch squad: pages, copy and pricing."));
    expect((await screen.findByRole("status")).textContent).toBe("Saved.");

    fireEvent.change(box, { target: { value: "" } });
    fireEvent.click(screen.getByRole("button", { name: "Save description" }));
    await waitFor(() => expect(onSubmit).toHaveBeenLastCalledWith(""));
  });

  it("shows the server's refusal", async () => {
    render(<DescriptionForm initial="" onSubmit={() => Promise.reject(new ConvexError({ code: "FORBIDDEN", message: "Only admins can do this." }))} />);
    fireEvent.click(screen.getByRole("button", { name: "Save description" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Only admins can do this.");
  });
});

describe("DepartmentAbout", () => {
  it("gives admins the form under the department's name, and members the text only", async () => {
    convex.queries.set("departments:about", { name: "Product", slug: "product", description: "Ships the app." });
    const update = vi.fn((_args: unknown) => Promise.resolve(null));
    convex.mutations.set("departments:updateDescription", update);
    render(<DepartmentAbout departmentId={departmentId} departmentName="Product" isAdmin />);
    const section = screen.getByRole("region", { name: "Product" });
    const box = within(section).getByLabelText("Description") as HTMLTextAreaElement;
    expect(box.value).toBe("Ships the app.");
    fireEvent.change(box, { target: { value: "Ships the app and its docs." } });
    fireEvent.click(within(section).getByRole("button", { name: "Save description" }));
    await waitFor(() => expect(update).toHaveBeenCalledWith({ departmentId, description: "Ships the app and its docs." }));
    cleanup();

    render(<DepartmentAbout departmentId={departmentId} departmentName="Product" isAdmin={false} />);
    expect(screen.getByTestId("department-description").textContent).toBe("Ships the app.");
    expect(screen.queryByRole("textbox")).toBeNull();
    cleanup();

    convex.queries.set("departments:about", { name: "Product", slug: "product" });
    render(<DepartmentAbout departmentId={departmentId} departmentName="Product" isAdmin={false} />);
    expect(screen.getByTestId("department-description").textContent).toMatch(/No description yet/);
  });

  it("is the settings dialog's first section", () => {
    convex.queries.set("departments:about", { name: "Marketing", slug: "marketing", description: "Campaigns." });
    render(<SettingsButton department={{ id: departmentId, name: "Marketing", isAdmin: true }} />);
    fireEvent.click(screen.getByRole("button", { name: "Settings" }));
    const dialog = screen.getByRole("dialog", { name: "Settings" });
    const sections = within(dialog).getAllByRole("region");
    expect(sections[0].getAttribute("data-testid")).toBe("department-about");
    expect((within(sections[0]).getByLabelText("Description") as HTMLTextAreaElement).value).toBe("Campaigns.");
  });
});
