/**
 * The backend fixes V8's heap growing factor (tools/local-backend/heapSizing.ts)
 * so its resident memory stays a steady multiple of the data it holds
 * (bench:soak); MAESTRO_HEAP_GROWING_PERCENT chooses another, or V8's own.
 */
import { describe, expect, test } from "vitest";
import { applyHeapSizing, HEAP_GROWING_PERCENT } from "../../tools/local-backend/heapSizing";

describe("heap sizing", () => {
  test("the default, a chosen percent, and 0 for V8's own choice", () => {
    expect(applyHeapSizing(undefined)).toBe(HEAP_GROWING_PERCENT);
    expect(applyHeapSizing("")).toBe(HEAP_GROWING_PERCENT);
    expect(applyHeapSizing("50")).toBe(50);
    expect(applyHeapSizing("0")).toBe(0);
    applyHeapSizing(undefined);
  });

  test("a malformed value stops the start with a message naming the variable", () => {
    for (const bad of ["-1", "1.5", "abc", "1001"]) {
      expect(() => applyHeapSizing(bad)).toThrow(/MAESTRO_HEAP_GROWING_PERCENT must be a whole number from 0 to 1000/);
    }
  });
});
