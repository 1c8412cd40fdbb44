// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { RetentionForm, RetentionSettings } from "../../src/settings/RetentionSettings";
import { parseRetention, retentionDraft, retentionSummary } from "../../src/settings/retention";
import { convex, resetConvex } from "./fakeConvex";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const departmentId = "dept-1" as Id<"departments">;

beforeEach(resetConvex);
afterEach(cleanup);

describe("retention helpers", () => {
  it("reads empty fields as keep-everything and refuses numbers outside the server's bounds", () => {
    const empty = { messageTtlDays: "", maxMessagesPerConversation: "", artifactTtlDays: "", historyTtlDays: "" };
    expect(parseRetention({ ...empty, maxMessagesPerConversation: " " })).toEqual({ policy: {} });
    expect(parseRetention({ messageTtlDays: "30", maxMessagesPerConversation: "500", artifactTtlDays: "7", historyTtlDays: "90" })).toEqual({
      policy: { messageTtlDays: 30, maxMessagesPerConversation: 500, artifactTtlDays: 7, historyTtlDays: 90 },
    });
    for (const bad of ["0", "3651", "1.5", "1e3", "-1", "abc"]) {
      const parsed = parseRetention({ ...empty, messageTtlDays: bad });
      expect("errors" in parsed && parsed.errors.messageTtlDays, bad).toMatch(/from 1 to 3,650/);
      const history = parseRetention({ ...empty, historyTtlDays: bad });
      expect("errors" in history && history.errors.historyTtlDays, bad).toMatch(/from 1 to 3,650/);
    }
    const tooFew = parseRetention({ ...empty, maxMessagesPerConversation: "99" });
    expect("errors" in tooFew && tooFew.errors.maxMessagesPerConversation).toMatch(/messages from 100 to 5,000/);
    expect(retentionDraft({ artifactTtlDays: 14 })).toEqual({ ...empty, artifactTtlDays: "14" });
    expect(retentionSummary({})).toMatch(/^Everything is kept/);
    expect(retentionSummary({ messageTtlDays: 30, artifactTtlDays: 7 })).toBe("Messages are deleted after 30 days; files are deleted after 7 days. An hourly sweep deletes what is past its time.");
    expect(retentionSummary({ historyTtlDays: 90 })).toBe(
      "History (the feed, notifications, finished runs' steps) is deleted after 90 days. An hourly sweep deletes what is past its time.",
    );
  });
});

describe("RetentionForm", () => {
  it("saves the limits typed, shows a field's error without saving, and clears all with Keep everything", async () => {
    const onSubmit = vi.fn((_policy: unknown) => Promise.resolve(null));
    render(<RetentionForm initial={{ messageTtlDays: 90 }} onSubmit={onSubmit} />);
    const ttl = screen.getByLabelText("Delete messages after (days)") as HTMLInputElement;
    expect(ttl.value).toBe("90");
    const cap = screen.getByLabelText("Keep per conversation at most (messages)") as HTMLInputElement;
    fireEvent.change(cap, { target: { value: "50" } });
    fireEvent.click(screen.getByRole("button", { name: "Save retention" }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(cap.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(cap.getAttribute("aria-describedby")!)?.textContent).toMatch(/from 100 to 5,000/);
    expect(document.activeElement).toBe(cap);

    fireEvent.change(cap, { target: { value: "500" } });
    fireEvent.click(screen.getByRole("button", { name: "Save retention" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith({ messageTtlDays: 90, maxMessagesPerConversation: 500 }));
    expect((await screen.findByRole("status")).textContent).toBe("Saved.");

    fireEvent.click(screen.getByRole("button", { name: "Keep everything" }));
    expect(ttl.value).toBe("");
    fireEvent.click(screen.getByRole("button", { name: "Save retention" }));
    await waitFor(() => expect(onSubmit).toHaveBeenLastCalledWith({}));
  });

  it("shows the server's refusal", async () => {
    render(<RetentionForm initial={{}} onSubmit={() => Promise.reject(new ConvexError({ code: "FORBIDDEN", message: "Only admins can do this." }))} />);
    fireEvent.click(screen.getByRole("button", { name: "Save retention" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Only admins can do this.");
  });
});

describe("RetentionSettings", () => {
  it("gives admins the live policy and the form, and members only a line", () => {
    convex.queries.set("retention:get", { messageTtlDays: 30 });
    render(<RetentionSettings departmentId={departmentId} departmentName="Product" isAdmin />);
    expect(screen.getByTestId("retention-summary").textContent).toBe("Product: Messages are deleted after 30 days. An hourly sweep deletes what is past its time.");
    expect(screen.getByRole("form", { name: "Retention" })).toBeTruthy();
    cleanup();

    render(<RetentionSettings departmentId={departmentId} departmentName="Product" isAdmin={false} />);
    expect(screen.getByRole("region", { name: "Retention" }).textContent).toMatch(/set by its owners and admins/);
    expect(screen.queryByRole("form")).toBeNull();
    expect(screen.queryByRole("spinbutton")).toBeNull();
  });
});
