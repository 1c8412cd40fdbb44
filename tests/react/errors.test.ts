import { act, renderHook } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { describe, expect, it, vi } from "vitest";
import { ClientError, isFailureResult, serverError, userMessage } from "../../src/lib/errors";
import { useSend } from "../../src/lib/useSend";

describe("the client's error convention", () => {
  it("shows a server's ConvexError message, a ClientError's, and nothing of a bug's", () => {
    const refused = new ConvexError({ code: "FORBIDDEN", message: "Only admins can do that." });
    expect(serverError(refused)).toEqual({ code: "FORBIDDEN", message: "Only admins can do that." });
    expect(userMessage(refused)).toBe("Only admins can do that.");
    expect(userMessage(new ConvexError("Plain words"))).toBe("Plain words");
    expect(userMessage(new ClientError("The upload failed (HTTP 500)."))).toBe("The upload failed (HTTP 500).");
    expect(serverError(new Error("TypeError in a render"))).toBeNull();
    expect(userMessage(new Error("TypeError in a render"))).toBe("Something went wrong. Please try again.");
    expect(userMessage(undefined, "Sign-in failed.")).toBe("Sign-in failed.");
  });

  it("knows a failure returned as a value", () => {
    expect(isFailureResult({ ok: false, error: "Unknown command /x." })).toBe(true);
    expect(isFailureResult({ ok: true, message: "Done." })).toBe(false);
    expect(isFailureResult(null)).toBe(false);
  });

  it("a composer's send keeps the draft and shows the message, thrown or returned", async () => {
    const onSent = vi.fn();
    const outcomes = [
      () => Promise.resolve({ ok: false, error: "Unknown command /x." }),
      () => Promise.reject(new ConvexError({ code: "INVALID_ARGUMENT", message: "Too long." })),
      () => Promise.resolve(null),
    ];
    const { result } = renderHook(() => useSend(() => outcomes.shift()!()));
    for (const expected of ["Unknown command /x.", "Too long.", null]) {
      await act(async () => result.current.send("text", onSent));
      expect(result.current.error).toBe(expected);
    }
    expect(onSent).toHaveBeenCalledTimes(1);
  });

  it("an id the argument validator refuses (a mistyped address) reads as not found, from Convex and from the offline backend", () => {
    const convex = new Error('[CONVEX Q(runs:get)] [Request ID: 1] Server Error\nArgumentValidationError: Value does not match validator.\nPath: .runId\nValue: "nope"\nValidator: v.id("runs")');
    expect(userMessage(convex)).toBe("Run not found.");
    expect(userMessage(new Error('[CONVEX Q(tasks:get)] Server Error\nValidator error: Expected ID for table "tasks", got `nope`'))).toBe("Task not found.");
    expect(userMessage(new Error("Validator error: Expected `string`, got `1`"))).toBe("Something went wrong. Please try again.");
    expect(userMessage(new Error("boom"))).toBe("Something went wrong. Please try again.");
  });
});
