// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { InjectionSettings } from "../../src/settings/InjectionSettings";
import { summariserFields, summariserFromFields } from "../../src/settings/injection";
import { convex, resetConvex } from "./fakeConvex";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));

const departmentId = "dept-1" as Id<"departments">;
const ALL_ON = { email: true, phone: true, card: true, iban: true };
const MODEL = { kind: "model" as const, baseUrl: "http://127.0.0.1:11434/v1", model: "fast-summary", timeoutMs: 3000 };

beforeEach(resetConvex);
afterEach(cleanup);

describe("the summariser's fields", () => {
  it("read a saved setting back, and say what is wrong by the server's rules", () => {
    expect(summariserFromFields(summariserFields(MODEL))).toEqual({ summariser: MODEL });
    expect(summariserFromFields(summariserFields({ kind: "extractive" }))).toEqual({ summariser: { kind: "extractive" } });
    const wrong = summariserFromFields({ kind: "model", baseUrl: "models.example", model: "", timeoutMs: "1.5" });
    expect("errors" in wrong && Object.keys(wrong.errors).sort()).toEqual(["baseUrl", "model", "timeoutMs"]);
  });
});

describe("InjectionSettings", () => {
  it("shows a member what is in force, with no form", () => {
    convex.queries.set("injectionSettings:get", { summariser: MODEL, pii: { ...ALL_ON, phone: false }, hasKey: true });
    render(<InjectionSettings departmentId={departmentId} departmentName="Product Squad" isAdmin={false} />);
    expect(screen.queryByRole("form")).toBeNull();
    const summary = screen.getByTestId("injection-summary");
    expect(summary.textContent).toContain("By the model fast-summary, extractive when it fails or is slow");
    expect(summary.textContent).toContain("e-mail addresses, card numbers, IBANs");
  });

  it("an admin's save sends the setting, the rules and a typed key; a wrong field is named and nothing is sent", async () => {
    convex.queries.set("injectionSettings:get", { summariser: { kind: "extractive" }, pii: ALL_ON, hasKey: false });
    const update = vi.fn((_args: unknown) => Promise.resolve(null));
    convex.mutations.set("injectionSettings:update", update);
    render(<InjectionSettings departmentId={departmentId} departmentName="Product Squad" isAdmin />);
    fireEvent.change(screen.getByLabelText("Thread summaries"), { target: { value: "model" } });
    fireEvent.change(screen.getByLabelText("Base URL"), { target: { value: "not a url" } });
    fireEvent.change(screen.getByLabelText("Model name"), { target: { value: "fast-summary" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Save message settings" }));
    });
    expect(update).not.toHaveBeenCalled();
    expect(screen.getByText(/base URL must be an http\(s\) URL/)).toBeTruthy();

    fireEvent.change(screen.getByLabelText("Base URL"), { target: { value: "http://127.0.0.1:11434/v1" } });
    fireEvent.change(screen.getByLabelText("API key"), { target: { value: " sk-1 " } });
    fireEvent.click(screen.getByRole("switch", { name: "IBANs" }));
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Save message settings" }));
    });
    expect(update).toHaveBeenCalledWith({
      departmentId,
      summariser: { kind: "model", baseUrl: "http://127.0.0.1:11434/v1", model: "fast-summary", timeoutMs: 4000 },
      pii: { ...ALL_ON, iban: false },
      apiKey: "sk-1",
    });
  });
});
